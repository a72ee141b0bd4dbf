/**
 * The retry guards of SPEC 4 step 5, in their order (a..f): the first that applies ends
 * the dispatch. Pure: the ledger and the clock reading come in, a decision goes out.
 */
import type { AdapterError } from "../model/fixture.js";
import type { BudgetName, SuppressReason } from "../model/outcome.js";
import type { Budgets, RetryAction } from "../model/playbook.js";
import type { Verdict } from "../model/registry.js";
import { retryDelay } from "./backoff.js";
import type { Random } from "./random.js";

/** What a fixture (a phase) has spent so far; shared by every dispatch of a run. */
export interface BudgetLedger {
  /** Clock reading when the run started: `wall_ms` counts from here. */
  readonly startedAt: number;
  retries: number;
  backoffMs: number;
  /** How often each verdict has been classified in the run (the same-verdict ceiling). */
  readonly verdictCounts: Map<string, number>;
}

export interface RetryInput {
  action: RetryAction;
  verdict: Verdict | undefined;
  classMaxRetries: number | undefined;
  idempotent: boolean;
  error: AdapterError | null;
  /** Retries this call has already made for this verdict. */
  retriesOfVerdict: number;
  /** The delay before this verdict's previous retry (decorrelated jitter). */
  previousDelay: number | undefined;
  ledger: BudgetLedger;
  /** Milliseconds since the run started. */
  elapsedMs: number;
  budgets: Budgets;
  honorRetryAfter: boolean;
  random: Random;
}

export type RetryDecision =
  | { kind: "retry"; delayMs: number }
  | { kind: "suppressed"; reason: SuppressReason; end: "failed" | "exhausted" }
  | { kind: "budget"; budget: Exclude<BudgetName, "same_verdict_ceiling">; limit: number };

export function decideRetry(input: RetryInput): RetryDecision {
  const { action, budgets, ledger } = input;
  if (!input.idempotent) return { kind: "suppressed", reason: "non_idempotent", end: "failed" };
  if (input.error?.side_effect_state === "committed") return { kind: "suppressed", reason: "side_effect_committed", end: "failed" };
  if (!input.verdict?.retryable) return { kind: "suppressed", reason: "not_retryable", end: "failed" };
  const classMax = input.classMaxRetries;
  if (classMax !== undefined && classMax < action.max_retries) {
    if (input.retriesOfVerdict >= classMax) return { kind: "suppressed", reason: "class_max_retries", end: "exhausted" };
  } else if (input.retriesOfVerdict >= action.max_retries) {
    return { kind: "suppressed", reason: "max_retries", end: "exhausted" };
  }
  if (budgets.retries !== undefined && ledger.retries >= budgets.retries) return { kind: "budget", budget: "retries", limit: budgets.retries };
  let delayMs = retryDelay(action, input.retriesOfVerdict, input.previousDelay, input.random);
  const retryAfter = input.error?.retry_after_ms;
  if (input.honorRetryAfter && retryAfter !== undefined && retryAfter > delayMs) delayMs = retryAfter;
  if (budgets.retry_seconds !== undefined && ledger.backoffMs + delayMs > budgets.retry_seconds * 1000) {
    return { kind: "budget", budget: "retry_seconds", limit: budgets.retry_seconds };
  }
  if (budgets.wall_ms !== undefined && input.elapsedMs + delayMs > budgets.wall_ms) return { kind: "budget", budget: "wall_ms", limit: budgets.wall_ms };
  return { kind: "retry", delayMs };
}

/** The outcome reason of a budget that ran out. */
export const budgetReason = (budget: Exclude<BudgetName, "same_verdict_ceiling">): string => {
  switch (budget) {
    case "retries":
      return "budget_retries";
    case "retry_seconds":
      return "budget_retry_seconds";
    case "wall_ms":
      return "budget_wall";
  }
};
