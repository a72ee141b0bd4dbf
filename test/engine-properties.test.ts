/**
 * Properties of the dispatcher over random playbooks and response sequences: it always
 * ends, within the worst case; it never retries a committed or non-idempotent call; a
 * reversal never fires without a token; a seed fixes every event.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Call, Response } from "failbook-runtime/model/fixture.js";
import type { CompensationAction, Playbook } from "failbook-runtime/model/playbook.js";
import type { SideEffectState } from "failbook-runtime/model/registry.js";
import { isRetryAction } from "failbook-runtime/model/playbook.js";
import { VirtualClock } from "failbook-runtime/engine/clock.js";
import { createDispatcher, isIdempotent, type AttemptFn } from "failbook-runtime/engine/dispatch.js";
import { seededRandom } from "failbook-runtime/engine/random.js";
import { playbook, REGISTRY } from "./helpers/dispatch.js";

const CODES = REGISTRY.verdicts.map((v) => v.code);
const KINDS = ["capped", "conflict", "stale", "denied", "refused", "weird"];

/** `value` with the given weight, else one of `others`. */
const mostly = <T>(value: T, weight: number, ...others: T[]): fc.Arbitrary<T> => fc.oneof({ weight, arbitrary: fc.constant(value) }, { weight: 1, arbitrary: fc.constantFrom(...others) });

const backoff = fc.oneof(
  fc.record({ backoff_ms: fc.array(fc.nat(3000), { minLength: 1, maxLength: 4 }) }),
  fc.record({
    backoff: fc.oneof(
      fc.record({ strategy: fc.constant("exponential" as const), base_ms: fc.integer({ min: 1, max: 2000 }), cap_ms: fc.integer({ min: 1, max: 30000 }), jitter: fc.constantFrom("none" as const, "full" as const, "equal" as const) }),
      fc.record({ strategy: fc.constant("decorrelated" as const), base_ms: fc.integer({ min: 1, max: 2000 }), cap_ms: fc.integer({ min: 1, max: 30000 }) }),
    ),
  }),
);

const action: fc.Arbitrary<CompensationAction> = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.integer({ min: 1, max: 6 }), backoff).map(([max_retries, b]): CompensationAction => ({ action: "retry_with_backoff", max_retries, ...b })) },
  { weight: 1, arbitrary: fc.tuple(fc.nat(4), backoff).map(([max_retries, b]): CompensationAction => ({ action: "retry_with_hint", max_retries, hint: "narrow the query", ...b })) },
  { weight: 4, arbitrary: fc.constantFrom<CompensationAction>(
    { action: "refresh_evidence", then: "retry" },
    { action: "refresh_evidence", then: "abort" },
    { action: "restore_checkpoint", then: "retry" },
    { action: "escalate_to_human", queue: "review" },
    { action: "issue_reversal", reason: "undo" },
    { action: "deprecate_tool_call", reason: "replan", replan: true },
    { action: "fallback", tool: "backup.tool" },
    { action: "fail" },
    { action: "dead_letter", queue: "dlq" },
  ) },
);

const randomPlaybook: fc.Arbitrary<Playbook> = fc
  .record({
    // Every verdict gets an action, and one in ten goes missing (the runtime escalates those).
    verdicts: fc.tuple(...CODES.map(() => fc.option(action, { freq: 10, nil: undefined }))).map((actions) =>
      Object.fromEntries(actions.flatMap((a, i) => (a ? [[CODES[i], a] as const] : []))),
    ),
    budgets: fc.record(
      { retries: fc.nat(10), retry_seconds: fc.integer({ min: 0, max: 120 }), wall_ms: fc.integer({ min: 0, max: 300000 }), same_verdict_ceiling: fc.integer({ min: 1, max: 6 }) },
      { requiredKeys: [] },
    ),
    on_exhausted: fc.option(fc.constantFrom({ action: "escalate_to_human" as const, queue: "oncall" }, { action: "dead_letter" as const }), { nil: undefined }),
    tools: mostly<Playbook["tools"]>(undefined, 3, { "pay.*": { idempotent: false } }, { "other.*": { idempotent: false } }),
    empty_response_is_failure: fc.boolean(),
    honor_retry_after: fc.boolean(),
  })
  .map(({ verdicts, on_exhausted, tools, ...rest }) => playbook(verdicts, { ...rest, ...(on_exhausted ? { on_exhausted } : {}), ...(tools ? { tools } : {}) }));

const response: fc.Arbitrary<Response> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: mostly("timeout", 6, ...KINDS), side_effect_state: mostly<SideEffectState>("unknown", 4, "none", "committed"), retry_after_ms: fc.nat(5000) }, { requiredKeys: ["kind"] }).map((error): Response => ({ status: "error", error, latency_ms: 10 })) },
  { weight: 1, arbitrary: fc.constant<Response>({ status: "ok", value: 1, latency_ms: 5 }) },
  { weight: 1, arbitrary: fc.constant<Response>({ status: "ok" }) },
  { weight: 1, arbitrary: fc.constant<Response>({ status: "needs_input" }) },
);

const call: fc.Arbitrary<Call> = fc.record({
  id: fc.constant("c1"),
  tool: mostly("crm.lookup", 2, "pay.charge"),
  idempotent: mostly(true, 4, false),
  reversal_token: fc.option(fc.constant("rev_1"), { nil: undefined }),
});

const scenario = fc.record({
  playbook: randomPlaybook,
  call,
  responses: fc.array(response, { minLength: 1, maxLength: 8 }),
  fallbacks: fc.array(response, { minLength: 1, maxLength: 8 }),
  seed: fc.nat(),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

/** Responses repeat forever, so nothing but the playbook can end a dispatch. */
const cycling = (clock: VirtualClock, s: Scenario): AttemptFn => (_c, n, _k, context) => {
  const list = context.fallback ? s.fallbacks : s.responses;
  const r = list[(n - 1) % list.length];
  clock.advance(r.latency_ms ?? 0);
  return r;
};

async function run(s: Scenario) {
  const clock = new VirtualClock();
  const reversals: string[] = [];
  const dispatcher = createDispatcher({
    registry: REGISTRY,
    playbook: s.playbook,
    clock,
    random: seededRandom(s.seed),
    effects: { issueReversal: (_c, token) => void reversals.push(token) },
  });
  return { ...(await dispatcher.dispatch(s.call, cycling(clock, s), { runId: "run" })), reversals };
}

/** The most attempts the playbook allows: each verdict's retry limit, plus a refresh, per call; a call and its fallback. */
function worstCaseAttempts(pb: Playbook): number {
  let retries = 0;
  for (const [code, a] of Object.entries(pb.verdicts)) {
    if (!isRetryAction(a)) continue;
    const verdict = REGISTRY.verdicts.find((v) => v.code === code);
    const classMax = verdict ? REGISTRY.classes[verdict.class]?.max_retries : undefined;
    retries += Math.min(a.max_retries, classMax ?? Infinity);
  }
  if (pb.budgets?.retries !== undefined) retries = Math.min(retries, pb.budgets.retries);
  return 2 * (1 + 1 + retries);
}

describe("dispatch properties", () => {
  it("always ends, with no more attempts or retries than the worst case allows", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { outcome, events } = await run(s);
        expect(outcome.attempts).toBeLessThanOrEqual(worstCaseAttempts(s.playbook));
        if (s.playbook.budgets?.retries !== undefined) expect(outcome.retried).toBeLessThanOrEqual(s.playbook.budgets.retries);
        expect(outcome.attempts).toBe(events.filter((e) => e.type === "attempt").length);
        expect(outcome.retried).toBe(events.filter((e) => e.type === "retry_scheduled").length);
      }),
      { numRuns: 400 },
    );
  });

  it("never retries after a committed side effect, nor a non-idempotent call", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { events } = await run(s);
        let fallback = false;
        let last: Response | undefined;
        for (const e of events) {
          if (e.type === "fallback_started") fallback = true;
          if (e.type === "attempt") last = (fallback ? s.fallbacks : s.responses)[(e.n - 1) % (fallback ? s.fallbacks : s.responses).length];
          if (e.type !== "retry_scheduled") continue;
          expect(last?.status === "error" && last.error?.side_effect_state === "committed").toBe(false);
          expect(s.call.idempotent).not.toBe(false);
          if (!fallback) expect(isIdempotent(s.playbook, s.call)).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("never issues a reversal without the call's token", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { events, reversals, outcome } = await run(s);
        const issued = events.filter((e) => e.type === "reversal_issued");
        if (s.call.reversal_token === undefined) {
          expect(issued).toEqual([]);
          expect(reversals).toEqual([]);
          expect(outcome.kind).not.toBe("reversed");
        } else {
          expect(reversals).toEqual(issued.map(() => s.call.reversal_token));
        }
      }),
      { numRuns: 400 },
    );
  });

  it("gives the same events and outcome for the same seed", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const a = await run(s);
        const b = await run(s);
        expect(b.events).toEqual(a.events);
        expect(b.outcome).toEqual(a.outcome);
      }),
      { numRuns: 200 },
    );
  });
});
