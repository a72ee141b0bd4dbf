/**
 * One fixture, simulated: the engine's dispatcher with a virtual clock, a seeded random
 * source and attempt functions that replay the fixture's recorded responses. Nothing here
 * decides anything; it only feeds the engine.
 */
import type { PathSegment } from "failbook-runtime/model/finding.js";
import type { Fixture, Response, StepSpec } from "failbook-runtime/model/fixture.js";
import type { DispatchEvent, Outcome } from "failbook-runtime/model/outcome.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import type { Registry } from "failbook-runtime/model/registry.js";
import { VirtualClock } from "failbook-runtime/engine/clock.js";
import { createDispatcher, type AttemptFn, type Dispatcher } from "failbook-runtime/engine/dispatch.js";
import { seededRandom } from "failbook-runtime/engine/random.js";
import type { Redactor } from "failbook-runtime/engine/redact.js";
import { runSteps } from "failbook-runtime/engine/saga.js";
import { runWaves } from "failbook-runtime/engine/waves.js";

/** The rules a fixture runs under: a registry and a playbook (today's, or a baseline's). */
export interface Rules {
  registry: Registry;
  playbook: Playbook;
  redact?: Redactor;
}

export interface SimulateFixtureOptions {
  /** Jitter seed when the fixture names none (default 0). */
  seed?: number;
}

/** A fixture that cannot be replayed as written, with the node to point at. */
export interface FixtureError {
  message: string;
  path: PathSegment[];
}

export type FixtureSimulation =
  | { ok: true; outcome: Outcome; events: DispatchEvent[] }
  /** `events`: what happened before the fixture could not go on (e.g. up to where its responses ran out). */
  | { ok: false; error: FixtureError; events: DispatchEvent[] };

/** Replay one fixture. Deterministic: the same rules, fixture and seed give the same result. */
export async function simulateFixture(rules: Rules, fixture: Fixture, options: SimulateFixtureOptions = {}): Promise<FixtureSimulation> {
  const clock = new VirtualClock();
  const seen: DispatchEvent[] = [];
  const dispatcher = createDispatcher({
    registry: rules.registry,
    playbook: rules.playbook,
    clock,
    random: seededRandom(fixture.seed ?? options.seed ?? 0),
    ...(fixture.quota === undefined ? {} : { quotaTokens: fixture.quota.tokens }),
    ...(fixture.state === undefined ? {} : { state: fixture.state }),
    ...(rules.redact ? { redact: rules.redact } : {}),
    onEvent: (event) => seen.push(event),
  });
  try {
    const { outcome, events } = await run(dispatcher, clock, fixture);
    return { ok: true, outcome, events };
  } catch (e) {
    if (e instanceof FixtureShapeError) return { ok: false, error: { message: e.message, path: e.path }, events: seen };
    throw e;
  }
}

function run(dispatcher: Dispatcher, clock: VirtualClock, fixture: Fixture): Promise<{ outcome: Outcome; events: DispatchEvent[] }> {
  const runId = fixture.run_id ?? fixture.name;
  const shapes = [fixture.call && "call", fixture.steps && "steps", fixture.waves && "waves"].filter((s): s is string => Boolean(s));
  if (shapes.length !== 1) {
    const found = shapes.length === 0 ? "none of them" : shapes.join(" and ");
    throw new FixtureShapeError(`needs exactly one of call, steps or waves (found ${found})`, []);
  }
  if (fixture.call) {
    const attempt = replay(clock, fixture.responses, fixture.fallback_responses, []);
    return dispatcher.dispatch(fixture.call, attempt, { runId });
  }
  if (fixture.steps) {
    const steps = fixture.steps.map((step, i) => ({
      call: step.call,
      attempt: replayStep(clock, step, ["steps", i]),
      ...(step.compensation
        ? { compensation: { call: step.compensation.call, attempt: replay(clock, step.compensation.responses, step.compensation.fallback_responses, ["steps", i, "compensation"]) } }
        : {}),
    }));
    return runSteps(dispatcher, steps, { runId, ...(fixture.compensate_on_failure === undefined ? {} : { compensate: fixture.compensate_on_failure }) });
  }
  const waves = (fixture.waves ?? []).map((wave, w) => wave.calls.map((step, i) => ({ call: step.call, attempt: replayStep(clock, step, ["waves", w, "calls", i]) })));
  return runWaves(dispatcher, waves, { runId, ...(fixture.parallelism === undefined ? {} : { parallelism: fixture.parallelism }) });
}

const replayStep = (clock: VirtualClock, step: StepSpec, at: PathSegment[]): AttemptFn => replay(clock, step.responses, step.fallback_responses, at);

/** Attempt `n` reads the `n`-th recorded response and takes its latency on the virtual clock. */
function replay(clock: VirtualClock, recorded: Response[] | undefined, recordedFallbacks: Response[] | undefined, at: PathSegment[]): AttemptFn {
  const responses = expandRepeats(recorded);
  const fallbacks = expandRepeats(recordedFallbacks);
  return (attempted, n, _key, context) => {
    const field = context.fallback ? "fallback_responses" : "responses";
    const list = context.fallback ? fallbacks : responses;
    const response = list?.[n - 1];
    if (!response) {
      const recorded = list === undefined ? `no ${field}` : `${list.length} recorded`;
      throw new FixtureShapeError(
        `ran out of responses: attempt ${n} of ${attempted.id} (${attempted.tool}) has no entry in ${field} (${recorded}); record the response the playbook now asks for, or check the playbook`,
        list === undefined ? [...at, "call"] : [...at, field],
      );
    }
    clock.advance(response.latency_ms ?? 0);
    return response;
  };
}

/** The responses attempt by attempt: `repeat: N` (SPEC 13) stands for N copies of its response. */
export function expandRepeats(list: Response[] | undefined): Response[] | undefined {
  if (list === undefined || !list.some((r) => r.repeat !== undefined)) return list;
  const out: Response[] = [];
  for (const { repeat = 1, ...response } of list) for (let i = 0; i < repeat; i++) out.push(response as Response);
  return out;
}

class FixtureShapeError extends Error {
  constructor(
    message: string,
    readonly path: PathSegment[],
  ) {
    super(message);
  }
}
