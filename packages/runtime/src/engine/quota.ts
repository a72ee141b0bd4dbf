/**
 * The retry quota (SPEC 12): a token bucket shared by every dispatch of a dispatcher, the
 * AWS SDK's standard retry mode. A retry takes tokens; a dispatch that ends well gives some
 * back; with too few tokens left the retry is suppressed, so an outage cannot turn every
 * call into a retry storm.
 */
import type { RetryQuota } from "../model/playbook.js";

export const DEFAULT_RETRY_COST = 5;
export const DEFAULT_REFUND = 1;

export class RetryQuotaBucket {
  readonly capacity: number;
  private available: number;

  constructor(
    readonly policy: RetryQuota,
    /** Tokens to start from (a fixture's `quota.tokens`); default a full bucket. */
    tokens?: number,
  ) {
    this.capacity = policy.capacity;
    this.available = Math.min(this.capacity, Math.max(0, tokens ?? this.capacity));
  }

  get tokens(): number {
    return this.available;
  }

  /** A retry's cost: by the verdict's class, else by the error's kind, else `cost`. */
  costOf(verdictClass: string | undefined, errorKind: string | undefined): number {
    const byClass = this.policy.cost_by_class;
    if (verdictClass !== undefined && byClass !== undefined && Object.hasOwn(byClass, verdictClass)) return byClass[verdictClass];
    const byKind = this.policy.cost_by_kind;
    if (errorKind !== undefined && byKind !== undefined && Object.hasOwn(byKind, errorKind)) return byKind[errorKind];
    return this.policy.cost ?? DEFAULT_RETRY_COST;
  }

  canTake(cost: number): boolean {
    return cost <= this.available;
  }

  take(cost: number): void {
    this.available -= cost;
  }

  /**
   * A dispatch ended well: one that succeeded first time returns `refund`; one that
   * recovered returns its last retry's cost, all its retries' costs, or nothing.
   */
  settle(costs: readonly number[]): void {
    let back: number;
    if (costs.length === 0) back = this.policy.refund ?? DEFAULT_REFUND;
    else {
      switch (this.policy.refund_on_recovery ?? "last") {
        case "last":
          back = costs[costs.length - 1];
          break;
        case "all":
          back = costs.reduce((a, b) => a + b, 0);
          break;
        case "none":
          back = 0;
      }
    }
    this.available = Math.min(this.capacity, this.available + back);
  }
}
