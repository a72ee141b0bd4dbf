/**
 * SPEC section 4, step by step: one row per step, guard, budget and action, each asserting
 * the outcome (kind, verdict, attempts, retried, elapsed_ms, reason) and the event sequence.
 */
import { describe, expect, it } from "vitest";
import type { Response } from "failbook-runtime/model/fixture.js";
import type { OutcomeKind } from "failbook-runtime/model/outcome.js";
import { VirtualClock } from "failbook-runtime/engine/clock.js";
import { createDispatcher } from "failbook-runtime/engine/dispatch.js";
import { seededRandom } from "failbook-runtime/engine/random.js";
import { CALL, dispatchScenario, err, ok, playbook, REGISTRY, replay, retry, type Scenario } from "./helpers/dispatch.js";

interface Row {
  name: string;
  scenario: Scenario;
  kind: OutcomeKind;
  verdict: string | null;
  attempts: number;
  retried: number;
  elapsed: number;
  reason?: string | null;
  queue?: string | null;
  exhausted?: boolean;
  replan?: boolean;
  events: string[];
}

const A = "attempt";
const FC = "failure_classified";
const RS = "retry_scheduled";
const deprecate = { action: "deprecate_tool_call", reason: "already processed", replan: true } as const;
const needsInput: Response = { status: "needs_input", question: "Which account?" };
const s503 = (more: Record<string, unknown> = {}, latency?: number) => err("http_error", { http_status: 503, ...more }, latency);

const ROWS: Row[] = [
  // Steps 1 and 2: attempts, latency, the good ends.
  { name: "step 1-2: ok on attempt 1 succeeds, its latency is the elapsed time", scenario: { playbook: playbook({}), responses: [ok(40)] }, kind: "succeeded", verdict: null, attempts: 1, retried: 0, elapsed: 40, reason: null, events: [A] },
  { name: "step 2: ok after a retry recovers", scenario: { playbook: playbook({ timeout: retry(3) }), responses: [err("timeout", {}, 10), ok(5)] }, kind: "recovered", verdict: "timeout", attempts: 2, retried: 1, elapsed: 115, events: [A, FC, RS, A] },
  { name: "step 2: needs_input ends the dispatch without classifying", scenario: { playbook: playbook({}), responses: [needsInput] }, kind: "needs_input", verdict: null, attempts: 1, retried: 0, elapsed: 0, reason: "Which account?", events: [A] },
  { name: "step 2: needs_input after a failure keeps the last verdict", scenario: { playbook: playbook({ timeout: retry(3) }), responses: [err("timeout"), needsInput] }, kind: "needs_input", verdict: "timeout", attempts: 2, retried: 1, elapsed: 100, events: [A, FC, RS, A] },
  // Step 3: every failed attempt is classified afresh.
  { name: "step 3: a timeout whose retry returns a conflict ends deprecated, not retried again", scenario: { playbook: playbook({ timeout: retry(3), conflict: deprecate }), responses: [err("timeout", {}, 30000), err("conflict", {}, 35)] }, kind: "deprecated", verdict: "conflict", attempts: 2, retried: 1, elapsed: 30135, reason: "already processed", replan: true, events: [A, FC, RS, A, FC] },
  { name: "step 3: an error no rule matches gets the fallback verdict", scenario: { playbook: playbook({ unknown: { action: "fail", message: "nobody knows" } }), responses: [err("weird")] }, kind: "failed", verdict: "unknown", attempts: 1, retried: 0, elapsed: 0, reason: "nobody knows", events: [A, FC] },
  { name: "step 3: a failure with no error object gets the fallback verdict", scenario: { playbook: playbook({ unknown: { action: "fail" } }), responses: [{ status: "error" }] }, kind: "failed", verdict: "unknown", attempts: 1, retried: 0, elapsed: 0, reason: null, events: [A, FC] },
  // Step 4: the same-verdict ceiling.
  { name: "step 4: the same verdict `ceiling` times escalates to escalation_queue", scenario: { playbook: playbook({ timeout: retry(5) }, { budgets: { same_verdict_ceiling: 2 } }), responses: [err("timeout"), err("timeout")] }, kind: "escalated", verdict: "timeout", attempts: 2, retried: 1, elapsed: 100, reason: "same_verdict_ceiling", queue: "oncall", exhausted: false, events: [A, FC, RS, A, FC, "budget_exhausted", "escalated"] },
  { name: "step 4: the ceiling applies whatever the action", scenario: { playbook: playbook({ conflict: deprecate }, { budgets: { same_verdict_ceiling: 1 } }), responses: [err("conflict")] }, kind: "escalated", verdict: "conflict", attempts: 1, retried: 0, elapsed: 0, reason: "same_verdict_ceiling", queue: "oncall", events: [A, FC, "budget_exhausted", "escalated"] },
  { name: "step 4: the ceiling counts each verdict separately", scenario: { playbook: playbook({ timeout: retry(5), server: retry(5) }, { budgets: { same_verdict_ceiling: 2 } }), responses: [err("timeout"), s503(), ok()] }, kind: "recovered", verdict: "server", attempts: 3, retried: 2, elapsed: 200, events: [A, FC, RS, A, FC, RS, A] },
  // Step 5, retry guards in order a..f.
  { name: "guard a: a call declared idempotent: false is never retried", scenario: { playbook: playbook({ timeout: retry(3) }), call: { idempotent: false }, responses: [err("timeout")] }, kind: "failed", verdict: "timeout", attempts: 1, retried: 0, elapsed: 0, reason: "non_idempotent", events: [A, FC, "retry_suppressed"] },
  { name: "guard a: a tool the playbook's `tools` marks non-idempotent is never retried", scenario: { playbook: playbook({ timeout: retry(3) }, { tools: { "payments.*": { idempotent: false } } }), responses: [err("timeout")] }, kind: "failed", verdict: "timeout", attempts: 1, retried: 0, elapsed: 0, reason: "non_idempotent", events: [A, FC, "retry_suppressed"] },
  { name: "guard a comes before b", scenario: { playbook: playbook({ timeout: retry(3) }), call: { idempotent: false }, responses: [err("timeout", { side_effect_state: "committed" })] }, kind: "failed", verdict: "timeout", attempts: 1, retried: 0, elapsed: 0, reason: "non_idempotent", events: [A, FC, "retry_suppressed"] },
  { name: "guard b: a committed side effect is never retried", scenario: { playbook: playbook({ timeout: retry(3) }), responses: [err("timeout", { side_effect_state: "committed" })] }, kind: "failed", verdict: "timeout", attempts: 1, retried: 0, elapsed: 0, reason: "side_effect_committed", events: [A, FC, "retry_suppressed"] },
  { name: "guard b comes before c", scenario: { playbook: playbook({ refused: retry(3) }), responses: [err("refused", { side_effect_state: "committed" })] }, kind: "failed", verdict: "refused", attempts: 1, retried: 0, elapsed: 0, reason: "side_effect_committed", events: [A, FC, "retry_suppressed"] },
  { name: "guard c: a retryable: false verdict is never retried", scenario: { playbook: playbook({ refused: retry(3) }), responses: [err("refused")] }, kind: "failed", verdict: "refused", attempts: 1, retried: 0, elapsed: 0, reason: "not_retryable", events: [A, FC, "retry_suppressed"] },
  { name: "guard d: the action's max_retries ends exhausted", scenario: { playbook: playbook({ timeout: retry(2) }), responses: [err("timeout"), err("timeout"), err("timeout")] }, kind: "exhausted", verdict: "timeout", attempts: 3, retried: 2, elapsed: 300, reason: "max_retries", exhausted: true, events: [A, FC, RS, A, FC, RS, A, FC, "retry_suppressed"] },
  { name: "guard d: the class's max_retries when it is smaller", scenario: { playbook: playbook({ capped: retry(3) }), responses: [err("capped"), err("capped")] }, kind: "exhausted", verdict: "capped", attempts: 2, retried: 1, elapsed: 100, reason: "class_max_retries", exhausted: true, events: [A, FC, RS, A, FC, "retry_suppressed"] },
  { name: "guard e: budgets.retries counts retries of every verdict", scenario: { playbook: playbook({ timeout: retry(5), server: retry(5) }, { budgets: { retries: 2 } }), responses: [err("timeout"), s503(), err("timeout")] }, kind: "exhausted", verdict: "timeout", attempts: 3, retried: 2, elapsed: 200, reason: "budget_retries", exhausted: true, events: [A, FC, RS, A, FC, RS, A, FC, "budget_exhausted"] },
  { name: "guard f: a delay past retry_seconds ends exhausted", scenario: { playbook: playbook({ timeout: retry(5, [600, 600]) }, { budgets: { retry_seconds: 1 } }), responses: [err("timeout"), err("timeout")] }, kind: "exhausted", verdict: "timeout", attempts: 2, retried: 1, elapsed: 600, reason: "budget_retry_seconds", events: [A, FC, RS, A, FC, "budget_exhausted"] },
  { name: "guard f: Retry-After counts against retry_seconds", scenario: { playbook: playbook({ server: retry(2) }, { budgets: { retry_seconds: 10 } }), responses: [s503({ retry_after_ms: 15000 })] }, kind: "exhausted", verdict: "server", attempts: 1, retried: 0, elapsed: 0, reason: "budget_retry_seconds", events: [A, FC, "budget_exhausted"] },
  { name: "guard f: a delay past wall_ms (latencies included) ends exhausted", scenario: { playbook: playbook({ timeout: retry(5) }, { budgets: { wall_ms: 1000 } }), responses: [err("timeout", {}, 500), err("timeout", {}, 500)] }, kind: "exhausted", verdict: "timeout", attempts: 2, retried: 1, elapsed: 1100, reason: "budget_wall", events: [A, FC, RS, A, FC, "budget_exhausted"] },
  { name: "retry: Retry-After raises the delay", scenario: { playbook: playbook({ server: retry(2) }), responses: [s503({ retry_after_ms: 2500 }), ok()] }, kind: "recovered", verdict: "server", attempts: 2, retried: 1, elapsed: 2500, events: [A, FC, RS, A] },
  { name: "retry: a Retry-After shorter than the schedule is ignored", scenario: { playbook: playbook({ server: retry(2) }), responses: [s503({ retry_after_ms: 50 }), ok()] }, kind: "recovered", verdict: "server", attempts: 2, retried: 1, elapsed: 100, events: [A, FC, RS, A] },
  { name: "retry: honor_retry_after: false keeps the schedule", scenario: { playbook: playbook({ server: retry(2) }, { honor_retry_after: false }), responses: [s503({ retry_after_ms: 2500 }), ok()] }, kind: "recovered", verdict: "server", attempts: 2, retried: 1, elapsed: 100, events: [A, FC, RS, A] },
  // Step 5, the other actions.
  { name: "refresh_evidence then retry: one immediate attempt that succeeds recovers", scenario: { playbook: playbook({ stale: { action: "refresh_evidence", then: "retry" } }), responses: [err("stale", {}, 20), ok(30)] }, kind: "recovered", verdict: "stale", attempts: 2, retried: 0, elapsed: 50, events: [A, FC, "evidence_refreshed", A] },
  { name: "refresh_evidence then retry: any failure deprecates", scenario: { playbook: playbook({ stale: { action: "refresh_evidence", then: "retry" }, timeout: retry(3) }), responses: [err("stale"), err("timeout")] }, kind: "deprecated", verdict: "timeout", attempts: 2, retried: 0, elapsed: 0, reason: "post-refresh retry still failing", replan: true, events: [A, FC, "evidence_refreshed", A, FC] },
  { name: "refresh_evidence then abort deprecates with replan", scenario: { playbook: playbook({ stale: { action: "refresh_evidence", then: "abort" } }), responses: [err("stale")] }, kind: "deprecated", verdict: "stale", attempts: 1, retried: 0, elapsed: 0, reason: "refresh_evidence then abort", replan: true, events: [A, FC, "evidence_refreshed"] },
  { name: "restore_checkpoint then retry recovers", scenario: { playbook: playbook({ stale: { action: "restore_checkpoint", then: "retry" } }), responses: [err("stale"), ok()] }, kind: "recovered", verdict: "stale", attempts: 2, retried: 0, elapsed: 0, events: [A, FC, "checkpoint_restored", A] },
  { name: "restore_checkpoint then abort deprecates", scenario: { playbook: playbook({ stale: { action: "restore_checkpoint", then: "abort" } }), responses: [err("stale")] }, kind: "deprecated", verdict: "stale", attempts: 1, retried: 0, elapsed: 0, reason: "restore_checkpoint then abort", replan: true, events: [A, FC, "checkpoint_restored"] },
  { name: "escalate_to_human escalates to its queue", scenario: { playbook: playbook({ denied: { action: "escalate_to_human", queue: "policy_review" } }), responses: [err("denied", {}, 60)] }, kind: "escalated", verdict: "denied", attempts: 1, retried: 0, elapsed: 60, reason: null, queue: "policy_review", events: [A, FC, "escalated"] },
  { name: "issue_reversal with the call's token reverses", scenario: { playbook: playbook({ conflict: { action: "issue_reversal", reason: "double charge" } }), call: { reversal_token: "rev_1" }, responses: [err("conflict")] }, kind: "reversed", verdict: "conflict", attempts: 1, retried: 0, elapsed: 0, reason: "double charge", events: [A, FC, "reversal_issued"] },
  { name: "issue_reversal without a token is refused and exhausted", scenario: { playbook: playbook({ conflict: { action: "issue_reversal", reason: "double charge" } }), responses: [err("conflict")] }, kind: "exhausted", verdict: "conflict", attempts: 1, retried: 0, elapsed: 0, reason: "no_reversal_token", exhausted: true, events: [A, FC, "reversal_refused"] },
  { name: "deprecate_tool_call deprecates with its reason and replan", scenario: { playbook: playbook({ conflict: deprecate }), responses: [err("conflict", {}, 40)] }, kind: "deprecated", verdict: "conflict", attempts: 1, retried: 0, elapsed: 40, reason: "already processed", replan: true, events: [A, FC] },
  { name: "fallback: a fallback that succeeds makes the dispatch recovered", scenario: { playbook: playbook({ timeout: { action: "fallback", tool: "payments.refund_v1" } }), responses: [err("timeout", {}, 10)], fallback_responses: [ok(20)] }, kind: "recovered", verdict: "timeout", attempts: 2, retried: 0, elapsed: 30, events: [A, FC, "fallback_started", A] },
  { name: "fallback: the fallback's own failure is its outcome", scenario: { playbook: playbook({ timeout: { action: "fallback", tool: "payments.refund_v1" }, conflict: deprecate }), responses: [err("timeout")], fallback_responses: [err("conflict")] }, kind: "deprecated", verdict: "conflict", attempts: 2, retried: 0, elapsed: 0, reason: "already processed", events: [A, FC, "fallback_started", A, FC] },
  { name: "fallback: a fallback inside a fallback fails (fallback_chain)", scenario: { playbook: playbook({ timeout: { action: "fallback", tool: "payments.refund_v1" } }), responses: [err("timeout")], fallback_responses: [err("timeout")] }, kind: "failed", verdict: "timeout", attempts: 2, retried: 0, elapsed: 0, reason: "fallback_chain", events: [A, FC, "fallback_started", A, FC] },
  { name: "fallback: budgets are shared with the fallback", scenario: { playbook: playbook({ timeout: retry(3), server: { action: "fallback", tool: "payments.refund_v1" } }, { budgets: { retries: 1 } }), responses: [err("timeout"), s503()], fallback_responses: [err("timeout")] }, kind: "exhausted", verdict: "timeout", attempts: 3, retried: 1, elapsed: 100, reason: "budget_retries", events: [A, FC, RS, A, FC, "fallback_started", A, FC, "budget_exhausted"] },
  { name: "fail fails with its message", scenario: { playbook: playbook({ refused: { action: "fail", message: "refused for good" } }), responses: [err("refused")] }, kind: "failed", verdict: "refused", attempts: 1, retried: 0, elapsed: 0, reason: "refused for good", events: [A, FC] },
  { name: "dead_letter dead-letters to its queue", scenario: { playbook: playbook({ refused: { action: "dead_letter", queue: "dlq" } }), responses: [err("refused")] }, kind: "dead_lettered", verdict: "refused", attempts: 1, retried: 0, elapsed: 0, queue: "dlq", events: [A, FC, "dead_lettered"] },
  { name: "a verdict without an action escalates to escalation_queue", scenario: { playbook: playbook({}), responses: [err("timeout")] }, kind: "escalated", verdict: "timeout", attempts: 1, retried: 0, elapsed: 0, reason: "no_action", queue: "oncall", events: [A, FC, "escalated"] },
  // Step 6: on_exhausted.
  { name: "on_exhausted escalate_to_human: exhausted becomes escalated, exhausted: true", scenario: { playbook: playbook({ timeout: retry(1) }, { on_exhausted: { action: "escalate_to_human", queue: "humans" } }), responses: [err("timeout"), err("timeout")] }, kind: "escalated", verdict: "timeout", attempts: 2, retried: 1, elapsed: 100, reason: "max_retries", queue: "humans", exhausted: true, events: [A, FC, RS, A, FC, "retry_suppressed", "escalated"] },
  { name: "on_exhausted dead_letter: exhausted becomes dead_lettered, exhausted: true", scenario: { playbook: playbook({ timeout: retry(1) }, { on_exhausted: { action: "dead_letter", queue: "dlq" } }), responses: [err("timeout"), err("timeout")] }, kind: "dead_lettered", verdict: "timeout", attempts: 2, retried: 1, elapsed: 100, reason: "max_retries", queue: "dlq", exhausted: true, events: [A, FC, RS, A, FC, "retry_suppressed", "dead_lettered"] },
  { name: "on_exhausted without a queue uses escalation_queue", scenario: { playbook: playbook({ conflict: { action: "issue_reversal", reason: "x" } }, { on_exhausted: { action: "escalate_to_human" } }), responses: [err("conflict")] }, kind: "escalated", verdict: "conflict", attempts: 1, retried: 0, elapsed: 0, reason: "no_reversal_token", queue: "oncall", exhausted: true, events: [A, FC, "reversal_refused", "escalated"] },
  { name: "on_exhausted leaves other ends alone", scenario: { playbook: playbook({ refused: retry(2) }, { on_exhausted: { action: "dead_letter", queue: "dlq" } }), responses: [err("refused")] }, kind: "failed", verdict: "refused", attempts: 1, retried: 0, elapsed: 0, reason: "not_retryable", exhausted: false, events: [A, FC, "retry_suppressed"] },
  // empty_response_is_failure
  { name: "empty_response_is_failure: an ok without a value is a failure", scenario: { playbook: playbook({ unknown: { action: "escalate_to_human", queue: "triage" } }, { empty_response_is_failure: true }), responses: [{ status: "ok", latency_ms: 900 }] }, kind: "escalated", verdict: "unknown", attempts: 1, retried: 0, elapsed: 900, queue: "triage", events: [A, FC, "escalated"] },
  { name: "empty_response_is_failure off: an ok without a value succeeds", scenario: { playbook: playbook({}), responses: [{ status: "ok" }] }, kind: "succeeded", verdict: null, attempts: 1, retried: 0, elapsed: 0, events: [A] },
];

describe("dispatch (SPEC 4)", () => {
  it.each(ROWS.map((r) => [r.name, r] as const))("%s", async (_name, row) => {
    const { outcome, events } = await dispatchScenario(row.scenario);
    expect({
      kind: outcome.kind,
      verdict: outcome.verdict,
      attempts: outcome.attempts,
      retried: outcome.retried,
      elapsed: outcome.elapsed_ms,
      events: events.map((e) => e.type),
    }).toEqual({ kind: row.kind, verdict: row.verdict, attempts: row.attempts, retried: row.retried, elapsed: row.elapsed, events: row.events });
    if (row.reason !== undefined) expect(outcome.reason).toBe(row.reason);
    if (row.queue !== undefined) expect(outcome.queue).toBe(row.queue);
    if (row.exhausted !== undefined) expect(outcome.exhausted).toBe(row.exhausted);
    if (row.replan !== undefined) expect(outcome.replan).toBe(row.replan);
    expect(outcome.retried).toBe(events.filter((e) => e.type === "retry_scheduled").length);
    expect(outcome.envelope.outcome).toBe(outcome.kind);
    expect(outcome.packet === null).toBe(outcome.kind !== "escalated");
  });
});

describe("event fields", () => {
  it("attempt, failure_classified and retry_scheduled carry the fields SPEC 5.4 names", async () => {
    const { events, idempotencyKey } = await dispatchScenario({ playbook: playbook({ timeout: retry(3) }), responses: [err("timeout", {}, 30), ok(5)] });
    expect(events).toEqual([
      { t: 30, type: "attempt", n: 1, status: "error", idempotency_key: idempotencyKey, latency_ms: 30, error_kind: "timeout" },
      { t: 30, type: "failure_classified", verdict: "timeout", attempt: 1, action: "retry_with_backoff" },
      { t: 30, type: "retry_scheduled", attempt: 2, delay_ms: 100, verdict: "timeout" },
      { t: 135, type: "attempt", n: 2, status: "ok", idempotency_key: idempotencyKey, latency_ms: 5 },
    ]);
  });

  it("retries use the same idempotency key; a fallback tool gets its own", async () => {
    const { events } = await dispatchScenario({
      playbook: playbook({ timeout: retry(3), server: { action: "fallback", tool: "payments.refund_v1" } }),
      responses: [err("timeout"), s503()],
      fallback_responses: [ok()],
    });
    const keys = events.flatMap((e) => (e.type === "attempt" ? [e.idempotency_key] : []));
    expect(keys).toHaveLength(3);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[0]);
  });

  it("retry_with_hint records the hint on each retry and hands it to the attempt", async () => {
    const hints: (string | undefined)[] = [];
    const dispatcher = createDispatcher({
      registry: REGISTRY,
      playbook: playbook({ timeout: { action: "retry_with_hint", max_retries: 2, hint: "ask for fewer rows", backoff_ms: [10] } }),
      clock: new VirtualClock(),
      random: () => 0,
    });
    const responses = [err("timeout"), err("timeout"), ok()];
    const { events, outcome } = await dispatcher.dispatch(CALL, (_c, n, _k, context) => {
      hints.push(context.hint);
      return responses[n - 1];
    });
    expect(outcome.kind).toBe("recovered");
    expect(events.filter((e) => e.type === "retry_scheduled").map((e) => (e.type === "retry_scheduled" ? e.hint : undefined))).toEqual(["ask for fewer rows", "ask for fewer rows"]);
    expect(hints).toEqual([undefined, "ask for fewer rows", "ask for fewer rows"]);
  });
});

/**
 * The common call's first attempt is sent by dispatch() itself, before any run exists
 * (`dispatchAtOnce`); a record sink makes the run send every attempt, the first too. The
 * same dispatch both ways must give the same result and leave the shared breakers, budget,
 * throttling and quota in the same state.
 */
describe("the first attempt sent before any run and sent by the run agree", () => {
  const POLICIES = {
    circuit_breakers: { pay: { tools: "payments.*", minimum_throughput: 2, failure_ratio: 0.5, sampling_ms: 10_000 } },
    retry_budget: { percent: 20, min_concurrency: 3 },
    retry_throttling: { max_tokens: 10, token_ratio: 0.1 },
    retry_quota: { capacity: 10, cost: 5, refund: 1 },
  };
  const guarded = (verdicts: Parameters<typeof playbook>[0], more = {}) => playbook(verdicts, { ...POLICIES, ...more });
  const scenarios: [string, Scenario][] = [
    ...ROWS.map((r) => [r.name, r.scenario] as [string, Scenario]),
    ["own key, ok, through a closed breaker, a budget, throttling and a quota", { playbook: guarded({}), call: { idempotency_key: "order-42" }, responses: [ok(30)] }],
    ["own key, a timeout then ok, through the same", { playbook: guarded({ timeout: retry(3) }), call: { idempotency_key: "order-42" }, responses: [err("timeout", {}, 10), ok(5)] }],
    ["two failures open the breaker: the third attempt is short-circuited", { playbook: guarded({ timeout: retry(3), unknown: { action: "fail" } }), responses: [err("timeout"), err("timeout"), ok()] }],
    ["needs_input through the policies", { playbook: guarded({}), responses: [needsInput] }],
    ["an empty ok through the policies", { playbook: guarded({ unknown: { action: "fail" } }, { empty_response_is_failure: true }), responses: [{ status: "ok" }] }],
  ];
  it.each(scenarios)("%s", async (_name, s) => {
    const twice = [];
    for (const record of [undefined, () => {}]) {
      const clock = new VirtualClock();
      const dispatcher = createDispatcher({ registry: s.registry ?? REGISTRY, playbook: s.playbook, clock, random: seededRandom(s.seed ?? 0), ...s.options });
      const call = { ...CALL, ...s.call };
      const replayed = replay(clock, s.responses, s.fallback_responses);
      const first = await dispatcher.dispatch(call, replayed, { runId: "run_1", ...(record === undefined ? {} : { record }) });
      // A second dispatch sees what the first left in the shared state (an open breaker, the tokens).
      const second = await dispatcher.dispatch({ ...call, id: "call_2" }, () => ok(1), { runId: "run_1", ...(record === undefined ? {} : { record }) });
      twice.push({ first, second, policies: dispatcher.policies, quota: dispatcher.quota });
    }
    expect(twice[0]).toEqual(twice[1]);
    // Byte for byte too: the outputs' JSON keeps its members' order (the direct path builds its outcome itself).
    expect(JSON.stringify([twice[0]!.first, twice[0]!.second])).toBe(JSON.stringify([twice[1]!.first, twice[1]!.second]));
  });
});
