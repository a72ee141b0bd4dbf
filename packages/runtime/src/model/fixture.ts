/** Fixtures: recorded failures to replay against the playbook (SPEC section 5). */
import type { PathSegment } from "./finding.js";
import type { FieldValue, SideEffectState } from "./registry.js";

/** What an adapter reports for one failed attempt (SPEC 2.2). */
export interface AdapterError {
  kind: string;
  message?: string;
  http_status?: number;
  provider_code?: string;
  side_effect_state?: SideEffectState;
  retry_after_ms?: number;
  /** Response headers (SPEC 12): names compared in any case, values strings. */
  headers?: Record<string, string>;
  /** The registry's declared `error_fields` (SPEC 12). */
  fields?: Record<string, FieldValue>;
  /** The error this one was caused by (SPEC 12), nested at most 8 deep. */
  cause?: AdapterError;
}

export interface Call {
  id: string;
  tool: string;
  args?: Record<string, unknown>;
  idempotent?: boolean;
  idempotency_key?: string;
  reversal_token?: string;
  evidence_refs?: string[];
}

/** `repeat: N` (SPEC 13) stands for the same response N times in a row. */
export type Response =
  /** `headers`: what a successful response's headers say, for a rate limit that reads them (SPEC 22). */
  | { status: "ok"; value?: unknown; latency_ms?: number; repeat?: number; headers?: Record<string, string> }
  | { status: "error"; error?: AdapterError; latency_ms?: number; repeat?: number }
  | { status: "needs_input"; question?: string; latency_ms?: number; repeat?: number };

export interface StepSpec {
  call: Call;
  responses: Response[];
  fallback_responses?: Response[];
  compensation?: { call: Call; responses: Response[]; fallback_responses?: Response[] };
}

export interface WaveSpec {
  calls: StepSpec[];
}

/** A circuit breaker's state (SPEC 18). */
export type BreakerState = "closed" | "open" | "half_open";

/** Where the playbook's shared policies start (SPEC 18); the retry quota keeps its own `quota:`. */
export interface PolicyState {
  /** By breaker name; `open` starts the break at the fixture's time 0. */
  breakers?: Record<string, BreakerState>;
  throttling?: { tokens: number };
}

export interface Fixture {
  apiVersion: "failbook/v1";
  kind: "Fixture";
  name: string;
  description?: string;
  run_id?: string;
  seed?: number;
  /** Start from this many retry-quota tokens instead of a full bucket. */
  quota?: { tokens: number };
  state?: PolicyState;
  call?: Call;
  responses?: Response[];
  fallback_responses?: Response[];
  steps?: StepSpec[];
  compensate_on_failure?: boolean;
  waves?: WaveSpec[];
  parallelism?: number;
  expect?: FixtureExpect;
}

/** A fixture's golden: outcome fields by name (see simulate/golden.ts), and the opt-in delays. */
export interface FixtureExpect {
  /** The delays of the `retry_scheduled` events, in order: pins the backoff, which the outcome alone does not show. */
  delays_ms?: number[];
  [key: string]: unknown;
}

/** Every call of a fixture with its responses, and where it is: the call, each step, each wave's call (compensations are in their step). */
export function fixtureCalls(fixture: Fixture): { spec: StepSpec; path: PathSegment[] }[] {
  const calls: { spec: StepSpec; path: PathSegment[] }[] = [];
  if (fixture.call && fixture.responses) calls.push({ spec: { call: fixture.call, responses: fixture.responses, fallback_responses: fixture.fallback_responses }, path: [] });
  // Indexed loops: lint walks 10,000 fixtures once, mostly before V8 has optimized this.
  const steps = fixture.steps ?? [];
  for (let i = 0; i < steps.length; i++) calls.push({ spec: steps[i] as StepSpec, path: ["steps", i] });
  const waves = fixture.waves ?? [];
  for (let w = 0; w < waves.length; w++) {
    const waveCalls = (waves[w] as WaveSpec).calls;
    for (let c = 0; c < waveCalls.length; c++) calls.push({ spec: waveCalls[c] as StepSpec, path: ["waves", w, "calls", c] });
  }
  return calls;
}
