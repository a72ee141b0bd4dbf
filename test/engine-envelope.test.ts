/** What an end carries: idempotency keys, the agent's envelope, the human's packet, redaction, effects. */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { VirtualClock } from "failbook-runtime/engine/clock.js";
import { createDispatcher, isIdempotent } from "failbook-runtime/engine/dispatch.js";
import { canonicalJson, idempotencyKey, traceId } from "failbook-runtime/engine/idempotency.js";
import type { DispatchEvent } from "failbook-runtime/model/outcome.js";
import { CALL, dispatchScenario, err, ok, playbook, REGISTRY, replay, retry } from "./helpers/dispatch.js";

describe("idempotency keys (SPEC 4)", () => {
  it("hash run_id, call id, tool and canonical args, lowercase hex SHA-256", () => {
    const call = { id: "call_1", tool: "adp_payments.issue_refund", args: { currency: "EUR", amount: 100 } };
    const text = 'run_1\ncall_1\nadp_payments.issue_refund\n{"amount":100,"currency":"EUR"}';
    expect(idempotencyKey("run_1", call)).toBe(createHash("sha256").update(text).digest("hex"));
    expect(idempotencyKey("run_1", call)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("args default to {} and key order does not matter", () => {
    expect(idempotencyKey("r", { id: "a", tool: "t" })).toBe(createHash("sha256").update("r\na\nt\n{}").digest("hex"));
    expect(idempotencyKey("r", { id: "a", tool: "t", args: { b: 1, a: { d: [1, "x"], c: null } } })).toBe(
      idempotencyKey("r", { id: "a", tool: "t", args: { a: { c: null, d: [1, "x"] }, b: 1 } }),
    );
  });

  it("the fixture's own idempotency_key wins", () => {
    expect(idempotencyKey("r", { id: "a", tool: "t", idempotency_key: "idem_7" })).toBe("idem_7");
  });

  it.each([
    [{ b: 2, a: 1 }, '{"a":1,"b":2}'],
    [{ "é": 1, z: 2, Z: 3 }, '{"Z":3,"z":2,"é":1}'],
    [[1, "two", true, null, { y: [], x: {} }], '[1,"two",true,null,{"x":{},"y":[]}]'],
    [{ n: 1e21, m: 0.1, k: -0 }, '{"k":0,"m":0.1,"n":1e+21}'],
    [{ s: 'quote " and \u2028' }, '{"s":"quote \\" and \u2028"}'],
  ])("canonical JSON of %j is %s", (value, text) => {
    expect(canonicalJson(value)).toBe(text);
  });

  it("the trace id is fb_ and the key's first 12 hex digits", () => {
    expect(traceId("b303e6f337d1484e719b7f0f1bd9e386")).toBe("fb_b303e6f337d1");
    expect(traceId("idem_7")).toMatch(/^fb_[0-9a-f]{12}$/);
    // Pinned: a trace id correlates across releases, so its hash and its hex case never change.
    expect(traceId("B303E6F337D1-x")).toBe("fb_b303e6f337d1");
    expect(["idem_7", "order-42-update", "b303e6f337d"].map(traceId)).toEqual(["fb_381e673874bf", "fb_78aa032f60d5", "fb_bfd37cd75de2"]);
  });
});

describe("per-tool idempotency", () => {
  it.each([
    [{ "payments.*": { idempotent: false } }, "payments.refund", true, false],
    [{ "payments.*": { idempotent: false } }, "crm.lookup", true, true],
    [{ "payments.*": { idempotent: true } }, "payments.refund", false, false],
    [{}, "payments.refund", true, true],
  ])("tools %j, tool %s, call idempotent %s -> %s", (tools, tool, callFlag, expected) => {
    expect(isIdempotent(playbook({}, { tools }), { id: "c", tool, idempotent: callFlag })).toBe(expected);
  });
});

describe("the envelope (what the agent is shown)", () => {
  it("carries the registry's words for the last verdict, shaped like seed 004", async () => {
    const { outcome, idempotencyKey: key } = await dispatchScenario({
      playbook: playbook({ timeout: retry(1) }),
      responses: [err("timeout", { message: "no answer", retry_after_ms: 50 }), err("timeout", { message: "still no answer" })],
    });
    expect(outcome.envelope).toEqual({
      ok: false,
      tool: CALL.tool,
      outcome: "exhausted",
      reason: "max_retries",
      replan: false,
      trace_id: `fb_${key.slice(0, 12)}`,
      attempts: 2,
      retried: 1,
      error: {
        code: "timeout",
        class: "transient",
        retryable: true,
        side_effect_state: "unknown",
        human_action_required: false,
        retry_after_ms: null,
        summary: "Timed out.",
        message: "still no answer",
        recovery_hint: "Retry with the same key.",
        safe_next_actions: ["verify"],
        unsafe_next_actions: ["new key"],
      },
    });
  });

  it.each([
    ["a non-idempotent call", { idempotent: false }, {}],
    ["a committed side effect", {}, { side_effect_state: "committed" }],
  ])("is not retryable for %s", async (_name, call, error) => {
    const { outcome } = await dispatchScenario({ playbook: playbook({ timeout: retry(3) }), call, responses: [err("timeout", error)] });
    expect(outcome.envelope.error?.retryable).toBe(false);
  });

  it("is ok with no error when the call ends well", async () => {
    const { outcome } = await dispatchScenario({ playbook: playbook({ timeout: retry(3) }), responses: [err("timeout"), ok()] });
    expect(outcome.envelope).toMatchObject({ ok: true, outcome: "recovered", attempts: 2, retried: 1, error: null });
  });
});

describe("the recovery packet (what a human is shown)", () => {
  it("names trace, tool, failed step, queue, next actions and a suggested prompt", async () => {
    const { outcome, idempotencyKey: key } = await dispatchScenario({
      playbook: playbook({ denied: { action: "escalate_to_human", queue: "policy_review" } }),
      responses: [err("denied", { message: "over the limit" }, 60)],
    });
    expect(outcome.packet).toMatchObject({
      trace_id: `fb_${key.slice(0, 12)}`,
      tool: CALL.tool,
      failed_step: CALL.id,
      queue: "policy_review",
      code: "denied",
      summary: "Denied by policy.",
      attempts: 1,
      retried: 0,
      elapsed_ms: 60,
      idempotency_key: key,
    });
    expect(outcome.packet?.suggested_prompt).toContain(CALL.id);
  });

  it("is only there for escalated ends", async () => {
    const { outcome } = await dispatchScenario({ playbook: playbook({ refused: { action: "fail" } }), responses: [err("refused")] });
    expect(outcome.packet).toBeNull();
  });
});

describe("redaction", () => {
  const bearer = "Bearer " + "abcDEF123456ghiJKL";
  const stripe = "sk_" + "live_" + "4eC39HqLyjWDarjtT1zdp7dc";

  it("removes secrets from the outcome, envelope, packet, events and dead letters", async () => {
    const seen: DispatchEvent[] = [];
    const { outcome, events, errors } = await dispatchScenario({
      playbook: playbook({ timeout: retry(1) }, { on_exhausted: { action: "dead_letter", queue: "dlq" } }),
      call: { reversal_token: stripe },
      responses: [err("timeout", { message: `auth ${bearer} failed` }), err("timeout", { message: `key ${stripe} rejected` })],
      options: { onEvent: (e) => seen.push(e) },
    });
    const all = JSON.stringify({ outcome, events, errors, seen });
    expect(all).not.toContain("abcDEF123456ghiJKL");
    expect(all).not.toContain(stripe);
    expect(outcome.envelope.error?.message).toBe("key [REDACTED] rejected");
    expect(outcome.dead_letters?.[0].errors.map((e) => e.error?.message)).toEqual(["auth Bearer [REDACTED] failed", "key [REDACTED] rejected"]);
  });

  it("uses the redactor it is given", async () => {
    const { outcome } = await dispatchScenario({
      playbook: playbook({ refused: { action: "fail" } }),
      responses: [err("refused", { message: "ticket xoxb-123-abc" })],
      options: { redact: (s) => s.replace(/xoxb-[\w-]+/g, "[REDACTED]") },
    });
    expect(outcome.envelope.error?.message).toBe("ticket [REDACTED]");
  });
});

describe("effects (production hooks)", () => {
  it("redeem the reversal token, refresh evidence, escalate and dead-letter through the caller's hooks", async () => {
    const calls: string[] = [];
    const effects = {
      issueReversal: (_c: unknown, token: string, reason: string) => void calls.push(`reverse ${token} ${reason}`),
      refreshEvidence: () => void calls.push("refresh"),
      escalate: (p: { queue: string }) => void calls.push(`escalate ${p.queue}`),
      deadLetter: (d: { queue: string }) => void calls.push(`dead-letter ${d.queue}`),
    };
    const pb = playbook({
      conflict: { action: "issue_reversal", reason: "undo" },
      stale: { action: "refresh_evidence", then: "retry" },
      denied: { action: "escalate_to_human", queue: "review" },
      refused: { action: "dead_letter", queue: "dlq" },
    });
    for (const [kind, call] of [["conflict", { reversal_token: "rev_1" }], ["stale", {}], ["denied", {}], ["refused", {}], ["conflict", {}]] as const) {
      const clock = new VirtualClock();
      const dispatcher = createDispatcher({ registry: REGISTRY, playbook: pb, clock, random: () => 0, effects });
      await dispatcher.dispatch({ ...CALL, ...call }, replay(clock, [err(kind), ok()]));
    }
    expect(calls).toEqual(["reverse rev_1 undo", "refresh", "escalate review", "dead-letter dlq"]);
  });
});
