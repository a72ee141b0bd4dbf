/**
 * Retry throttling and the retry quota with `scope: fleet` (SPEC 23): one fleet token count,
 * each process applying its own changes since its last sync to the fleet's value then.
 *
 * A process reports the sum of all its own changes since it started (`net`), not a change to
 * add: the store applies what is new since the process's previous report, so a lost, late or
 * repeated sync never counts a change twice. Between two syncs a process spends at most its
 * share of what the fleet had above its floor (`ceil((tokens − floor) / processes)`), so the
 * fleet cannot spend the whole count once in every process.
 */
import type { FleetReport, FleetTokenReport, FleetTotals } from "./store.js";
import type { FleetMode, FleetPart } from "./sync.js";

/** What a policy with a token count gives the fleet: the sum of its own changes, its bucket's size. */
export interface TokenSource {
  readonly net: number;
  readonly max: number;
}

/** A policy's view of the fleet's token count. */
export interface TokenView {
  readonly mode: FleetMode;
  /** The fleet's count now: its value at the last sync plus this process's changes since (`net` now). */
  tokens(net: number): number;
  /** What this process may still spend before the next sync, over `floor` (its share of the fleet's headroom then). */
  share(floor: number): number;
  /** What this process spent since the last sync. */
  spent: number;
}

export class FleetTokens implements FleetPart, TokenView {
  private fleet: number | undefined;
  private sent = 0;
  private instances = 1;
  spent = 0;

  constructor(
    private readonly key: "throttling" | "quota",
    private readonly source: TokenSource,
    private readonly modeOf: () => FleetMode,
  ) {}

  get mode(): FleetMode {
    return this.fleet === undefined ? "alone" : this.modeOf();
  }

  tokens(net: number): number {
    return Math.min(this.source.max, Math.max(0, (this.fleet ?? this.source.max) + net - this.sent));
  }

  share(floor: number): number {
    return Math.ceil(((this.fleet ?? this.source.max) - floor) / this.instances);
  }

  report(into: FleetReport): void {
    into[this.key] = { net: this.source.net, max: this.source.max };
  }

  apply(totals: FleetTotals, sent: FleetReport): void {
    const fleet = totals[this.key];
    const mine: FleetTokenReport | undefined = sent[this.key];
    if (fleet === undefined || mine === undefined || !(fleet.tokens >= 0)) return;
    this.fleet = fleet.tokens;
    this.sent = mine.net;
    this.spent = 0;
    this.instances = totals.instances >= 1 ? totals.instances : 1;
  }
}
