/**
 * Caller cancellation and deadlines (SPEC 21, issue 37 item 11): a dispatch whose caller has
 * gone ends at once, on a virtual clock and under real timers, and leaves no timer or
 * listener behind.
 */
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { realClock, VirtualClock } from "failbook-runtime/engine/clock.js";
import { createDispatcher, type AttemptFn } from "failbook-runtime/engine/dispatch.js";
import { seededRandom } from "failbook-runtime/engine/random.js";
import { CALL, err, ok, playbook, REGISTRY, replay, retry } from "./helpers/dispatch.js";

const activeTimers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;

describe("deadlineMs on a virtual clock", () => {
  it("a retry whose delay would end past the deadline is not scheduled (reason deadline)", async () => {
    const clock = new VirtualClock();
    const dispatcher = createDispatcher({ registry: REGISTRY, playbook: playbook({ server: retry(3, [100, 60_000]) }, { on_exhausted: { action: "escalate_to_human" } }), clock, random: seededRandom(1) });
    const result = await dispatcher.dispatch(CALL, replay(clock, [err("x", { http_status: 503 }, 10), err("x", { http_status: 503 }, 10), ok()]), { deadlineMs: 5_000 });
    expect(result.outcome).toMatchObject({ kind: "exhausted", reason: "deadline", attempts: 2, retried: 1, verdict: "server" });
    expect(result.events.filter((e) => e.type === "retry_suppressed")).toEqual([expect.objectContaining({ reason: "deadline", verdict: "server" })]);
    // The caller has gone: on_exhausted does not page anyone for it.
    expect(result.events.some((e) => e.type === "escalated")).toBe(false);
    expect(clock.now()).toBeLessThan(5_000);
  });

  it("an answer that comes after the deadline is discarded: the side effect is unknown", async () => {
    const clock = new VirtualClock();
    const dispatcher = createDispatcher({ registry: REGISTRY, playbook: playbook({ server: retry(3, [100]) }), clock, random: seededRandom(1) });
    const result = await dispatcher.dispatch(CALL, replay(clock, [err("x", { http_status: 503 }, 10), ok(9_000)]), { deadlineMs: 1_000 });
    expect(result.outcome).toMatchObject({ kind: "exhausted", reason: "deadline", verdict: "server" });
    expect(result.outcome.envelope.error).toMatchObject({ code: "server", side_effect_state: "unknown" });
    expect(result.events.at(-1)).toMatchObject({ type: "dispatch_stopped", reason: "deadline", in_flight: true });
  });

  it("a deadline already passed sends nothing", async () => {
    const clock = new VirtualClock(10_000);
    let sent = 0;
    const dispatcher = createDispatcher({ registry: REGISTRY, playbook: playbook({}), clock, random: seededRandom(1) });
    const result = await dispatcher.dispatch(CALL, () => (sent++, ok()), { deadlineMs: 5_000 });
    expect(sent).toBe(0);
    expect(result.outcome).toMatchObject({ kind: "exhausted", reason: "deadline", attempts: 0 });
  });
});

describe("signal and deadlineMs under real timers", () => {
  it("an abort during a 60 s backoff ends the dispatch at once, with no timer or listener left", async () => {
    const timersBefore = activeTimers();
    const controller = new AbortController();
    const dispatcher = createDispatcher({ registry: REGISTRY, playbook: playbook({ server: retry(3, [60_000]) }), clock: realClock(), random: seededRandom(1) });
    let attempts = 0;
    const attempt: AttemptFn = () => (attempts++, err("x", { http_status: 503 }));
    const started = performance.now();
    const pending = dispatcher.dispatch(CALL, attempt, { signal: controller.signal });
    setTimeout(() => controller.abort(), 30);
    const result = await pending;
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result.outcome).toMatchObject({ kind: "exhausted", reason: "cancelled", attempts: 1, retried: 1 });
    expect(result.events.at(-1)).toMatchObject({ type: "dispatch_stopped", reason: "cancelled", in_flight: false });
    expect(attempts).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect(activeTimers()).toBe(timersBefore);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("an abort fires the attempt's own signal and discards its late answer", async () => {
    const controller = new AbortController();
    const dispatcher = createDispatcher({ registry: REGISTRY, playbook: playbook({ server: retry(3, [10]) }), clock: realClock(), random: seededRandom(1) });
    let aborted = false;
    let answer: (() => void) | undefined;
    const attempt: AttemptFn = (_c, _n, _k, context) =>
      new Promise((resolve) => {
        context.signal?.addEventListener("abort", () => (aborted = true));
        answer = () => resolve(ok());
      });
    const pending = dispatcher.dispatch(CALL, attempt, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const result = await pending;
    answer!(); // late: nobody listens
    expect(aborted).toBe(true);
    expect(result.outcome).toMatchObject({ kind: "exhausted", reason: "cancelled", attempts: 1 });
    expect(result.events.at(-1)).toMatchObject({ type: "dispatch_stopped", in_flight: true });
  });

  it("a deadline ends a slow attempt (with an attempt timeout longer than the deadline)", async () => {
    const clock = realClock();
    const dispatcher = createDispatcher({ registry: REGISTRY, playbook: playbook({ timeout: retry(3, [10]) }, { attempt_timeout_ms: 60_000 }), clock, random: seededRandom(1) });
    let signalled = false;
    const attempt: AttemptFn = (_c, _n, _k, context) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve(ok()), 10_000);
        context.signal?.addEventListener("abort", () => {
          signalled = true;
          clearTimeout(timer);
        });
      });
    const started = performance.now();
    const result = await dispatcher.dispatch(CALL, attempt, { deadlineMs: clock.now() + 40 });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(signalled).toBe(true);
    expect(result.outcome).toMatchObject({ kind: "exhausted", reason: "deadline" });
  });

  it("a dispatch that ends in time leaves no deadline timer and no listener", async () => {
    const timersBefore = activeTimers();
    const controller = new AbortController();
    const clock = realClock();
    const dispatcher = createDispatcher({ registry: REGISTRY, playbook: playbook({}), clock, random: seededRandom(1) });
    for (let i = 0; i < 50; i++) {
      const result = await dispatcher.dispatch(CALL, () => Promise.resolve(ok()), { signal: controller.signal, deadlineMs: clock.now() + 600_000 });
      expect(result.outcome.kind).toBe("succeeded");
    }
    await new Promise((r) => setImmediate(r));
    expect(activeTimers()).toBe(timersBefore);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("an already aborted signal sends nothing", async () => {
    let sent = 0;
    const dispatcher = createDispatcher({ registry: REGISTRY, playbook: playbook({}), clock: realClock(), random: seededRandom(1) });
    const result = await dispatcher.dispatch(CALL, () => (sent++, ok()), { signal: AbortSignal.abort() });
    expect(sent).toBe(0);
    expect(result.outcome).toMatchObject({ kind: "exhausted", reason: "cancelled", attempts: 0 });
  });
});

describe("the caller's trace id (DispatchOptions.traceId)", () => {
  const W3C = "4bf92f3577b34da6a3ce929d0e0e4736";
  it("is the outcome's trace_id as given, on the fast path and in the run", async () => {
    const clock = new VirtualClock();
    const dispatcher = createDispatcher({ registry: REGISTRY, playbook: playbook({ denied: { action: "escalate_to_human", queue: "q" } }), clock, random: seededRandom(1) });
    const fast = await dispatcher.dispatch(CALL, () => ok(), { traceId: W3C });
    expect(fast.outcome.envelope.trace_id).toBe(W3C);
    const escalated = await dispatcher.dispatch(CALL, () => err("denied"), { traceId: W3C });
    expect(escalated.outcome.envelope.trace_id).toBe(W3C);
    expect(escalated.outcome.packet?.trace_id).toBe(W3C);
    // Without one: fb_ and 12 hex digits of the key, as before.
    expect((await dispatcher.dispatch(CALL, () => ok())).outcome.envelope.trace_id).toMatch(/^fb_[0-9a-f]{12}$/);
  });

  it.each(["4BF92F3577B34DA6A3CE929D0E0E4736", "00000000000000000000000000000000", "4bf92f3577b34da6", "not-a-trace-id-at-all-0000000000", "4bf92f3577b34da6a3ce929d0e0e47360", "4bf92f3577b34da6a3ce929d0e0e473g", "g4bf92f3577b34da6a3ce929d0e0e473", "4bf92f3577b34da6a3ce929d0e0e473\u00e9", "4bf92f3577b34da6 3ce929d0e0e4736"])("%s is refused with one clear error", async (id) => {
    const dispatcher = createDispatcher({ registry: REGISTRY, playbook: playbook({}), clock: new VirtualClock(), random: seededRandom(1) });
    await expect(dispatcher.dispatch(CALL, () => ok(), { traceId: id })).rejects.toThrow(/W3C trace-id: 32 lower-case hex digits, not all zero/);
  });

  // The check reads the last digit before comparing with all zeros: ids that end in 0, or are all zeros but one digit, are still taken.
  it.each(["00000000000000000000000000000010", "10000000000000000000000000000000", "00000000000000000000000000000001", "0000000000000000f000000000000000"])("%s is taken as given", async (id) => {
    const dispatcher = createDispatcher({ registry: REGISTRY, playbook: playbook({}), clock: new VirtualClock(), random: seededRandom(1) });
    expect((await dispatcher.dispatch(CALL, () => ok(), { traceId: id })).outcome.envelope.trace_id).toBe(id);
  });

  it("the published envelope schema accepts both forms", async () => {
    const { generateJsonSchema } = await import("../src/codegen/jsonschema.js");
    const fail = { action: "fail" as const };
    const { schema } = generateJsonSchema({ registry: REGISTRY, playbook: playbook(Object.fromEntries(REGISTRY.verdicts.map((v) => [v.code, fail]))) });
    const patterns = JSON.stringify(schema).match(/"trace_id":\{"type":"string","pattern":"([^"]+)"\}/g) ?? [];
    expect(patterns.length).toBeGreaterThan(0);
    const pattern = new RegExp(JSON.parse(`{${patterns[0]!}}`).trace_id.pattern);
    expect(pattern.test(W3C)).toBe(true);
    expect(pattern.test("fb_0123456789ab")).toBe(true);
    expect(pattern.test("fb_0123")).toBe(false);
  });
});

describe("a hedged call under a deadline (real clock)", () => {
  it("the race stops waiting and every hedge in flight is aborted", async () => {
    const clock = realClock();
    const dispatcher = createDispatcher({ registry: REGISTRY, playbook: playbook({ timeout: retry(1) }, { hedging: { tools: "payments.*", max_attempts: 3, delay_ms: 10 } }), clock, random: seededRandom(1) });
    let aborted = 0;
    let sent = 0;
    const attempt: AttemptFn = (_c, _n, _k, context) =>
      new Promise(() => {
        sent++;
        context.signal?.addEventListener("abort", () => aborted++);
      });
    const started = performance.now();
    const result = await dispatcher.dispatch(CALL, attempt, { deadlineMs: clock.now() + 60 });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result.outcome).toMatchObject({ kind: "exhausted", reason: "deadline" });
    // The hedges were out when it stopped: their side effect is unknown (SPEC 21), as the Python runtime says too.
    expect(result.events.find((e) => e.type === "dispatch_stopped")).toMatchObject({ reason: "deadline", in_flight: true });
    expect(result.outcome.envelope.error?.side_effect_state ?? "unknown").toBe("unknown");
    expect(sent).toBe(3);
    expect(aborted).toBe(3);
  });
});
