/**
 * Retry throttling (SPEC 18, gRPC's `retryThrottling`, A6), shared by every dispatch of a
 * dispatcher: a token count starts at `max_tokens`; each failed attempt whose verdict is
 * retryable takes 1 (not below 0), each success adds `token_ratio` (not above
 * `max_tokens`); retries and hedges go only while the count is above `max_tokens / 2`.
 * Tokens are kept in thousandths, as A6 says, so no sum drifts.
 */
import type { RetryThrottlingPolicy } from "../../model/playbook.js";

export class RetryThrottle {
  private milli: number;
  private readonly maxMilli: number;
  private readonly ratioMilli: number;

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
    return this.milli / 1000;
  }

  /** Retries need more tokens than this. */
  get threshold(): number {
    return this.maxMilli / 2000;
  }

  /** A failed attempt whose verdict is retryable. */
  failed(): void {
    this.milli = Math.max(0, this.milli - 1000);
  }

  /** An attempt that answered without failing. */
  succeeded(): void {
    this.milli = Math.min(this.maxMilli, this.milli + this.ratioMilli);
  }

  allowsRetry(): boolean {
    return this.milli * 2 > this.maxMilli;
  }
}
