/**
 * One code path: the production dispatcher (a caller-supplied attempt function, a real
 * clock that really waits, scaled down) and `simulate` (virtual clock, recorded responses)
 * reach the same outcome on every shipped fixture.
 */
import { describe, expect, it } from "vitest";
import type { Fixture, Response } from "failbook-runtime/model/fixture.js";
import type { DispatchEvent, Outcome } from "failbook-runtime/model/outcome.js";
import { realClock } from "failbook-runtime/engine/clock.js";
import { createDispatcher, type AttemptFn, type Dispatcher } from "failbook-runtime/engine/dispatch.js";
import { seededRandom } from "failbook-runtime/engine/random.js";
import { runSteps } from "failbook-runtime/engine/saga.js";
import { runWaves } from "failbook-runtime/engine/waves.js";
import { loadProject } from "../src/load/project.js";
import { simulateFixture } from "../src/simulate/fixture.js";
import { REPO } from "./helpers/cli.js";

const { project } = loadProject({ cwd: REPO });
const registry = project.registry?.value;
const playbook = project.playbook?.value;

/** What production does: call the tool (here: wait a real 0-1 ms, answer as recorded). */
function tool(responses: Response[] = [], fallbacks: Response[] = []): AttemptFn {
  return async (_call, n, _key, context) => {
    const response = (context.fallback ? fallbacks : responses)[n - 1];
    if (!response) throw new Error(`the recorded tool has no answer for attempt ${n}`);
    await new Promise((resolve) => setTimeout(resolve, response.latency_ms ? 1 : 0));
    return response;
  };
}

async function production(dispatcher: Dispatcher, f: Fixture): Promise<{ outcome: Outcome; events: DispatchEvent[] }> {
  const runId = f.run_id ?? f.name;
  if (f.call) return dispatcher.dispatch(f.call, tool(f.responses, f.fallback_responses), { runId });
  if (f.steps) {
    const steps = f.steps.map((s) => ({
      call: s.call,
      attempt: tool(s.responses, s.fallback_responses),
      ...(s.compensation ? { compensation: { call: s.compensation.call, attempt: tool(s.compensation.responses, s.compensation.fallback_responses) } } : {}),
    }));
    return runSteps(dispatcher, steps, { runId, ...(f.compensate_on_failure === undefined ? {} : { compensate: f.compensate_on_failure }) });
  }
  const waves = (f.waves ?? []).map((w) => w.calls.map((s) => ({ call: s.call, attempt: tool(s.responses, s.fallback_responses) })));
  return runWaves(dispatcher, waves, { runId, ...(f.parallelism === undefined ? {} : { parallelism: f.parallelism }) });
}

/** Everything but time: a real clock measures real milliseconds. */
const timeless = (o: Outcome, events: DispatchEvent[]) => ({
  kind: o.kind,
  verdict: o.verdict,
  attempts: o.attempts,
  retried: o.retried,
  reason: o.reason,
  queue: o.queue,
  replan: o.replan,
  exhausted: o.exhausted,
  steps: o.steps?.map((s) => [s.id, s.kind]),
  compensations: o.compensations?.map((s) => [s.id, s.kind]),
  calls: o.calls?.map((s) => [s.id, s.kind]),
  parallelism: o.parallelism,
  events: events.map(({ t: _t, ...rest }) => ("latency_ms" in rest ? { ...rest, latency_ms: undefined } : rest)),
});

describe("production and simulation agree", () => {
  it("the shipped project has fixtures to compare", () => {
    expect(registry && playbook).toBeTruthy();
    expect(project.fixtures.length).toBeGreaterThan(10);
  });

  it.each(project.fixtures.map((f) => [f.value.name, f.value] as const))("%s", async (_name, fixture) => {
    if (!registry || !playbook) throw new Error("the shipped registry or playbook failed to load");
    const seed = fixture.seed ?? 0;
    const simulated = await simulateFixture({ registry, playbook }, fixture, { seed });
    if (!simulated.ok) throw new Error(simulated.error.message);
    const dispatcher = createDispatcher({ registry, playbook, clock: realClock({ scale: 0.00001 }), random: seededRandom(seed) });
    const real = await production(dispatcher, fixture);
    expect(timeless(real.outcome, real.events)).toEqual(timeless(simulated.outcome, simulated.events));
  });
});
