/**
 * The retry quota (SPEC 12): a token bucket shared by every dispatch of a dispatcher, the
 * AWS SDK's standard retry mode. A retry takes tokens; a dispatch that ends well gives some
 * back; with too few tokens left the retry is suppressed, so an outage cannot turn every
 * call into a retry storm.
 */
import type { RetryQuota } from "../model/playbook.js";
import type { TokenView } from "./fleet/tokens.js";

export const DEFAULT_RETRY_COST = 5;
export const DEFAULT_REFUND = 1;

export class RetryQuotaBucket {
  readonly capacity: number;
  private available: number;
  /** The sum of this process's takes and refunds since it started, unclamped: what a fleet sync sends. */
  net = 0;
  /** Set with `scope: fleet` and a dispatcher fleet (engine/fleet/tokens.ts): the fleet's count decides. */
  fleet: TokenView | undefined;

  constructor(
    readonly policy: RetryQuota,
    /** Tokens to start from (a fixture's `quota.tokens`); default a full bucket. */
    tokens?: number,
  ) {
    this.capacity = policy.capacity;
    this.available = Math.min(this.capacity, Math.max(0, tokens ?? this.capacity));
  }

  get tokens(): number {
    return this.fleet?.mode === "fleet" ? this.fleet.tokens(this.net) : this.available;
  }

  get max(): number {
    return this.capacity;
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
    const fleet = this.fleet;
    if (fleet === undefined || fleet.mode === "alone") return cost <= this.available;
    if (fleet.mode === "closed") return false;
    // Between two syncs this process takes at most its share of the tokens the fleet had then, or one retry's cost.
    return cost <= fleet.tokens(this.net) && fleet.spent + cost <= Math.max(cost, fleet.share(0));
  }

  take(cost: number): void {
    this.available = Math.max(0, this.available - cost);
    this.net -= cost;
    if (this.fleet !== undefined) this.fleet.spent += cost;
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
    this.net += back;
  }
}
