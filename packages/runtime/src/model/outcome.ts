/**
 * What a dispatch ends with (SPEC 5.4): the outcome, the decision events that led to it, the
 * envelope an agent is shown and the recovery packet a human is shown.
 */
import type { ActionName } from "./playbook.js";
import type { AdapterError, Call } from "./fixture.js";
import type { SideEffectState } from "./registry.js";

export type OutcomeKind =
  | "succeeded"
  | "recovered"
  | "deprecated"
  | "escalated"
  | "reversed"
  | "exhausted"
  | "failed"
  | "dead_lettered"
  | "needs_input"
  | "compensated";

export const OUTCOME_KINDS: readonly OutcomeKind[] = [
  "succeeded",
  "recovered",
  "deprecated",
  "escalated",
  "reversed",
  "exhausted",
  "failed",
  "dead_lettered",
  "needs_input",
  "compensated",
];

/** A call ended well: the step of a saga or the call of a wave counts as done. */
export const isSuccess = (kind: OutcomeKind): boolean => kind === "succeeded" || kind === "recovered";

/** Why the runtime refused to retry, or why a dispatch ended the way it did. */
export type SuppressReason = "non_idempotent" | "side_effect_committed" | "not_retryable" | "max_retries" | "class_max_retries" | "retry_after_too_long" | "retry_after_invalid"
  /** A hedged call's retries are its hedges (SPEC 18): its last failure is not retried. */
  | "hedged"
  /** The retry's delay would end past the dispatch's deadline (SPEC 21). */
  | "deadline";

/**
 * Outcome reasons of the shared policies of SPEC 18: the retry budget (Envoy) and retry
 * throttling (gRPC A6) end a dispatch `exhausted` with these.
 */
export type PolicyReason = "retry_budget" | "retry_throttled";
export type BudgetName = "retries" | "retries_per_call" | "retry_seconds" | "wall_ms" | "same_verdict_ceiling";

/** What the agent is shown at the end of a dispatch (seed 004's envelope, snake_case). */
export interface Envelope {
  ok: boolean;
  tool: string;
  outcome: OutcomeKind;
  reason: string | null;
  replan: boolean;
  trace_id: string;
  attempts: number;
  retried: number;
  /** The last failure, as the registry describes it; null when the call ended well. */
  error: EnvelopeError | null;
}

export interface EnvelopeError {
  code: string;
  class: string | null;
  /** May anything retry this: the verdict is retryable, nothing committed, the call idempotent. */
  retryable: boolean;
  side_effect_state: SideEffectState;
  human_action_required: boolean;
  retry_after_ms: number | null;
  summary: string | null;
  /** The adapter's own message, redacted. */
  message: string | null;
  recovery_hint: string | null;
  safe_next_actions: string[];
  unsafe_next_actions: string[];
}

/** What a human is shown when a dispatch escalates (seed 004's recovery packet). */
export interface RecoveryPacket {
  trace_id: string;
  tool: string;
  failed_step: string;
  queue: string;
  code: string | null;
  summary: string | null;
  reason: string | null;
  attempts: number;
  retried: number;
  elapsed_ms: number;
  idempotency_key: string;
  side_effect_state: SideEffectState | null;
  safe_next_actions: string[];
  unsafe_next_actions: string[];
  suggested_prompt: string;
}

/** One failed attempt, as a dead-letter entry keeps it. */
export interface AttemptError {
  attempt: number;
  t: number;
  tool: string;
  error: AdapterError | null;
}

/** What a dead-letter queue receives: enough to triage without reproducing the run. */
export interface DeadLetterEntry {
  queue: string;
  /** The call that could not be completed (for a failed compensation, the compensation call). */
  call: Call;
  /** The saga step a failed compensation was undoing. */
  step: string | null;
  errors: AttemptError[];
  envelope: Envelope;
  first_attempt_ms: number | null;
  dead_lettered_ms: number;
}

/** One call inside a multi-call fixture: a saga step, a compensation, or a wave's call. */
export type CallSummary = { id: string } & Pick<Outcome, "kind" | "verdict" | "attempts" | "retried" | "elapsed_ms" | "reason" | "queue">;

export interface Outcome {
  kind: OutcomeKind;
  /** The last classified verdict, or null. */
  verdict: string | null;
  /** Calls made to the upstream, fallbacks (and steps, compensations) included. */
  attempts: number;
  /** The number of `retry_scheduled` events. */
  retried: number;
  elapsed_ms: number;
  reason: string | null;
  queue: string | null;
  replan: boolean;
  /** The dispatch ran out of retries or budget (also when on_exhausted turned that into another end). */
  exhausted: boolean;
  envelope: Envelope;
  packet: RecoveryPacket | null;
  steps?: CallSummary[];
  compensations?: CallSummary[];
  calls?: CallSummary[];
  parallelism?: number[];
  dead_letters?: DeadLetterEntry[];
}

export type AttemptStatus = "ok" | "error" | "needs_input";

/** The decision events, discriminated by `type`; `t` is ms since the run started. */
export type DispatchEvent =
  | (EventBase<"attempt"> & { n: number; status: AttemptStatus; idempotency_key: string; latency_ms: number; error_kind?: string; http_status?: number; short_circuited?: true; hedge?: true })
  | (EventBase<"failure_classified"> & { verdict: string; attempt: number; action: ActionName | null })
  | (EventBase<"retry_scheduled"> & { attempt: number; delay_ms: number; verdict: string; hint?: string })
  | (EventBase<"retry_suppressed"> & { reason: SuppressReason; verdict: string })
  | (EventBase<"budget_exhausted"> & { budget: BudgetName; limit: number; verdict: string })
  | (EventBase<"retry_quota_exhausted"> & { verdict: string; cost: number; tokens: number })
  | (EventBase<"retry_after_unreadable"> & { header: string; value: string })
  | (EventBase<"evidence_refreshed"> & { evidence_refs: string[] })
  | EventBase<"checkpoint_restored">
  | EventBase<"credentials_refreshed">
  | (EventBase<"breaker_opened"> & BreakerEventBody & { failures: number; attempts: number; break_ms: number })
  | (EventBase<"breaker_half_open"> & BreakerEventBody)
  | (EventBase<"breaker_closed"> & BreakerEventBody)
  | (EventBase<"retry_budget_exhausted"> & { verdict: string; retries_in_progress: number; limit: number; calls_in_progress: number })
  | (EventBase<"retry_throttled"> & { verdict: string; tokens: number; threshold: number })
  /** `hedge`: the cancelled attempt was a hedge after the first (as on `attempt` events). */
  | (EventBase<"hedge_cancelled"> & { attempt: number; hedge?: true })
  | (EventBase<"reversal_issued"> & { reversal_token: string; reason: string })
  | (EventBase<"reversal_refused"> & { reason: string })
  | (EventBase<"escalated"> & { queue: string; reason: string | null })
  | (EventBase<"fallback_started"> & { tool: string; from: string })
  | (EventBase<"dead_lettered"> & { queue: string })
  | (EventBase<"compensation_started"> & { step: string })
  | (EventBase<"compensation_failed"> & { step: string; kind: OutcomeKind; queue: string })
  /** An attempt waited this long for a token of rate limit `limit` (SPEC 22). */
  | (EventBase<"rate_limit_waited"> & { limit: string; ms: number })
  /** An attempt found rate limit `limit` empty and was not sent (SPEC 22). */
  | (EventBase<"rate_limited"> & { limit: string })
  /** A rate limit's header held garbage, a negative or a far-future value: ignored (SPEC 22). */
  | (EventBase<"rate_limit_header_ignored"> & { limit: string; header: string; value: string })
  /** The caller cancelled the dispatch or its deadline passed (SPEC 21); `in_flight`: an attempt had not answered. */
  | (EventBase<"dispatch_stopped"> & { reason: "cancelled" | "deadline"; in_flight: boolean })
  /** No good sync with the fleet's store for `lease_ms` (SPEC 23): this process applies `on_store_down`. `t` is the dispatcher's clock. */
  | (EventBase<"fleet_store_unavailable"> & { instance: string; since_ms: number; error?: string })
  /** The first good sync after `fleet_store_unavailable`. */
  | (EventBase<"fleet_store_recovered"> & { instance: string; down_ms: number });

/** Which breaker changed state; `tool` when it keeps one state per tool (`per: tool`). */
interface BreakerEventBody {
  breaker: string;
  tool?: string;
}

interface EventBase<T extends string> {
  t: number;
  type: T;
  /** The call's id, on events of multi-call fixtures (steps, compensations, waves). */
  call?: string;
}

export type EventType = DispatchEvent["type"];

type Unstamped<E> = E extends unknown ? Omit<E, "t"> : never;
/** An event before the run stamps it with its time. */
export type UnstampedEvent = Unstamped<DispatchEvent>;

/** Every event type, in the order SPEC 5.4 lists them. */
export const EVENT_TYPES: readonly EventType[] = [
  "attempt",
  "failure_classified",
  "retry_scheduled",
  "retry_suppressed",
  "evidence_refreshed",
  "checkpoint_restored",
  "reversal_issued",
  "reversal_refused",
  "escalated",
  "fallback_started",
  "dead_lettered",
  "compensation_started",
  "compensation_failed",
  "budget_exhausted",
  "retry_quota_exhausted",
  "retry_after_unreadable",
  // SPEC 18
  "credentials_refreshed",
  "breaker_opened",
  "breaker_half_open",
  "breaker_closed",
  "retry_budget_exhausted",
  "retry_throttled",
  "hedge_cancelled",
  // SPEC 21
  "dispatch_stopped",
  // SPEC 22
  "rate_limit_waited",
  "rate_limited",
  "rate_limit_header_ignored",
  // SPEC 23
  "fleet_store_unavailable",
  "fleet_store_recovered",
];
