/** SPEC 18: the circuit breaker, one circuit on a virtual clock, and the dispatcher that shares it. */
import { describe, expect, it } from "vitest";
import { VirtualClock } from "failbook-runtime/engine/clock.js";
import { createDispatcher, type AttemptFn } from "failbook-runtime/engine/dispatch.js";
import { Circuit, type CircuitOutcome, type CircuitTransition } from "failbook-runtime/engine/policies/circuit.js";
import { seededRandom } from "failbook-runtime/engine/random.js";
import type { BreakerState, Response } from "failbook-runtime/model/fixture.js";
import type { DispatchEvent } from "failbook-runtime/model/outcome.js";
import type { CircuitBreakerPolicy, Playbook } from "failbook-runtime/model/playbook.js";
import type { Registry } from "failbook-runtime/model/registry.js";
import { CALL, err, ok, playbook, REGISTRY, replay, retry } from "./helpers/dispatch.js";

/** One attempt at time `t`: S success, F failure, I a failure the breaker does not count. */
type Step = [t: number, outcome: "S" | "F" | "I"];

/** Drive one circuit; the state after each attempt, `X` for an attempt it did not let through. */
function drive(policy: Partial<CircuitBreakerPolicy>, steps: Step[], start: BreakerState = "closed"): { states: string; transitions: CircuitTransition[] } {
  const circuit = new Circuit({ tools: "x", ...policy }, 0, start);
  const transitions: CircuitTransition[] = [];
  const heard = (t: CircuitTransition) => transitions.push(t);
  const out: string[] = [];
  for (const [t, o] of steps) {
    const admitted = circuit.admit(t, heard);
    if (admitted === "rejected") {
      out.push("X");
      continue;
    }
    if (admitted === "probe") circuit.takeProbe();
    const outcome: CircuitOutcome = o === "S" ? "success" : o === "F" ? "failure" : "ignored";
    circuit.record(t, admitted, outcome, heard);
    out.push(circuit.stateAt(t) === "closed" ? "c" : circuit.stateAt(t) === "open" ? "o" : "h");
  }
  return { states: out.join(""), transitions };
}

const seq = (text: string, from = 0, every = 1): Step[] => [...text].map((o, i) => [from + i * every, o as "S" | "F" | "I"]);

describe("one circuit", () => {
  const base = { failure_ratio: 0.5, minimum_throughput: 4, sampling_ms: 1000, break_ms: 500 };
  it.each([
    { what: "stays closed below minimum_throughput, however many fail", policy: base, steps: seq("FFF"), states: "ccc" },
    { what: "opens at minimum_throughput once the failures' share reaches failure_ratio", policy: base, steps: seq("SSFF"), states: "ccco" },
    { what: "a share below failure_ratio keeps it closed", policy: base, steps: seq("SSSF"), states: "cccc" },
    { what: "only a failure opens it (a success never does)", policy: { ...base, failure_ratio: 0.25 }, steps: seq("FSSS"), states: "cccc" },
    { what: "failures it does not count are not in the window", policy: base, steps: seq("IIIF"), states: "cccc" },
    { what: "attempts older than sampling_ms leave the window", policy: base, steps: [[0, "F"], [1, "F"], [2, "F"], [1001, "F"]], states: "cccc" },
    { what: "an attempt exactly sampling_ms old has left it", policy: base, steps: [[0, "F"], [500, "F"], [600, "F"], [1000, "F"]], states: "cccc" },
    { what: "one just younger is still in it", policy: base, steps: [[1, "F"], [500, "F"], [600, "F"], [1000, "F"]], states: "ccco" },
    { what: "open: nothing goes through until break_ms", policy: base, steps: [...seq("FFFF"), [502, "S"], [503, "S"]], states: "cccoXc" },
    { what: "after break_ms one probe goes; its success closes it with an empty window", policy: base, steps: [...seq("FFFF"), [503, "S"], [504, "F"], [505, "F"], [506, "F"]], states: "cccocccc" },
    { what: "a failed probe opens it again for break_ms", policy: base, steps: [...seq("FFFF"), [503, "F"], [504, "S"], [1003, "S"]], states: "cccooXc" },
    { what: "two probes: both must succeed", policy: { ...base, half_open_probes: 2 }, steps: [...seq("FFFF"), [503, "S"], [504, "S"]], states: "cccohc" },
    { what: "a probe it does not count gives its place back", policy: base, steps: [...seq("FFFF"), [503, "I"], [504, "S"]], states: "cccohc" },
  ] as { what: string; policy: Partial<CircuitBreakerPolicy>; steps: Step[]; states: string }[])("$what", ({ policy, steps, states }) => {
    expect(drive(policy, steps).states).toBe(states);
  });

  it("each reopening doubles the break up to max_break_ms, and closing resets it", () => {
    const policy = { ...base, minimum_throughput: 1, failure_ratio: 1, max_break_ms: 1500 };
    const { transitions } = drive(policy, [[0, "F"], [500, "F"], [1500, "F"], [3000, "F"], [4500, "S"], [4501, "F"]]);
    expect(transitions.filter((t) => t.type === "opened").map((t) => (t.type === "opened" ? t.breakMs : 0))).toEqual([500, 1000, 1500, 1500, 500]);
  });

  it("sampling_attempts holds the window to the last N attempts (N straight failures open it)", () => {
    const consecutive = { failure_ratio: 1, minimum_throughput: 3, sampling_ms: 86_400_000, sampling_attempts: 3, break_ms: 100 };
    expect(drive(consecutive, seq("FFSFFSFFF")).states).toBe("cccccccco");
  });

  it("buckets count the window in whole buckets aligned to the breaker's start", () => {
    // 4 buckets of 250 ms: at t=1000 the bucket [0, 250) has left the window, [250, 500) has not.
    const bucketed = { failure_ratio: 0.5, minimum_throughput: 3, sampling_ms: 1000, buckets: 4, break_ms: 100 };
    expect(drive(bucketed, [[0, "F"], [260, "F"], [1000, "F"]]).states).toBe("ccc");
    expect(drive(bucketed, [[250, "F"], [260, "F"], [1000, "F"]]).states).toBe("cco");
    expect(drive(bucketed, [[249, "F"], [260, "F"], [999, "F"]]).states).toBe("cco");
  });

  it("can start open (a fixture's state): the break runs from the start", () => {
    expect(drive(base, [[0, "S"], [499, "S"], [500, "S"]], "open").states).toBe("XXc");
  });
});

/** A registry that says what an open circuit means: the call goes to the fallback tool. */
const BREAKER_REGISTRY: Registry = {
  ...REGISTRY,
  verdicts: [...REGISTRY.verdicts.slice(0, -1), { code: "circuit_open", class: "permanent", retryable: false, side_effect: "none", match: [{ kind: "circuit_open" }] }, REGISTRY.verdicts.at(-1)!],
};

const PAYMENTS: CircuitBreakerPolicy = { tools: "payments.*", failure_ratio: 0.5, minimum_throughput: 4, sampling_ms: 10_000, break_ms: 5_000 };

function breakerDispatcher(extra: Partial<Playbook> = {}) {
  const clock = new VirtualClock();
  const dispatcher = createDispatcher({
    registry: BREAKER_REGISTRY,
    playbook: playbook({ timeout: retry(1, [100]), circuit_open: { action: "fallback", tool: "ledger.refund" } }, { circuit_breakers: { payments: PAYMENTS }, ...extra }),
    clock,
    random: seededRandom(0),
  });
  const run = (responses: Response[], fallbacks: Response[] = [], id = "c") => dispatcher.dispatch({ ...CALL, id }, replay(clock, responses, fallbacks), { runId: "r", label: true });
  return { clock, dispatcher, run };
}

const types = (events: readonly DispatchEvent[]) => events.map((e) => (e.type === "attempt" && e.short_circuited ? "attempt(not sent)" : e.type));

describe("a dispatcher's breakers", () => {
  it("count attempts, not calls: two failing calls of two attempts open it, and the next call is short-circuited to its fallback", async () => {
    const { clock, run, dispatcher } = breakerDispatcher();
    await run([err("timeout"), err("timeout")], [], "a");
    const second = await run([err("timeout"), err("timeout")], [], "b");
    expect(types(second.events)).toEqual(["attempt", "failure_classified", "retry_scheduled", "attempt", "failure_classified", "breaker_opened", "retry_suppressed"]);
    expect(second.events.at(-2)).toMatchObject({ type: "breaker_opened", breaker: "payments", failures: 4, attempts: 4, break_ms: 5000 });

    clock.advance(1000);
    const third = await run([ok()], [ok()], "c");
    // Not sent, not counted: the fallback's attempt is the only one the upstreams saw.
    expect(third.outcome).toMatchObject({ kind: "recovered", attempts: 1, verdict: "circuit_open" });
    expect(third.events[0]).toMatchObject({ type: "attempt", n: 1, status: "error", error_kind: "circuit_open", short_circuited: true, latency_ms: 0 });
    expect(types(third.events)).toEqual(["attempt(not sent)", "failure_classified", "fallback_started", "attempt"]);
    expect(dispatcher.policies.breakers?.stateOf("payments", clock.now())).toBe("open");

    // After break_ms a probe goes through; its success closes the breaker.
    clock.advance(4000);
    const fourth = await run([ok()], [], "d");
    expect(types(fourth.events)).toEqual(["breaker_half_open", "attempt", "breaker_closed"]);
    expect(fourth.outcome.kind).toBe("succeeded");
  });

  it("guards only its tools; per: tool keeps one state per tool", async () => {
    const clock = new VirtualClock();
    const dispatcher = createDispatcher({
      registry: BREAKER_REGISTRY,
      playbook: playbook({ timeout: retry(0), circuit_open: { action: "fail" } }, { circuit_breakers: { payments: { ...PAYMENTS, minimum_throughput: 1, per: "tool" } } }),
      clock,
      random: seededRandom(0),
    });
    const call = (tool: string, responses: Response[]) => dispatcher.dispatch({ ...CALL, tool }, replay(clock, responses));
    const opened = await call("payments.refund", [err("timeout")]);
    expect(opened.events.find((e) => e.type === "breaker_opened")).toMatchObject({ type: "breaker_opened", breaker: "payments", tool: "payments.refund" });
    expect((await call("payments.refund", [ok()])).outcome).toMatchObject({ kind: "failed", verdict: "circuit_open", attempts: 0 });
    expect((await call("payments.charge", [ok()])).outcome.kind).toBe("succeeded");
    expect((await call("search.query", [err("timeout")])).outcome.kind).toBe("exhausted");
  });

  it("by default counts retryable verdicts and attempt timeouts; counts: [class] counts only that class", async () => {
    const only = breakerDispatcher({ circuit_breakers: { payments: { ...PAYMENTS, minimum_throughput: 1, counts: ["permanent"] } } });
    await only.run([err("timeout"), err("timeout")]);
    expect(only.dispatcher.policies.breakers?.stateOf("payments", only.clock.now())).toBe("closed");
    const byDefault = breakerDispatcher({ circuit_breakers: { payments: { ...PAYMENTS, minimum_throughput: 1 } } });
    await byDefault.run([err("refused")]);
    expect(byDefault.dispatcher.policies.breakers?.stateOf("payments", byDefault.clock.now())).toBe("closed");
    await byDefault.run([err("timeout")], [ok()]);
    expect(byDefault.dispatcher.policies.breakers?.stateOf("payments", byDefault.clock.now())).toBe("open");
  });

  it("gives back the probe of an attempt whose function throws, first attempt or retry: the next call is let through", async () => {
    for (const failFirst of [false, true]) {
      const clock = new VirtualClock();
      const dispatcher = createDispatcher({
        registry: BREAKER_REGISTRY,
        // The first attempt's timeout is not counted: its probe comes back and the retry takes it.
        playbook: playbook({ timeout: retry(1), circuit_open: { action: "fail" } }, { circuit_breakers: { payments: { ...PAYMENTS, counts: ["permanent"] } } }),
        clock,
        random: seededRandom(0),
        state: { breakers: { payments: "open" } },
      });
      clock.advance(PAYMENTS.break_ms ?? 5000);
      // Half open: one probe. The attempt holding it throws (after a failed first attempt when failFirst).
      let n = 0;
      const throws: AttemptFn = () => {
        if (failFirst && n++ === 0) return err("timeout");
        throw new Error("adapter bug");
      };
      await expect(dispatcher.dispatch(CALL, throws)).rejects.toThrow("adapter bug");
      const next = await dispatcher.dispatch(CALL, replay(clock, [ok()]));
      expect(next.outcome.kind, failFirst ? "after a retry threw" : "after a first attempt threw").toBe("succeeded");
    }
  });

  it("starts in a fixture's state", async () => {
    const clock = new VirtualClock();
    const dispatcher = createDispatcher({
      registry: BREAKER_REGISTRY,
      playbook: playbook({ circuit_open: { action: "fail", message: "payments are down" } }, { circuit_breakers: { payments: PAYMENTS } }),
      clock,
      random: seededRandom(0),
      state: { breakers: { payments: "open" } },
    });
    const r = await dispatcher.dispatch(CALL, replay(clock, [ok()]));
    expect(r.outcome).toMatchObject({ kind: "failed", attempts: 0, reason: "payments are down" });
    expect(r.outcome.envelope.error).toMatchObject({ code: "circuit_open", message: "circuit payments is open" });
  });
});
