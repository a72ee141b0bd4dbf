/**
 * Retry throttling (SPEC 18, gRPC's `retryThrottling`, A6), shared by every dispatch of a
 * dispatcher: a token count starts at `max_tokens`; each failed attempt whose verdict is
 * retryable takes 1 (not below 0), each success adds `token_ratio` (not above
 * `max_tokens`); retries and hedges go only while the count is above `max_tokens / 2`.
 * Tokens are kept in thousandths, as A6 says, so no sum drifts.
 */
import type { RetryThrottlingPolicy } from "../../model/playbook.js";
import type { TokenView } from "../fleet/tokens.js";

export class RetryThrottle {
  private milli: number;
  private readonly maxMilli: number;
  private readonly ratioMilli: number;
  /** The sum of this process's changes since it started, in thousandths, unclamped: what a fleet sync sends. */
  net = 0;
  /** Set with `scope: fleet` and a dispatcher fleet (engine/fleet/tokens.ts): the fleet's count decides. */
  fleet: TokenView | undefined;

  constructor(
    policy: RetryThrottlingPolicy,
    /** Tokens to start from (a fixture's `state.throttling.tokens`); default a full bucket. */
    tokens?: number,
  ) {
    this.maxMilli = Math.round(policy.max_tokens * 1000);
    this.ratioMilli = Math.round(policy.token_ratio * 1000);
    this.milli = tokens === undefined ? this.maxMilli : Math.min(this.maxMilli, Math.max(0, Math.round(tokens * 1000)));
  }

  get tokens(): number {
    return (this.fleet?.mode === "fleet" ? this.fleet.tokens(this.net) : this.milli) / 1000;
  }

  /** The bucket's size in thousandths (what the fleet's count never exceeds). */
  get max(): number {
    return this.maxMilli;
  }

  /** Retries need more tokens than this. */
  get threshold(): number {
    return this.maxMilli / 2000;
  }

  /** A failed attempt whose verdict is retryable. */
  failed(): void {
    this.milli = Math.max(0, this.milli - 1000);
    this.net -= 1000;
  }

  /** An attempt that answered without failing. */
  succeeded(): void {
    this.milli = Math.min(this.maxMilli, this.milli + this.ratioMilli);
    this.net += this.ratioMilli;
  }

  /** Whether a retry or hedge may go now; with `scope: fleet`, one that may go counts against this process's share. */
  allowsRetry(): boolean {
    const fleet = this.fleet;
    if (fleet === undefined || fleet.mode === "alone") return this.milli * 2 > this.maxMilli;
    if (fleet.mode === "closed") return false;
    // Between two syncs this process starts at most its share of the retries the fleet's headroom allowed then.
    if (fleet.tokens(this.net) * 2 <= this.maxMilli || fleet.spent >= fleet.share(this.maxMilli / 2) / 1000) return false;
    fleet.spent++;
    return true;
  }

  /** `allowsRetry` without counting a retry: for a snapshot. */
  get retriesAllowed(): boolean {
    const fleet = this.fleet;
    if (fleet === undefined || fleet.mode === "alone") return this.milli * 2 > this.maxMilli;
    return fleet.mode === "fleet" && fleet.tokens(this.net) * 2 > this.maxMilli && fleet.spent < fleet.share(this.maxMilli / 2) / 1000;
  }
}
