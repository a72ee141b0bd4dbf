/**
 * The retry guards of SPEC 4 step 5, in their order (a..f), with the retry quota and the
 * server's Retry-After of SPEC 12, and the retry budget and retry throttling of SPEC 18,
 * between them: the first that applies ends the dispatch.
 * Pure: the ledger, the quota and the clock reading come in, a decision goes out.
 */
import type { AdapterError } from "../model/fixture.js";
import type { BudgetName, SuppressReason, UnstampedEvent } from "../model/outcome.js";
import type { Budgets, Playbook, RetryAction, RetryAfterPolicy } from "../model/playbook.js";
import { sideEffectOf, type Verdict } from "../model/registry.js";
import { retryDelay } from "./backoff.js";
import type { RetryBudget } from "./policies/retry-budget.js";
import type { RetryThrottle } from "./policies/retry-throttling.js";
import type { RetryQuotaBucket } from "./quota.js";
import type { Random } from "./random.js";
import { applyRetryAfter } from "./retry-after.js";

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
  /** The call is hedged (SPEC 18): its retries are its hedges, spent or refused by throttling. */
  hedged: "spent" | "throttled" | undefined;
  error: AdapterError | null;
  /** Retries this call has already made for this verdict. */
  retriesOfVerdict: number;
  /** Retries this call has already made, whatever their verdicts. */
  retriesOfCall: number;
  /** Which retry this is in the backoff schedule (0 for the first): per verdict or per call. */
  backoffIndex: number;
  /** The delay before the previous retry that counts for `backoffIndex` (decorrelated jitter). */
  previousDelay: number | undefined;
  ledger: BudgetLedger;
  /** Milliseconds since the run started. */
  elapsedMs: number;
  budgets: Budgets;
  /** The Retry-After policy in force, or false when `honor_retry_after` is off. */
  retryAfter: RetryAfterPolicy | false;
  /** The server's hint, already read from the error (engine/retry-after.ts). */
  hintMs: number | undefined;
  /** The hint was negative or unparseable and the policy says `invalid: give_up`. */
  hintInvalid?: boolean;
  /** The dispatcher's retry quota, when the playbook has one. */
  quota: RetryQuotaBucket | undefined;
  /** The dispatcher's retry budget (SPEC 18), and whether this dispatch already holds a place in it. */
  budget: RetryBudget | undefined;
  retrying: boolean;
  /** The dispatcher's retry throttling (SPEC 18). */
  throttle: RetryThrottle | undefined;
  random: Random;
}

export type RetryDecision =
  | { kind: "retry"; delayMs: number; quotaCost: number | undefined }
  | { kind: "suppressed"; reason: SuppressReason; end: "failed" | "exhausted" }
  | { kind: "budget"; budget: Exclude<BudgetName, "same_verdict_ceiling">; limit: number }
  | { kind: "quota"; cost: number; tokens: number }
  | { kind: "retry_budget"; retriesInProgress: number; limit: number; callsInProgress: number }
  | { kind: "retry_throttled"; tokens: number; threshold: number };

export function decideRetry(input: RetryInput): RetryDecision {
  const { action, budgets, ledger } = input;
  if (!input.idempotent) return { kind: "suppressed", reason: "non_idempotent", end: "failed" };
  if (input.error?.side_effect_state === "committed") return { kind: "suppressed", reason: "side_effect_committed", end: "failed" };
  if (!input.verdict?.retryable) return { kind: "suppressed", reason: "not_retryable", end: "failed" };
  if (input.hedged !== undefined) {
    const throttle = input.hedged === "throttled" ? input.throttle : undefined;
    if (throttle !== undefined) return { kind: "retry_throttled", tokens: throttle.tokens, threshold: throttle.threshold };
    return { kind: "suppressed", reason: "hedged", end: "exhausted" };
  }
  const classMax = input.classMaxRetries;
  if (classMax !== undefined && classMax < action.max_retries) {
    if (input.retriesOfVerdict >= classMax) return { kind: "suppressed", reason: "class_max_retries", end: "exhausted" };
  } else if (input.retriesOfVerdict >= action.max_retries) {
    return { kind: "suppressed", reason: "max_retries", end: "exhausted" };
  }
  if (budgets.retries_per_call !== undefined && input.retriesOfCall >= budgets.retries_per_call) {
    return { kind: "budget", budget: "retries_per_call", limit: budgets.retries_per_call };
  }
  if (budgets.retries !== undefined && ledger.retries >= budgets.retries) return { kind: "budget", budget: "retries", limit: budgets.retries };
  let quotaCost: number | undefined;
  if (input.quota !== undefined) {
    quotaCost = input.quota.costOf(input.verdict?.class, input.error?.kind);
    if (!input.quota.canTake(quotaCost)) return { kind: "quota", cost: quotaCost, tokens: input.quota.tokens };
  }
  const { budget, throttle } = input;
  if (budget !== undefined && !budget.allows(input.retrying)) {
    return { kind: "retry_budget", retriesInProgress: budget.retriesInProgress, limit: budget.limit(), callsInProgress: budget.callsInProgress };
  }
  if (throttle !== undefined && !throttle.allowsRetry()) return { kind: "retry_throttled", tokens: throttle.tokens, threshold: throttle.threshold };
  let delayMs = retryDelay(action, input.backoffIndex, input.previousDelay, input.random);
  if (input.retryAfter !== false) {
    if (input.hintInvalid === true) return { kind: "suppressed", reason: "retry_after_invalid", end: "exhausted" };
    const decision = applyRetryAfter(delayMs, input.hintMs, input.retryAfter);
    if (decision.kind === "give_up") return { kind: "suppressed", reason: "retry_after_too_long", end: "exhausted" };
    delayMs = decision.delayMs;
  }
  if (budgets.retry_seconds !== undefined && ledger.backoffMs + delayMs > budgets.retry_seconds * 1000) {
    return { kind: "budget", budget: "retry_seconds", limit: budgets.retry_seconds };
  }
  if (budgets.wall_ms !== undefined && input.elapsedMs + delayMs > budgets.wall_ms) return { kind: "budget", budget: "wall_ms", limit: budgets.wall_ms };
  return { kind: "retry", delayMs, quotaCost };
}

/** The outcome reason of a budget that ran out. */
export const budgetReason = (budget: Exclude<BudgetName, "same_verdict_ceiling">): string => {
  switch (budget) {
    case "retries":
      return "budget_retries";
    case "retries_per_call":
      return "budget_retries_per_call";
    case "retry_seconds":
      return "budget_retry_seconds";
    case "wall_ms":
      return "budget_wall";
  }
};

/**
 * How the dispatch ends when the retry is not made (before on_exhausted): its end, reason,
 * queue when a person is told, and the event that says why the retry was refused.
 */
export interface RefusedRetry {
  end: "failed" | "exhausted" | "escalated";
  reason: string;
  queue: string | undefined;
  event: UnstampedEvent;
}

export function refusedRetry(playbook: Playbook, decision: Exclude<RetryDecision, { kind: "retry" }>, error: AdapterError | null, verdict: Verdict | undefined, code: string): RefusedRetry {
  switch (decision.kind) {
    case "suppressed": {
      const event: UnstampedEvent = { type: "retry_suppressed", reason: decision.reason, verdict: code };
      // SPEC 13: a retry refused because the call is not idempotent, when nobody knows
      // whether the side effect happened, goes to a person: money may have moved.
      const queue = playbook.on_unknown_side_effect?.queue;
      const state = error?.side_effect_state ?? (verdict ? sideEffectOf(verdict) : "unknown");
      if (decision.reason === "non_idempotent" && queue !== undefined && state === "unknown") return { end: "escalated", reason: "side_effect_unknown", queue, event };
      return { end: decision.end, reason: decision.reason, queue: undefined, event };
    }
    case "budget":
      return { end: "exhausted", reason: budgetReason(decision.budget), queue: undefined, event: { type: "budget_exhausted", budget: decision.budget, limit: decision.limit, verdict: code } };
    case "quota":
      return { end: "exhausted", reason: "retry_quota", queue: undefined, event: { type: "retry_quota_exhausted", verdict: code, cost: decision.cost, tokens: decision.tokens } };
    case "retry_budget":
      return {
        end: "exhausted",
        reason: "retry_budget",
        queue: undefined,
        event: { type: "retry_budget_exhausted", verdict: code, retries_in_progress: decision.retriesInProgress, limit: decision.limit, calls_in_progress: decision.callsInProgress },
      };
    case "retry_throttled":
      return { end: "exhausted", reason: "retry_throttled", queue: undefined, event: { type: "retry_throttled", verdict: code, tokens: decision.tokens, threshold: decision.threshold } };
  }
}
