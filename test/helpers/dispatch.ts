/** A small registry and playbook builder, and a replaying attempt function, for engine tests. */
import type { Call, Response } from "failbook-runtime/model/fixture.js";
import type { CompensationAction, Playbook } from "failbook-runtime/model/playbook.js";
import type { Registry } from "failbook-runtime/model/registry.js";
import { VirtualClock } from "failbook-runtime/engine/clock.js";
import { createDispatcher, type AttemptFn, type DispatcherOptions, type DispatchResult } from "failbook-runtime/engine/dispatch.js";
import { seededRandom } from "failbook-runtime/engine/random.js";
import type { FleetTimers } from "failbook-runtime/engine/fleet/index.js";

export const REGISTRY: Registry = {
  apiVersion: "failbook/v1",
  kind: "Registry",
  name: "test",
  revision: 1,
  classes: { transient: { max_retries: 5 }, capped: { max_retries: 1 }, permanent: {}, policy: {} },
  verdicts: [
    { code: "timeout", class: "transient", retryable: true, summary: "Timed out.", recovery: "Retry with the same key.", safe_next_actions: ["verify"], unsafe_next_actions: ["new key"], match: [{ kind: "timeout" }] },
    { code: "server", class: "transient", retryable: true, side_effect: "none", match: [{ http_status: "5xx" }] },
    { code: "capped", class: "capped", retryable: true, match: [{ kind: "capped" }] },
    { code: "conflict", class: "permanent", retryable: false, side_effect: "committed", match: [{ kind: "conflict" }] },
    { code: "stale", class: "permanent", retryable: false, match: [{ kind: "stale" }] },
    { code: "denied", class: "policy", retryable: false, human_action_required: true, summary: "Denied by policy.", match: [{ kind: "denied" }] },
    { code: "refused", class: "permanent", retryable: false, match: [{ kind: "refused" }] },
    { code: "unknown", class: "permanent", retryable: false },
  ],
  fallback: "unknown",
};

export function playbook(verdicts: Record<string, CompensationAction>, extra: Partial<Playbook> = {}): Playbook {
  return { apiVersion: "failbook/v1", kind: "Playbook", name: "test", escalation_queue: "oncall", verdicts, ...extra };
}

export const retry = (max_retries: number, backoff_ms: number[] = [100, 200, 400, 800, 1600]): CompensationAction => ({ action: "retry_with_backoff", max_retries, backoff_ms });

export const err = (kind: string, more: Record<string, unknown> = {}, latency_ms?: number): Response => ({
  status: "error",
  error: { kind, ...more },
  ...(latency_ms === undefined ? {} : { latency_ms }),
});
export const ok = (latency_ms?: number): Response => ({ status: "ok", value: { ok: true }, ...(latency_ms === undefined ? {} : { latency_ms }) });

export const CALL: Call = { id: "call_1", tool: "payments.refund", args: { amount: 100 } };

/** Attempt `n` returns the `n`-th response (or fallback response) and takes its latency. */
export function replay(clock: VirtualClock, responses: readonly Response[], fallbacks: readonly Response[] = []): AttemptFn {
  return (_call, n, _key, context) => {
    const response = (context.fallback ? fallbacks : responses)[n - 1];
    if (!response) throw new Error(`no response for attempt ${n}${context.fallback ? " (fallback)" : ""}`);
    clock.advance(response.latency_ms ?? 0);
    return response;
  };
}

export interface Scenario {
  playbook: Playbook;
  registry?: Registry;
  call?: Partial<Call>;
  responses: Response[];
  fallback_responses?: Response[];
  seed?: number;
  options?: Partial<DispatcherOptions>;
}

export async function dispatchScenario(s: Scenario): Promise<DispatchResult> {
  const clock = new VirtualClock();
  const dispatcher = createDispatcher({ registry: s.registry ?? REGISTRY, playbook: s.playbook, clock, random: seededRandom(s.seed ?? 0), ...s.options });
  return dispatcher.dispatch({ ...CALL, ...s.call }, replay(clock, s.responses, s.fallback_responses), { runId: "run_1" });
}

/** Fleet timers a test fires by hand: the sync's tick and the end of its lease. */
export function manualFleetTimers() {
  let tick = () => {};
  let leaseEnds = () => {};
  const timers: FleetTimers = {
    every: (_ms, fire) => ((tick = fire), { stop: () => {} }),
    after: (_ms, fire) => ((leaseEnds = fire), { restart: () => {}, stop: () => {} }),
  };
  return { timers, tick: () => tick(), leaseEnds: () => leaseEnds() };
}

/** Resolves once the promises settled so far have run their callbacks. */
export const settle = () => new Promise((resolve) => setImmediate(resolve));
