/** Several steps and sagas (SPEC 5.2), waves (SPEC 5.3): one run, shared budgets, one time line. */
import { describe, expect, it } from "vitest";
import type { Call, Response } from "failbook-runtime/model/fixture.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import { VirtualClock } from "failbook-runtime/engine/clock.js";
import { createDispatcher, type Dispatcher } from "failbook-runtime/engine/dispatch.js";
import { runSteps, type SagaStep } from "failbook-runtime/engine/saga.js";
import { runWaves } from "failbook-runtime/engine/waves.js";
import { err, ok, playbook, REGISTRY, replay, retry } from "./helpers/dispatch.js";

function setup(pb: Playbook): { dispatcher: Dispatcher; clock: VirtualClock } {
  const clock = new VirtualClock();
  return { dispatcher: createDispatcher({ registry: REGISTRY, playbook: pb, clock, random: () => 0 }), clock };
}

const call = (id: string): Call => ({ id, tool: `shop.${id}` });

function step(clock: VirtualClock, id: string, responses: Response[], compensation?: [string, Response[]]): SagaStep {
  return {
    call: call(id),
    attempt: replay(clock, responses),
    ...(compensation ? { compensation: { call: call(compensation[0]), attempt: replay(clock, compensation[1]) } } : {}),
  };
}

const PB = playbook({ timeout: retry(3), denied: { action: "escalate_to_human", queue: "review" }, refused: { action: "fail", message: "no" } });

describe("steps", () => {
  it("all steps succeed: succeeded, or recovered when one recovered", async () => {
    const { dispatcher, clock } = setup(PB);
    const { outcome } = await runSteps(dispatcher, [step(clock, "a", [ok(10)]), step(clock, "b", [err("timeout"), ok(10)])], { runId: "r" });
    expect(outcome).toMatchObject({ kind: "recovered", verdict: "timeout", attempts: 3, retried: 1, elapsed_ms: 120 });
    expect(outcome.steps?.map((s) => [s.id, s.kind])).toEqual([["a", "succeeded"], ["b", "recovered"]]);
  });

  it("seed 001: the first failing step stops the rest and is the outcome; nothing is undone", async () => {
    const { dispatcher, clock } = setup(PB);
    const undo = replay(clock, [ok()]);
    let undone = false;
    const steps: SagaStep[] = [
      { call: call("find_pr"), attempt: replay(clock, [ok(180)]), compensation: { call: call("unfind"), attempt: (...a) => ((undone = true), undo(...a)) } },
      step(clock, "post", [err("denied", {}, 300)]),
      step(clock, "react", [ok()]),
    ];
    const { outcome, events } = await runSteps(dispatcher, steps, { runId: "r" });
    expect(outcome).toMatchObject({ kind: "escalated", verdict: "denied", queue: "review", attempts: 2, elapsed_ms: 480 });
    expect(outcome.steps?.map((s) => s.id)).toEqual(["find_pr", "post"]);
    expect(outcome.compensations).toEqual([]);
    expect(undone).toBe(false);
    expect(events.every((e) => e.call !== "react")).toBe(true);
    expect(events.map((e) => [e.call, e.t])).toEqual([["find_pr", 180], ["post", 480], ["post", 480], ["post", 480]]);
  });

  it("seed 002: compensations run in reverse order, each dispatched; all succeed -> compensated", async () => {
    const { dispatcher, clock } = setup(PB);
    const steps = [
      step(clock, "reserve", [ok()], ["release", [ok()]]),
      step(clock, "noop", [ok()]),
      step(clock, "charge", [ok()], ["refund", [err("timeout"), ok()]]),
      step(clock, "ship", [err("refused")]),
    ];
    const { outcome, events } = await runSteps(dispatcher, steps, { runId: "r", compensate: true });
    expect(outcome).toMatchObject({ kind: "compensated", reason: "no", attempts: 7, retried: 1 });
    expect(outcome.compensations?.map((c) => [c.id, c.kind])).toEqual([["refund", "recovered"], ["release", "succeeded"]]);
    // SPEC 13: the saga names its trigger (the refused step), not the timeout the refund saw last.
    expect(outcome.verdict).toBe("refused");
    expect(outcome.steps?.map((s) => [s.id, s.verdict])).toEqual([["reserve", null], ["noop", null], ["charge", null], ["ship", "refused"]]);
    expect(outcome.compensations?.map((c) => [c.id, c.verdict])).toEqual([["refund", "timeout"], ["release", null]]);
    expect(events.filter((e) => e.type === "compensation_started").map((e) => e.type === "compensation_started" && e.step)).toEqual(["charge", "reserve"]);
  });

  it("seed 002: a failed compensation writes a dead letter, the others still run, the run is dead_lettered", async () => {
    const { dispatcher, clock } = setup(PB);
    const steps = [
      step(clock, "reserve", [ok()], ["release", [ok()]]),
      step(clock, "charge", [ok()], ["refund", [err("refused", { message: "card closed" }, 50)]]),
      step(clock, "ship", [err("refused")]),
    ];
    const { outcome, events } = await runSteps(dispatcher, steps, { runId: "r", compensate: true });
    expect(outcome).toMatchObject({ kind: "dead_lettered", verdict: "refused", reason: "compensation_failed", queue: "oncall" });
    expect(outcome.compensations?.map((c) => [c.id, c.kind])).toEqual([["refund", "failed"], ["release", "succeeded"]]);
    expect(events.map((e) => e.type).filter((t) => t.startsWith("compensation"))).toEqual(["compensation_started", "compensation_failed", "compensation_started"]);
    expect(outcome.dead_letters).toEqual([
      {
        queue: "oncall",
        call: call("refund"),
        step: "charge",
        errors: [{ attempt: 1, t: 50, tool: "shop.refund", error: { kind: "refused", message: "card closed" } }],
        envelope: expect.objectContaining({ tool: "shop.refund", outcome: "failed" }),
        first_attempt_ms: 50,
        dead_lettered_ms: 50,
      },
    ]);
  });

  it("a failed compensation goes to the playbook's dead-letter queue when on_exhausted names one", async () => {
    const { dispatcher, clock } = setup({ ...PB, on_exhausted: { action: "dead_letter", queue: "agent-dlq" } });
    const steps = [step(clock, "charge", [ok()], ["refund", [err("refused")]]), step(clock, "ship", [err("refused")])];
    const { outcome, events } = await runSteps(dispatcher, steps, { runId: "r", compensate: true });
    expect(outcome).toMatchObject({ kind: "dead_lettered", queue: "agent-dlq" });
    expect(outcome.dead_letters?.map((d) => d.queue)).toEqual(["agent-dlq"]);
    expect(events.find((e) => e.type === "compensation_failed")).toMatchObject({ queue: "agent-dlq" });
  });

  it("compensation follows the playbook's saga setting unless the fixture overrides it", async () => {
    const run = async (pb: Playbook, compensate?: boolean) => {
      const { dispatcher, clock } = setup(pb);
      const steps = [step(clock, "a", [ok()], ["undo_a", [ok()]]), step(clock, "b", [err("refused")])];
      return (await runSteps(dispatcher, steps, { runId: "r", ...(compensate === undefined ? {} : { compensate }) })).outcome.kind;
    };
    const sagaOn = { ...PB, saga: { compensate_on_failure: true } };
    expect(await run(PB)).toBe("failed");
    expect(await run(sagaOn)).toBe("compensated");
    expect(await run(sagaOn, false)).toBe("failed");
    expect(await run(PB, true)).toBe("compensated");
  });

  it("budgets are shared across the steps of a run", async () => {
    const { dispatcher, clock } = setup({ ...PB, budgets: { retries: 1 } });
    const steps = [step(clock, "a", [err("timeout"), ok()]), step(clock, "b", [err("timeout")])];
    const { outcome } = await runSteps(dispatcher, steps, { runId: "r" });
    expect(outcome).toMatchObject({ kind: "exhausted", reason: "budget_retries", attempts: 3, retried: 1 });
  });
});

describe("waves (seed 003)", () => {
  const throttled = { ...PB, throttle: { class: "transient", min_failures: 2, factor: 0.5 } };

  it("halves the parallelism after a wave where enough calls met the throttle's class", async () => {
    const { dispatcher, clock } = setup(throttled);
    const wave = (ids: string[], failing: string[]) => ids.map((id) => ({ call: call(id), attempt: replay(clock, failing.includes(id) ? [err("timeout"), ok()] : [ok()]) }));
    const { outcome } = await runWaves(dispatcher, [wave(["a", "b", "c", "d"], ["a", "b"]), wave(["e", "f"], ["e"]), wave(["g"], [])], { runId: "r", parallelism: 4 });
    expect(outcome.parallelism).toEqual([4, 2, 2]);
    expect(outcome).toMatchObject({ kind: "succeeded", attempts: 10, retried: 3 });
    expect(outcome.calls?.map((c) => c.id)).toEqual(["a", "b", "c", "d", "e", "f", "g"]);
  });

  it("never goes below 1, and defaults to the largest wave", async () => {
    const { dispatcher, clock } = setup({ ...throttled, throttle: { class: "transient", min_failures: 1, factor: 0.1 } });
    const w = (id: string) => [{ call: call(id), attempt: replay(clock, [err("timeout"), ok()]) }, { call: call(`${id}2`), attempt: replay(clock, [ok()]) }];
    const { outcome } = await runWaves(dispatcher, [w("a"), w("b")], { runId: "r" });
    expect(outcome.parallelism).toEqual([2, 1]);
  });

  it("fails when any call does not succeed, and shares budgets across the phase", async () => {
    const { dispatcher, clock } = setup({ ...PB, budgets: { retries: 1 } });
    const calls = [
      { call: call("a"), attempt: replay(clock, [err("timeout"), ok()]) },
      { call: call("b"), attempt: replay(clock, [err("timeout")]) },
      { call: call("c"), attempt: replay(clock, [ok()]) },
    ];
    const { outcome } = await runWaves(dispatcher, [calls], { runId: "r" });
    expect(outcome).toMatchObject({ kind: "failed", reason: "1 of 3 calls did not succeed", exhausted: true });
    expect(outcome.calls?.map((c) => c.kind)).toEqual(["recovered", "exhausted", "succeeded"]);
  });
});
