/** The playbook: one compensation action per verdict, plus run-wide budgets (SPEC section 3). */

/** none, full (= 1), equal (= 0.5), or a ratio r in (0, 1]: the delay is drawn from [d(1-r), d]. */
export type Jitter = "none" | "full" | "equal" | number;
/** @deprecated The named jitters only; use `Jitter`. */
export type JitterKind = "none" | "full" | "equal";

export type BackoffFormula =
  | { strategy: "exponential"; base_ms: number; factor?: number; cap_ms?: number; jitter?: Jitter; min_ms?: number }
  | { strategy: "linear"; base_ms: number; cap_ms?: number; jitter?: Jitter; min_ms?: number }
  | { strategy: "constant"; base_ms: number; cap_ms?: number; jitter?: Jitter; min_ms?: number }
  | { strategy: "decorrelated"; base_ms: number; cap_ms?: number; min_ms?: number };

/** How a server's Retry-After hint sets a retry's delay (SPEC 12). */
export interface RetryAfterPolicy {
  /** Read in order, the first present wins; a name ending in `-ms` is milliseconds. */
  headers?: string[];
  /** Listed headers read as milliseconds although their names do not end in `-ms`. */
  ms_headers?: string[];
  max_ms?: number;
  above_max?: "ignore" | "cap" | "give_up";
  mode?: "max" | "replace";
  max_over_backoff_ms?: number;
}

/** A token bucket of retries shared by every dispatch of a dispatcher (SPEC 12; the AWS SDK's standard mode). */
export interface RetryQuota {
  capacity: number;
  cost?: number;
  cost_by_kind?: Record<string, number>;
  cost_by_class?: Record<string, number>;
  refund?: number;
  refund_on_recovery?: "last" | "all" | "none";
}

export interface RetryWithBackoff {
  action: "retry_with_backoff";
  max_retries: number;
  backoff_ms?: number[];
  backoff?: BackoffFormula;
  retry_after?: RetryAfterPolicy;
}
export interface RetryWithHint {
  action: "retry_with_hint";
  max_retries: number;
  hint: string;
  backoff_ms?: number[];
  backoff?: BackoffFormula;
  retry_after?: RetryAfterPolicy;
}
export interface RefreshEvidence {
  action: "refresh_evidence";
  then: "retry" | "abort";
}
export interface RestoreCheckpoint {
  action: "restore_checkpoint";
  then: "retry" | "abort";
}
export interface EscalateToHuman {
  action: "escalate_to_human";
  queue: string;
}
export interface IssueReversal {
  action: "issue_reversal";
  reason: string;
}
export interface DeprecateToolCall {
  action: "deprecate_tool_call";
  reason: string;
  replan: boolean;
}
export interface FallbackTool {
  action: "fallback";
  tool: string;
}
export interface Fail {
  action: "fail";
  message?: string;
}
export interface DeadLetter {
  action: "dead_letter";
  queue: string;
}

/** The closed set of compensation actions, discriminated by `action`. */
export type CompensationAction =
  | RetryWithBackoff
  | RetryWithHint
  | RefreshEvidence
  | RestoreCheckpoint
  | EscalateToHuman
  | IssueReversal
  | DeprecateToolCall
  | FallbackTool
  | Fail
  | DeadLetter;

export type ActionName = CompensationAction["action"];
export type RetryAction = RetryWithBackoff | RetryWithHint;

export const ACTION_NAMES: readonly ActionName[] = [
  "retry_with_backoff",
  "retry_with_hint",
  "refresh_evidence",
  "restore_checkpoint",
  "escalate_to_human",
  "issue_reversal",
  "deprecate_tool_call",
  "fallback",
  "fail",
  "dead_letter",
];

export const isRetryAction = (a: CompensationAction): a is RetryAction =>
  a.action === "retry_with_backoff" || a.action === "retry_with_hint";

/** The Retry-After policy in force for a retry action (SPEC 12): its own, else the playbook's, else the defaults. */
export const retryAfterPolicyOf = (playbook: { readonly retry_after?: RetryAfterPolicy | null }, action: RetryAction): RetryAfterPolicy => action.retry_after ?? playbook.retry_after ?? {};

/** Whether servers' Retry-After hints are read at all (`honor_retry_after`, default true). */
export const honorsRetryAfter = (playbook: { readonly honor_retry_after?: boolean }): boolean => playbook.honor_retry_after ?? true;

export interface Budgets {
  retries?: number;
  /** Retries of one call, whatever their verdicts (the SDKs' maxRetries); a fallback call counts afresh. */
  retries_per_call?: number;
  retry_seconds?: number;
  wall_ms?: number;
  same_verdict_ceiling?: number;
}

export interface Playbook {
  apiVersion: "failbook/v1";
  kind: "Playbook";
  name: string;
  honor_retry_after?: boolean;
  retry_after?: RetryAfterPolicy;
  backoff_index?: "per_verdict" | "per_call";
  retry_quota?: RetryQuota;
  escalation_queue?: string;
  empty_response_is_failure?: boolean;
  budgets?: Budgets;
  on_exhausted?: { action: "escalate_to_human" | "dead_letter"; queue?: string };
  /** A retry refused as not idempotent, with the side effect unknown, escalates here (SPEC 13). */
  on_unknown_side_effect?: { queue: string };
  saga?: { compensate_on_failure?: boolean };
  throttle?: { class: string; min_failures: number; factor: number };
  tools?: Record<string, { idempotent?: boolean }>;
  verdicts: Record<string, CompensationAction>;
}
