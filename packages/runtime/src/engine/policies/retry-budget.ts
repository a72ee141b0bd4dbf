/**
 * The retry budget (SPEC 18, Envoy's `retry_budget`), shared by every dispatch of a
 * dispatcher: a retry is allowed only while the retries in progress are fewer than
 * `max(min_concurrency, floor(percent / 100 × calls in progress))`. A dispatch counts as a
 * retry in progress from its first retry to its end, waiting in backoff included: Envoy
 * counts only the retries in flight, so a thousand retries waiting out their delays
 * overshoot its budget (envoy#30205).
 */
import type { RetryBudgetPolicy } from "../../model/playbook.js";
import type { FleetMode } from "../fleet/sync.js";

/**
 * The fleet's side of a `scope: fleet` budget (engine/fleet/budget.ts, SPEC 23): the fleet's
 * counts are its totals at the last sync plus this process's own changes since.
 */
export interface BudgetView {
  readonly mode: FleetMode;
  calls(own: number): number;
  retries(own: number): number;
  /** How many retries this process may start between two syncs. */
  share(limit: number): number;
  /** How many it started since the last sync (fewer than none when more ended). */
  started(own: number): number;
}

/** Envoy's defaults: 20 %, and at least 3 retries at any load. */
export const RETRY_BUDGET_DEFAULTS = Object.freeze({ percent: 20, min_concurrency: 3 });

export class RetryBudget {
  private calls = 0;
  private retries = 0;
  private readonly percent: number;
  private readonly minConcurrency: number;
  /** Set when the budget has `scope: fleet` and the dispatcher a fleet: the fleet's counts decide. */
  fleet: BudgetView | undefined;

  constructor(policy: RetryBudgetPolicy) {
    this.percent = policy.percent ?? RETRY_BUDGET_DEFAULTS.percent;
    this.minConcurrency = policy.min_concurrency ?? RETRY_BUDGET_DEFAULTS.min_concurrency;
  }

  /** The calls in progress that decide: this process's, or the fleet's with `scope: fleet`. */
  get callsInProgress(): number {
    return this.fleet?.mode === "fleet" ? this.fleet.calls(this.calls) : this.calls;
  }

  /** The retries in progress that decide: this process's, or the fleet's with `scope: fleet`. */
  get retriesInProgress(): number {
    return this.fleet?.mode === "fleet" ? this.fleet.retries(this.retries) : this.retries;
  }

  /** This process's own counts, whatever the scope (what it sends to the fleet). */
  get ownCalls(): number {
    return this.calls;
  }

  get ownRetries(): number {
    return this.retries;
  }

  /** How many retries may be in progress with this many calls in progress. */
  limit(calls = this.callsInProgress): number {
    return Math.max(this.minConcurrency, Math.floor((this.percent * calls) / 100));
  }

  callStarted(): void {
    this.calls++;
  }

  /** A dispatch ended; `retrying` when it had retried (its retry is no longer in progress). */
  callEnded(retrying: boolean): void {
    this.calls--;
    if (retrying) this.retries--;
  }

  /** May a dispatch retry now? A dispatch already retrying keeps its place: it is not counted against itself. */
  allows(retrying: boolean): boolean {
    const self = retrying ? 1 : 0;
    const fleet = this.fleet;
    if (fleet === undefined || fleet.mode === "alone") return this.retries - self < this.limit(this.calls);
    // The store down with on_store_down: closed: no retries.
    if (fleet.mode === "closed") return false;
    const limit = this.limit(fleet.calls(this.calls));
    return fleet.retries(this.retries) - self < limit && fleet.started(this.retries) - self < fleet.share(limit);
  }

  /** A dispatch's first retry: from now to its end it is a retry in progress. */
  retryStarted(): void {
    this.retries++;
  }
}
