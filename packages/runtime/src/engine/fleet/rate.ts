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
import type { QuotaReading, RateBucket } from "../policies/rate-limits.js";

/**
 * One fleet rate limit's lease in this process: a bucket that only the store refills. Before
 * the first lease and with the store down, this process's own bucket decides.
 */
export class LeasedBucket implements RateBucket {
  /** Tokens left of the lease (below zero: taken ahead of the next one, by waiters). */
  private left = 0;
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
    private readonly own: RateBucket,
    private readonly modeOf: () => FleetMode,
  ) {
    this.capacity = policy.burst ?? policy.limit.requests;
    this.rate = policy.limit.requests / policy.limit.per_ms;
  }

  /** Whether the lease decides now: the fleet's mode, and a lease taken. Otherwise the process's own bucket does. */
  get active(): boolean {
    return this.leased && this.modeOf() === "fleet";
  }

  get tokens(): number {
    return this.active ? this.left : this.own.tokens;
  }

  refill(now: number): void {
    if (!this.active) this.own.refill(now);
  }

  tokensAt(now: number): number {
    return this.active ? this.left : this.own.tokensAt(now);
  }

  reserve(now: number): number {
    if (!this.active) return this.own.reserve(now);
    this.left -= 1;
    this.spent++;
    if (this.left >= 0) return 0;
    // Beyond the lease: go at this process's share of the fleet's rate; the next sync charges it to the fleet's bucket.
    this.paceAt = Math.max(now, this.paceAt) + this.instances / this.rate;
    return Math.ceil(this.paceAt - now);
  }

  tryTake(now: number): boolean {
    if (!this.active) return this.own.tryTake(now);
    if (this.left < 1) return false;
    this.left -= 1;
    this.spent++;
    return true;
  }

  release(): void {
    // A release follows its reserve at once: the same bucket took it.
    if (!this.active) return this.own.release();
    if (this.left < 0) this.paceAt -= this.instances / this.rate;
    this.left += 1;
    this.spent--;
  }

  /** A response's remaining quota can only shrink the lease. */
  correct(reading: QuotaReading, now: number): void {
    if (!this.active) this.own.correct(reading, now);
    else this.left = Math.min(this.left, reading.remaining);
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
    this.left = grant - (this.spent - sent.spent);
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
