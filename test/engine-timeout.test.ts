/** SPEC 18: attempt timeouts, simulated (a response's latency_ms) and in production (an AbortSignal, a late answer discarded). */
import { describe, expect, it } from "vitest";
import { realClock } from "failbook-runtime/engine/clock.js";
import { createDispatcher, type AttemptFn } from "failbook-runtime/engine/dispatch.js";
import { seededRandom } from "failbook-runtime/engine/random.js";
import type { Fixture, Response } from "failbook-runtime/model/fixture.js";
import type { DispatchRecord } from "failbook-runtime/model/record.js";
import type { Registry } from "failbook-runtime/model/registry.js";
import { simulateFixture } from "../src/simulate/fixture.js";
import { CALL, ok, playbook, REGISTRY, retry } from "./helpers/dispatch.js";

/** The registry says what a timed-out attempt means: transient, retried with the same key. */
const TIMEOUT_REGISTRY: Registry = {
  ...REGISTRY,
  verdicts: [{ code: "attempt_timed_out", class: "transient", retryable: true, match: [{ kind: "attempt_timeout" }] }, ...REGISTRY.verdicts],
};

const rules = (extra: Parameters<typeof playbook>[1] = {}) => ({ registry: TIMEOUT_REGISTRY, playbook: playbook({ attempt_timed_out: retry(2, [100, 100]) }, { attempt_timeout_ms: 3000, ...extra }) });

const fixture = (responses: Response[], tool = CALL.tool): Fixture => ({ apiVersion: "failbook/v1", kind: "Fixture", name: "f", call: { ...CALL, tool }, responses });

describe("attempt timeout, simulated", () => {
  it("a response slower than the timeout ends at the timeout as attempt_timeout, side effect unknown; the clock advances by the timeout", async () => {
    const r = await simulateFixture(rules(), fixture([ok(5000), ok(40)]));
    if (!r.ok) throw new Error(r.error.message);
    expect(r.events[0]).toMatchObject({ type: "attempt", n: 1, status: "error", error_kind: "attempt_timeout", latency_ms: 3000 });
    expect(r.events[1]).toMatchObject({ type: "failure_classified", verdict: "attempt_timed_out" });
    expect(r.outcome).toMatchObject({ kind: "recovered", attempts: 2, elapsed_ms: 3000 + 100 + 40 });
  });

  it.each([
    { what: "a response exactly at the timeout is an answer", latency: 3000, kind: "succeeded" },
    { what: "one a millisecond over is not", latency: 3001, kind: "exhausted" },
  ])("$what", async ({ latency, kind }) => {
    const r = await simulateFixture(rules(), fixture([ok(latency), ok(latency), ok(latency)]));
    expect(r.ok && r.outcome.kind).toBe(kind);
  });

  it("a tools: entry sets its own timeout; the first that sets one wins", async () => {
    const own = rules({ tools: { "search.*": { idempotent: true }, "payments.*": { attempt_timeout_ms: 50 }, "payments.refund": { attempt_timeout_ms: 10_000 } } });
    const slow = await simulateFixture(own, fixture([ok(60), ok(10)]));
    expect(slow.ok && slow.events[0]).toMatchObject({ error_kind: "attempt_timeout", latency_ms: 50 });
    const other = await simulateFixture(own, fixture([ok(2000)], "search.query"));
    expect(other.ok && other.outcome.kind).toBe("succeeded");
  });
});

describe("attempt timeout, in production", () => {
  it("aborts the attempt's signal at the timeout, stops waiting, discards the late answer, and records the attempt as timed out", async () => {
    const records: DispatchRecord[] = [];
    let aborted: unknown;
    const dispatcher = createDispatcher({
      registry: TIMEOUT_REGISTRY,
      playbook: playbook({ attempt_timed_out: retry(1, [0]) }, { attempt_timeout_ms: 40 }),
      clock: realClock(),
      random: seededRandom(0),
    });
    const attempt: AttemptFn = (_call, n, _key, context) => {
      expect(context.signal).toBeInstanceOf(AbortSignal);
      if (n > 1) return ok();
      // Answers after 400 ms, unless its signal stops it first.
      return new Promise((resolve) => {
        const late = setTimeout(() => resolve({ status: "error", error: { kind: "late" } }), 400);
        context.signal?.addEventListener("abort", () => {
          aborted = context.signal?.reason;
          clearTimeout(late);
        });
      });
    };
    const started = performance.now();
    const r = await dispatcher.dispatch(CALL, attempt, { record: (record) => void records.push(record) });
    expect(performance.now() - started).toBeLessThan(300);
    expect(aborted).toMatchObject({ name: "TimeoutError" });
    expect(r.outcome).toMatchObject({ kind: "recovered", verdict: "attempt_timed_out", attempts: 2 });
    expect(r.events[0]).toMatchObject({ type: "attempt", error_kind: "attempt_timeout" });
    expect(records[0].responses[0]).toMatchObject({ status: "error", error: { kind: "attempt_timeout", side_effect_state: "unknown" } });
    expect(records[0].responses[0].latency_ms).toBeGreaterThanOrEqual(30);
  });

  it("an attempt that answers in time is not aborted and leaves no timer behind", async () => {
    const dispatcher = createDispatcher({ registry: TIMEOUT_REGISTRY, playbook: playbook({}, { attempt_timeout_ms: 60_000 }), clock: realClock(), random: seededRandom(0) });
    let signal: AbortSignal | undefined;
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    const before = timers();
    const r = await dispatcher.dispatch(CALL, (_c, _n, _k, context) => {
      signal = context.signal;
      return ok();
    });
    expect(r.outcome.kind).toBe("succeeded");
    expect(signal?.aborted).toBe(false);
    expect(timers()).toBe(before);
  });
});
