/**
 * Rate limits with `scope: fleet` (SPEC 23): the fleet's bucket lives in the store and is
 * shared by leases (Doorman, Envoy's quota service). At each sync a process takes up to twice
 * what it used in the last interval, spends it locally, and gives back what it left unspent at
 * the next sync. A call never waits on the store: a process whose lease ran out waits as its
 * `when_empty` says, at its share of the fleet's rate, and what it took beyond its lease is
 * charged to the fleet's bucket at the next sync.
 *
 * Reports are sums (all the tokens this process spent since it started), so a report sent
 * twice charges nothing twice.
 */
import type { RateLimitPolicy } from "../../model/playbook.js";
import type { FleetRateReport, FleetReport, FleetTotals } from "./store.js";
import type { FleetMode, FleetPart } from "./sync.js";
import type { RateBucket } from "../policies/rate-limits.js";

/** One fleet rate limit's lease in this process: a bucket that only the store refills. */
export class LeasedBucket implements RateBucket {
  /** Tokens left of the lease (below zero: taken ahead of the next one, by waiters). */
  tokens = 0;
  /** All the tokens this process took since it started. */
  spent = 0;
  /** `spent` when the report that brought the current lease was sent, and when the one before was. */
  private spentAtSend = 0;
  private usedLastInterval = 0;
  private leased = false;
  private instances = 1;
  /** When the last token taken beyond the lease goes: those are paced at this process's share of the fleet's rate, across syncs. */
  private paceAt = 0;
  readonly capacity: number;
  /** The fleet's refill, tokens a millisecond. */
  private readonly rate: number;

  constructor(
    readonly name: string,
    private readonly policy: RateLimitPolicy & { limit: { requests: number; per_ms: number } },
    private readonly modeOf: () => FleetMode,
  ) {
    this.capacity = policy.burst ?? policy.limit.requests;
    this.rate = policy.limit.requests / policy.limit.per_ms;
  }

  /** Whether the lease decides now: the fleet's mode, and a lease taken. Otherwise the process's own bucket does. */
  get active(): boolean {
    return this.leased && this.modeOf() === "fleet";
  }

  refill(): void {}

  tokensAt(): number {
    return this.tokens;
  }

  reserve(now: number): number {
    this.tokens -= 1;
    this.spent++;
    if (this.tokens >= 0) return 0;
    // Beyond the lease: go at this process's share of the fleet's rate; the next sync charges it to the fleet's bucket.
    this.paceAt = Math.max(now, this.paceAt) + this.instances / this.rate;
    return Math.ceil(this.paceAt - now);
  }

  tryTake(): boolean {
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    this.spent++;
    return true;
  }

  release(): void {
    if (this.tokens < 0) this.paceAt -= this.instances / this.rate;
    this.tokens += 1;
    this.spent--;
  }

  /** A response's remaining quota can only shrink the lease. */
  correct(reading: { remaining: number }): void {
    this.tokens = Math.min(this.tokens, reading.remaining);
  }

  report(): FleetRateReport {
    const used = this.spent - this.spentAtSend;
    const limit = this.policy.limit;
    return { name: this.name, spent: this.spent, want: Math.max(1, 2 * used), capacity: this.capacity, requests: limit.requests, per_ms: limit.per_ms };
  }

  /** The store's grant for `sent`: what this process spent since sending it counts against the new lease. */
  granted(grant: number, sent: FleetRateReport, instances: number): void {
    this.usedLastInterval = sent.spent - this.spentAtSend;
    this.spentAtSend = sent.spent;
    this.tokens = grant - (this.spent - sent.spent);
    this.leased = true;
    this.instances = instances;
  }

  /** Tokens used between the last two syncs (for `fleet status`). */
  get used(): number {
    return this.usedLastInterval;
  }
}

/** The sync's side of a dispatcher's fleet rate limits. */
export class FleetRates implements FleetPart {
  constructor(private readonly leases: readonly LeasedBucket[]) {}

  report(into: FleetReport): void {
    into.rates = this.leases.map((l) => l.report());
  }

  apply(totals: FleetTotals, sent: FleetReport): void {
    const answers = totals.rates;
    if (answers === undefined || sent.rates === undefined) return;
    const instances = totals.instances >= 1 ? totals.instances : 1;
    for (let i = 0; i < this.leases.length; i++) {
      const answer = answers[i];
      const mine = sent.rates[i];
      if (answer === undefined || mine === undefined || answer.name !== mine.name || !(answer.grant >= 0)) continue;
      this.leases[i]!.granted(answer.grant, mine, instances);
    }
  }
}
