/**
 * The retry budget (SPEC 18, Envoy's `retry_budget`), shared by every dispatch of a
 * dispatcher: a retry is allowed only while the retries in progress are fewer than
 * `max(min_concurrency, floor(percent / 100 × calls in progress))`. A dispatch counts as a
 * retry in progress from its first retry to its end, waiting in backoff included: Envoy
 * counts only the retries in flight, so a thousand retries waiting out their delays
 * overshoot its budget (envoy#30205).
 */
import type { RetryBudgetPolicy } from "../../model/playbook.js";

/** Envoy's defaults: 20 %, and at least 3 retries at any load. */
export const RETRY_BUDGET_DEFAULTS = Object.freeze({ percent: 20, min_concurrency: 3 });

export class RetryBudget {
  private calls = 0;
  private retries = 0;
  private readonly percent: number;
  private readonly minConcurrency: number;

  constructor(policy: RetryBudgetPolicy) {
    this.percent = policy.percent ?? RETRY_BUDGET_DEFAULTS.percent;
    this.minConcurrency = policy.min_concurrency ?? RETRY_BUDGET_DEFAULTS.min_concurrency;
  }

  get callsInProgress(): number {
    return this.calls;
  }

  get retriesInProgress(): number {
    return this.retries;
  }

  /** How many retries may be in progress with this many calls in progress. */
  limit(calls = this.calls): number {
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
    return this.retries - (retrying ? 1 : 0) < this.limit();
  }

  /** A dispatch's first retry: from now to its end it is a retry in progress. */
  retryStarted(): void {
    this.retries++;
  }
}
