/**
 * The two faces of an end: the envelope the agent is shown (seed 004) and, when a person
 * must act, the recovery packet. Both are built from the registry's words for the last
 * verdict, never from raw exception text alone.
 */
import type { AdapterError } from "../model/fixture.js";
import type { Envelope, EnvelopeError, Outcome, OutcomeKind, RecoveryPacket } from "../model/outcome.js";
import { sideEffectOf, type Registry, type SideEffectState, type Verdict } from "../model/registry.js";
import { verdictByCode } from "./classify.js";
import { traceId } from "./idempotency.js";
import type { Redactor } from "./redact.js";

/**
 * What the dispatcher knows about an end, before it is dressed for agents and humans. Its
 * values from outside (the call's tool and id, the error, the reason) arrive redacted; the
 * registry's texts are redacted here.
 */
export interface EndFacts {
  kind: OutcomeKind;
  /** The call's tool as outputs show it. */
  tool: string;
  idempotencyKey: string;
  /** The call may be retried at all (its own flag and the playbook's `tools`). */
  idempotent: boolean;
  verdict: string | null;
  /** The last failed attempt's error (null when the failure carried none). */
  error: AdapterError | null;
  reason: string | null;
  replan: boolean;
  queue: string | null;
  attempts: number;
  retried: number;
  elapsedMs: number;
  /** The caller's W3C trace-id (SPEC 21), shown as it is; else the trace id is made from the key. */
  traceId?: string | undefined;
}

export function buildEnvelope(registry: Registry, facts: EndFacts, redact: Redactor): Envelope {
  const ok = facts.kind === "succeeded" || facts.kind === "recovered";
  return {
    ok,
    tool: facts.tool,
    outcome: facts.kind,
    reason: facts.reason,
    replan: facts.replan,
    trace_id: facts.traceId ?? traceId(facts.idempotencyKey),
    attempts: facts.attempts,
    retried: facts.retried,
    error: ok || facts.verdict === null ? null : envelopeError(registry, facts, redact),
  };
}

/**
 * The outcome of a call whose first attempt answered ok, built directly (no facts, no
 * verdict to look up): what `outcomeOf` makes of such an end, member for member in the same
 * order, with two objects instead of three (the success path of every dispatch).
 */
export function succeededOutcome(tool: string, shownKey: string, elapsedMs: number, trace: string | undefined): Outcome {
  return {
    kind: "succeeded",
    verdict: null,
    attempts: 1,
    retried: 0,
    elapsed_ms: elapsedMs,
    reason: null,
    queue: null,
    replan: false,
    exhausted: false,
    envelope: { ok: true, tool, outcome: "succeeded", reason: null, replan: false, trace_id: trace ?? traceId(shownKey), attempts: 1, retried: 0, error: null },
    packet: null,
  };
}

const texts = (list: readonly string[] | undefined, redact: Redactor): string[] => (list === undefined ? [] : list.map(redact));
const text = (value: string | undefined, redact: Redactor): string | null => (value === undefined ? null : redact(value));

/**
 * The envelope's error for one failure of a verdict: what `failbook mcp`'s classify tool
 * returns for a single adapter error too. The error arrives redacted; the registry's texts
 * are redacted here.
 */
export function envelopeError(registry: Registry, facts: Pick<EndFacts, "verdict" | "error" | "idempotent">, redact: Redactor): EnvelopeError {
  const code = facts.verdict ?? registry.fallback;
  const verdict = verdictByCode(registry, code);
  const state = sideEffectState(verdict, facts.error);
  return {
    code,
    class: verdict?.class ?? null,
    retryable: Boolean(verdict?.retryable) && state !== "committed" && facts.idempotent,
    side_effect_state: state,
    human_action_required: verdict?.human_action_required ?? false,
    retry_after_ms: facts.error?.retry_after_ms ?? null,
    summary: text(verdict?.summary, redact),
    message: facts.error?.message ?? null,
    recovery_hint: text(verdict?.recovery, redact),
    safe_next_actions: texts(verdict?.safe_next_actions, redact),
    unsafe_next_actions: texts(verdict?.unsafe_next_actions, redact),
  };
}

/** What the error says happened upstream, else what the verdict implies. */
function sideEffectState(verdict: Verdict | undefined, error: AdapterError | null): SideEffectState {
  return error?.side_effect_state ?? (verdict ? sideEffectOf(verdict) : "unknown");
}

/** The packet of an end escalated to `queue`; `step`, the call's id as outputs show it. */
export function buildPacket(registry: Registry, facts: EndFacts, step: string, queue: string, redact: Redactor): RecoveryPacket {
  const verdict = facts.verdict === null ? undefined : verdictByCode(registry, facts.verdict);
  const trace = facts.traceId ?? traceId(facts.idempotencyKey);
  const state = facts.verdict === null ? null : sideEffectState(verdict, facts.error);
  return {
    trace_id: trace,
    tool: facts.tool,
    failed_step: step,
    queue,
    code: facts.verdict,
    summary: text(verdict?.summary, redact),
    reason: facts.reason,
    attempts: facts.attempts,
    retried: facts.retried,
    elapsed_ms: facts.elapsedMs,
    idempotency_key: facts.idempotencyKey,
    side_effect_state: state,
    safe_next_actions: texts(verdict?.safe_next_actions, redact),
    unsafe_next_actions: texts(verdict?.unsafe_next_actions, redact),
    // Made of redacted parts; redacted whole too, since parts side by side could form a secret.
    suggested_prompt: redact(suggestedPrompt(facts, step, trace, verdict, state)),
  };
}

function suggestedPrompt(facts: EndFacts, step: string, trace: string, verdict: Verdict | undefined, state: SideEffectState | null): string {
  const what = facts.verdict === null ? "did not complete" : `failed with ${facts.verdict}`;
  const check =
    state === "none"
      ? "Nothing was applied upstream."
      : `Check the state of ${facts.tool} for trace ${trace} (idempotency key ${facts.idempotencyKey}) before trying again.`;
  const recovery = verdict?.recovery ? ` ${verdict.recovery}` : "";
  return `Call ${step} to ${facts.tool} ${what} after ${facts.attempts} ${facts.attempts === 1 ? "attempt" : "attempts"}. ${check}${recovery}`;
}
