/**
 * One adapter error's classification as data, the same for `failbook classify --format json`
 * and the MCP server's classify tool: the verdict, the rule that matched (at its position in
 * the registry) or the fallback, the verdict's facts, the playbook's action, and what the
 * dispatcher does with this failure of a call to the tool (the engine's own decisions).
 */
import type { Loaded } from "../load/project.js";
import type { AdapterError } from "failbook-runtime/model/fixture.js";
import { honorsRetryAfter, isRetryAction, retryAfterPolicyOf, type CompensationAction, type Playbook, type RetryAction } from "failbook-runtime/model/playbook.js";
import { sideEffectOf, type Registry, type SideEffectState, type Verdict } from "failbook-runtime/model/registry.js";
import { classify, verdictByCode, type Classification } from "failbook-runtime/engine/classify.js";
import { actionFor, isIdempotent } from "failbook-runtime/engine/dispatch.js";
import { envelopeError } from "failbook-runtime/engine/envelope.js";
import { RetryQuotaBucket } from "failbook-runtime/engine/quota.js";
import { maxRandom } from "failbook-runtime/engine/random.js";
import { readRetryAfter } from "failbook-runtime/engine/retry-after.js";
import { decideRetry, refusedRetry } from "failbook-runtime/engine/retry.js";

export interface ClassificationReport {
  verdict: string;
  fallback: boolean;
  /** The rule that matched: its index among the verdict's rules, and where it is written. */
  rule: { index: number; file: string; line: number; column: number } | null;
  class: string | null;
  /** May this failure be retried: the verdict is retryable, nothing committed, the call (its tool) idempotent. */
  retryable: boolean | null;
  /** The call to the tool may be retried at all (the playbook's `tools`); true without a tool. */
  idempotent: boolean;
  side_effect: SideEffectState | null;
  summary: string | null;
  recovery: string | null;
  action: CompensationAction | null;
  /** For a retry action, what the dispatcher does with this error as a call's first failure; null for other actions. */
  dispatch: FirstFailure | null;
}

/** A retry action's decision on a call's first failure, at the start of a run (fresh budgets, a full quota). */
export interface FirstFailure {
  retries: boolean;
  /** The delay before the retry, at the top of its jitter; null when there is no retry. */
  delay_ms: number | null;
  /** How the dispatch ends when there is no retry (before on_exhausted applies). */
  outcome: "failed" | "exhausted" | "escalated" | null;
  reason: string | null;
  queue: string | null;
}

export interface Classified {
  result: Classification;
  verdict: Verdict | undefined;
  action: CompensationAction | null;
  report: ClassificationReport;
}

/** `nowMs` dates a Retry-After given as an HTTP date. */
export function classificationReport(registry: Loaded<Registry>, playbook: Playbook, error: AdapterError | undefined, tool: string | undefined, nowMs: number): Classified {
  const result = classify(registry.value, error, tool, playbook);
  const verdict = verdictByCode(registry.value, result.verdict);
  const action = actionFor(playbook, result.verdict) ?? null;
  const idempotent = tool === undefined || isIdempotent(playbook, { id: "classify", tool });
  const same = (text: string) => text;
  const at = result.rule ? registry.doc.locate(["verdicts", result.rule.verdict, "match", result.rule.index]) : null;
  return {
    result,
    verdict,
    action,
    report: {
      verdict: result.verdict,
      fallback: result.fallback,
      rule: result.rule && at ? { index: result.rule.index, file: at.file, line: at.line, column: at.column } : null,
      class: verdict?.class ?? null,
      retryable: verdict ? envelopeError(registry.value, { verdict: result.verdict, error: error ?? null, idempotent }, same).retryable : null,
      idempotent,
      side_effect: verdict ? sideEffectOf(verdict) : null,
      summary: verdict?.summary ?? null,
      recovery: verdict?.recovery ?? null,
      action,
      dispatch: action !== null && isRetryAction(action) ? firstFailure(registry.value, playbook, result.verdict, verdict, action, error ?? null, idempotent, nowMs) : null,
    },
  };
}

function firstFailure(registry: Registry, playbook: Playbook, code: string, verdict: Verdict | undefined, action: RetryAction, error: AdapterError | null, idempotent: boolean, nowMs: number): FirstFailure {
  const honor = honorsRetryAfter(playbook);
  const policy = retryAfterPolicyOf(playbook, action);
  const reading = honor ? readRetryAfter(error, policy, nowMs) : undefined;
  const decision = decideRetry({
    action,
    verdict,
    classMaxRetries: verdict ? registry.classes[verdict.class]?.max_retries : undefined,
    idempotent,
    // A hedged call's first failure may end its race or send the next hedge: classify shows the retry as a plain call makes it.
    hedged: undefined,
    error,
    retriesOfVerdict: 0,
    retriesOfCall: 0,
    backoffIndex: 0,
    previousDelay: undefined,
    ledger: { startedAt: 0, retries: 0, backoffMs: 0, verdictCounts: new Map() },
    elapsedMs: 0,
    budgets: playbook.budgets ?? {},
    retryAfter: honor ? policy : false,
    hintMs: reading?.hintMs,
    hintInvalid: reading?.invalid !== undefined,
    quota: playbook.retry_quota === undefined ? undefined : new RetryQuotaBucket(playbook.retry_quota),
    // A call's first failure, against a fresh retry budget and a full throttling bucket: neither refuses it.
    budget: undefined,
    retrying: false,
    throttle: undefined,
    random: maxRandom,
  });
  if (decision.kind === "retry") return { retries: true, delay_ms: decision.delayMs, outcome: null, reason: null, queue: null };
  const { end, reason, queue } = refusedRetry(playbook, decision, error, verdict, code);
  return { retries: false, delay_ms: null, outcome: end, reason, queue: queue ?? null };
}
