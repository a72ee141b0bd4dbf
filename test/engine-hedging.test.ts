/**
 * SPEC 18: hedging (gRPC A6's hedgingPolicy). The race alone on a virtual clock, as a table
 * (who answers first, what is sent when, what is cancelled), on a real clock (the cancelled
 * hedge's AbortSignal fires), and through the dispatcher with the other policies.
 */
import { describe, expect, it } from "vitest";
import { realClock, VirtualClock } from "failbook-runtime/engine/clock.js";
import { createDispatcher, type AttemptFn } from "failbook-runtime/engine/dispatch.js";
import { Hedging, race, type HedgeAnswer } from "failbook-runtime/engine/policies/hedging.js";
import { seededRandom } from "failbook-runtime/engine/random.js";
import type { Response } from "failbook-runtime/model/fixture.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import type { Registry } from "failbook-runtime/model/registry.js";
import { CALL, dispatchScenario, err, ok, playbook, REGISTRY, replay, retry } from "./helpers/dispatch.js";

/** A scripted hedge: how long it takes and how its answer is judged. */
type Script = [latency: number, answer: HedgeAnswer];

async function runRace(script: Script[], policy: { max_attempts: number; delay_ms?: number }, mayHedge: (sent: number) => boolean = () => true) {
  const clock = new VirtualClock();
  const sentAt: number[] = [];
  const answered: string[] = [];
  const cancelled: number[] = [];
  const signals: { aborted: boolean }[] = [];
  const end = await race(clock, new Hedging({ tools: "t", ...policy }), {
    send: (i, signal) => {
      sentAt.push(clock.now());
      signals[i] = signal;
      clock.advance(script[i - 1][0]);
      return script[i - 1][1];
    },
    judge: (answer, i) => {
      answered.push(`${i}@${clock.now()}`);
      return answer;
    },
    mayHedge: () => mayHedge(sentAt.length),
    cancelled: (i) => cancelled.push(i),
  });
  return { end: { i: end.i, how: end.how, sent: end.sent, throttled: end.throttled }, at: clock.now(), sentAt, answered, cancelled, aborted: signals.flatMap((s, i) => (s?.aborted ? [i] : [])) };
}

describe("the hedging race on a virtual clock", () => {
  it.each([
    {
      what: "each delay_ms without an answer sends the next; the first success wins and the slower one is cancelled",
      script: [[500, "won"], [50, "won"], [10, "won"]] as Script[],
      policy: { max_attempts: 3, delay_ms: 100 },
      end: { i: 2, how: "won", sent: 2, throttled: false },
      at: 150,
      sentAt: [0, 100],
      answered: ["2@150"],
      cancelled: [1],
    },
    {
      what: "delay_ms 0 sends every hedge at once; the fastest wins",
      script: [[300, "won"], [200, "won"], [100, "won"]] as Script[],
      policy: { max_attempts: 3 },
      end: { i: 3, how: "won", sent: 3, throttled: false },
      at: 100,
      sentAt: [0, 0, 0],
      answered: ["3@100"],
      cancelled: [1, 2],
    },
    {
      what: "a hedge is sent up to max_attempts in all, then the race waits for those in flight",
      script: [[900, "won"], [800, "won"]] as Script[],
      policy: { max_attempts: 2, delay_ms: 100 },
      end: { i: 1, how: "won", sent: 2, throttled: false },
      at: 900,
      sentAt: [0, 100],
      answered: ["1@900"],
      cancelled: [2],
    },
    {
      what: "a non-fatal failure sends the next hedge at once, without waiting out delay_ms",
      script: [[50, "non_fatal"], [30, "won"]] as Script[],
      policy: { max_attempts: 3, delay_ms: 1000 },
      end: { i: 2, how: "won", sent: 2, throttled: false },
      at: 80,
      sentAt: [0, 50],
      answered: ["1@50", "2@80"],
      cancelled: [],
    },
    {
      what: "a fatal failure ends the race and cancels the hedges in flight",
      script: [[500, "won"], [50, "fatal"], [10, "won"]] as Script[],
      policy: { max_attempts: 3, delay_ms: 100 },
      end: { i: 2, how: "fatal", sent: 2, throttled: false },
      at: 150,
      sentAt: [0, 100],
      answered: ["2@150"],
      cancelled: [1],
    },
    {
      what: "every hedge failing non-fatally ends the race on the last failure",
      script: [[50, "non_fatal"], [60, "non_fatal"]] as Script[],
      policy: { max_attempts: 2, delay_ms: 100 },
      end: { i: 2, how: "non_fatal", sent: 2, throttled: false },
      at: 110,
      sentAt: [0, 50],
      answered: ["1@50", "2@110"],
      cancelled: [],
    },
    {
      what: "an answer at the very moment the next hedge is due comes first: no hedge is sent",
      script: [[100, "won"]] as Script[],
      policy: { max_attempts: 3, delay_ms: 100 },
      end: { i: 1, how: "won", sent: 1, throttled: false },
      at: 100,
      sentAt: [0],
      answered: ["1@100"],
      cancelled: [],
    },
    {
      what: "answers that arrive together are taken in send order",
      script: [[200, "non_fatal"], [100, "won"]] as Script[],
      policy: { max_attempts: 2, delay_ms: 100 },
      end: { i: 2, how: "won", sent: 2, throttled: false },
      at: 200,
      sentAt: [0, 100],
      answered: ["1@200", "2@200"],
      cancelled: [],
    },
  ])("$what", async ({ script, policy, end, at, sentAt, answered, cancelled }) => {
    const r = await runRace(script, policy);
    expect({ end: r.end, at: r.at, sentAt: r.sentAt, answered: r.answered, cancelled: r.cancelled }).toEqual({ end, at, sentAt, answered, cancelled });
    expect(r.aborted).toEqual(cancelled);
  });

  it.each([
    { what: "refuses every hedge after the first: the race waits for the first attempt", script: [[500, "won"]] as Script[], end: { i: 1, how: "won", sent: 1, throttled: false }, at: 500 },
    { what: "refuses the hedge a non-fatal failure would send: the race ends throttled", script: [[50, "non_fatal"]] as Script[], end: { i: 1, how: "non_fatal", sent: 1, throttled: true }, at: 50 },
  ])("retry throttling $what", async ({ script, end, at }) => {
    const r = await runRace(script, { max_attempts: 3, delay_ms: 100 }, (sent) => sent < 1);
    expect({ end: r.end, at: r.at, sentAt: r.sentAt }).toEqual({ end, at, sentAt: [0] });
  });

  it("matches tools by glob or list, and non_fatal by class or code", () => {
    const hedging = new Hedging({ tools: ["search.*", "geo.lookup"], max_attempts: 2, non_fatal: ["transient", "rate_limited"] });
    expect(["search.web", "geo.lookup", "geo.route", "payments.charge"].map((t) => hedging.hedges(t))).toEqual([true, true, false, false]);
    expect([hedging.isNonFatal("transient", "timeout"), hedging.isNonFatal("throttling", "rate_limited"), hedging.isNonFatal("permanent", "refused"), hedging.isNonFatal(undefined, "x")]).toEqual([true, true, false, false]);
  });
});

describe("the hedging race on a real clock (production)", () => {
  it("races real promises: the faster hedge wins, and the slow attempt's AbortSignal fires", async () => {
    const clock = realClock();
    const signals: AbortSignal[] = [];
    const latency = [400, 10];
    const end = await race(clock, new Hedging({ tools: "t", max_attempts: 2, delay_ms: 30 }), {
      send: (i, signal) => {
        signals[i] = signal as AbortSignal;
        return new Promise<string>((resolve) => setTimeout(() => resolve(`answer ${i}`), latency[i - 1]));
      },
      judge: () => "won",
      mayHedge: () => true,
      cancelled: () => {},
    });
    expect(end).toMatchObject({ answer: "answer 2", i: 2, how: "won", sent: 2 });
    expect([signals[1].aborted, signals[2].aborted]).toEqual([true, false]);
    expect((signals[1].reason as Error).name).toBe("AbortError");
  });
});

const HEDGE_REGISTRY: Registry = {
  ...REGISTRY,
  verdicts: [{ code: "attempt_timed_out", class: "transient", retryable: true, match: [{ kind: "attempt_timeout" }] }, { code: "circuit_open", class: "permanent", retryable: false, match: [{ kind: "circuit_open" }] }, ...REGISTRY.verdicts],
};
const hedged = (extra: Partial<Playbook> = {}, hedging: Partial<NonNullable<Playbook["hedging"]>> = {}): Playbook =>
  playbook({ timeout: retry(3), attempt_timed_out: retry(3), refused: { action: "fail" }, circuit_open: { action: "fail" } }, { hedging: { tools: "payments.*", max_attempts: 3, delay_ms: 100, non_fatal: ["transient"], ...hedging }, ...extra });

describe("hedging through the dispatcher", () => {
  it("counts every hedge sent in attempts, marks hedges on their attempt events, and ends succeeded when the first answer wins", async () => {
    const r = await dispatchScenario({ playbook: hedged(), responses: [ok(500), ok(250), ok(10)] });
    expect(r.outcome).toMatchObject({ kind: "succeeded", attempts: 3, retried: 0, elapsed_ms: 210 });
    expect(r.events.map((e) => [e.t, e.type, "n" in e ? e.n : e.type === "hedge_cancelled" ? e.attempt : null, "hedge" in e ? e.hedge : false])).toEqual([
      [210, "attempt", 3, true],
      [210, "hedge_cancelled", 1, false],
      [210, "hedge_cancelled", 2, true],
    ]);
  });

  it("a non-fatal failure before the winner makes it recovered; the failure is classified but not retried", async () => {
    const r = await dispatchScenario({ playbook: hedged({}, { delay_ms: 1000 }), responses: [err("timeout", {}, 50), ok(30)] });
    expect(r.outcome).toMatchObject({ kind: "recovered", attempts: 2, retried: 0, elapsed_ms: 80 });
    expect(r.events.filter((e) => e.type === "failure_classified")).toEqual([{ t: 50, type: "failure_classified", verdict: "timeout", attempt: 1, action: "retry_with_backoff" }]);
  });

  it("a fatal failure cancels the hedges in flight and goes to its verdict's action", async () => {
    const r = await dispatchScenario({ playbook: hedged(), responses: [ok(500), err("refused", {}, 50)] });
    expect(r.outcome).toMatchObject({ kind: "failed", verdict: "refused", attempts: 2, elapsed_ms: 150 });
    expect(r.events.map((e) => e.type)).toEqual(["attempt", "failure_classified", "hedge_cancelled"]);
  });

  it("its retries are its hedges: when every hedge fails non-fatally, the retry action is refused (reason hedged)", async () => {
    const r = await dispatchScenario({ playbook: hedged(), responses: [err("timeout", {}, 10), err("timeout", {}, 10), err("timeout", {}, 10)] });
    expect(r.outcome).toMatchObject({ kind: "exhausted", reason: "hedged", attempts: 3, retried: 0, elapsed_ms: 30 });
    expect(r.events.at(-1)).toEqual({ t: 30, type: "retry_suppressed", reason: "hedged", verdict: "timeout" });
  });

  it.each([
    { what: "a tools: entry declares the tool idempotent: false", extra: { tools: { "payments.*": { idempotent: false } } }, call: {} },
    { what: "the call says idempotent: false", extra: {}, call: { idempotent: false } },
    { what: "the tool is not hedged", extra: {}, call: { tool: "ledger.charge" } },
  ])("is never hedged when $what", async ({ extra, call }) => {
    const r = await dispatchScenario({ playbook: hedged(extra), call, responses: [ok(500)] });
    expect(r.outcome).toMatchObject({ kind: "succeeded", attempts: 1, elapsed_ms: 500 });
    expect(r.events.some((e) => e.type === "hedge_cancelled" || ("hedge" in e && e.hedge))).toBe(false);
  });

  it("applies the attempt timeout to each hedge", async () => {
    const r = await dispatchScenario({ registry: HEDGE_REGISTRY, playbook: hedged({ attempt_timeout_ms: 300 }, { max_attempts: 2 }), responses: [ok(1000), ok(250)] });
    // Hedge 2 goes at 100 and answers at 350; attempt 1 timed out at 300, a non-fatal failure with nothing more to send.
    expect(r.outcome).toMatchObject({ kind: "recovered", attempts: 2, elapsed_ms: 350 });
    expect(r.events.filter((e) => e.type === "attempt")).toMatchObject([
      { t: 300, n: 1, status: "error", error_kind: "attempt_timeout", latency_ms: 300 },
      { t: 350, n: 2, status: "ok", latency_ms: 250, hedge: true },
    ]);
  });

  it("takes retry-throttling tokens for failed hedges, and none from the retry quota", async () => {
    const clock = new VirtualClock();
    const dispatcher = createDispatcher({
      registry: REGISTRY,
      playbook: hedged({ retry_throttling: { max_tokens: 10, token_ratio: 0.5 }, retry_quota: { capacity: 10, cost: 5 } }),
      clock,
      random: seededRandom(0),
    });
    const r = await dispatcher.dispatch(CALL, replay(clock, [err("timeout", {}, 10), err("timeout", {}, 10), ok(10)]));
    expect(r.outcome).toMatchObject({ kind: "recovered", attempts: 3 });
    expect(dispatcher.policies.throttle?.tokens).toBe(8.5);
    expect(dispatcher.quota?.tokens).toBe(10);
  });

  it("stops hedging when retry throttling is at or below half: the failure ends exhausted, reason retry_throttled", async () => {
    const clock = new VirtualClock();
    const dispatcher = createDispatcher({ registry: REGISTRY, playbook: hedged({ retry_throttling: { max_tokens: 10, token_ratio: 0.1 } }), clock, random: seededRandom(0), state: { throttling: { tokens: 6 } } });
    // The first failure, before delay_ms, takes the sixth token: the hedge it would send at once is refused.
    const r = await dispatcher.dispatch(CALL, replay(clock, [err("timeout", {}, 50)]));
    expect(r.outcome).toMatchObject({ kind: "exhausted", reason: "retry_throttled", attempts: 1, elapsed_ms: 50 });
    expect(r.events.at(-1)).toMatchObject({ type: "retry_throttled", verdict: "timeout", tokens: 5, threshold: 5 });
  });

  it("admits each hedge through the breakers: one opened by a hedge's failure short-circuits the next, which is fatal here", async () => {
    const clock = new VirtualClock();
    const dispatcher = createDispatcher({
      registry: HEDGE_REGISTRY,
      playbook: hedged({ circuit_breakers: { payments: { tools: "payments.*", failure_ratio: 0.5, minimum_throughput: 1, break_ms: 10_000 } } }),
      clock,
      random: seededRandom(0),
    });
    const r = await dispatcher.dispatch(CALL, replay(clock, [err("timeout", {}, 10), ok(10)]));
    expect(r.outcome).toMatchObject({ kind: "failed", verdict: "circuit_open", attempts: 1 });
    expect(r.events.map((e) => e.type)).toEqual(["attempt", "failure_classified", "breaker_opened", "attempt", "failure_classified"]);
    expect(r.events[3]).toMatchObject({ n: 2, short_circuited: true, hedge: true });
  });

  it("a throw from the attempt function ends the dispatch, and cancels the hedges in flight", async () => {
    const clock = realClock();
    const signals: AbortSignal[] = [];
    const dispatcher = createDispatcher({ registry: REGISTRY, playbook: hedged({}, { delay_ms: 0 }), clock, random: seededRandom(0) });
    const attempt: AttemptFn = (_call, n, _key, context) => {
      signals.push(context.signal as AbortSignal);
      return n === 2 ? Promise.reject(new Error("adapter bug")) : new Promise<Response>((resolve) => setTimeout(() => resolve(ok()), 200));
    };
    await expect(dispatcher.dispatch(CALL, attempt)).rejects.toThrow("adapter bug");
    expect(signals.map((s) => s.aborted)).toEqual([true, true, true]);
  });
});
