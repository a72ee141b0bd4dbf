/** SPEC 18: Envoy's retry budget and gRPC's retry throttling (A6), by their published figures and through the dispatcher. */
import { describe, expect, it } from "vitest";
import { VirtualClock } from "failbook-runtime/engine/clock.js";
import { createDispatcher, type AttemptFn } from "failbook-runtime/engine/dispatch.js";
import { RetryBudget } from "failbook-runtime/engine/policies/retry-budget.js";
import { RetryThrottle } from "failbook-runtime/engine/policies/retry-throttling.js";
import { seededRandom } from "failbook-runtime/engine/random.js";
import type { Response } from "failbook-runtime/model/fixture.js";
import { CALL, err, ok, playbook, REGISTRY, replay, retry } from "./helpers/dispatch.js";

describe("retry budget (Envoy)", () => {
  it.each([
    // Envoy's own example: 20 % with a minimum of 3.
    { percent: 20, min: 3, calls: 25, limit: 5 },
    { percent: 20, min: 3, calls: 2, limit: 3 },
    { percent: 20, min: 3, calls: 0, limit: 3 },
    { percent: 20, min: 3, calls: 24, limit: 4 },
    { percent: 50, min: 0, calls: 7, limit: 3 },
    { percent: 100, min: 1, calls: 1_000_000, limit: 1_000_000 },
  ])("$percent % with a minimum of $min allows $limit retries at $calls calls in progress", ({ percent, min, calls, limit }) => {
    expect(new RetryBudget({ percent, min_concurrency: min }).limit(calls)).toBe(limit);
  });

  it("at 25 calls in progress, 5 retries start and the 6th is refused; a dispatch already retrying keeps its place", () => {
    const budget = new RetryBudget({ percent: 20, min_concurrency: 3 });
    for (let i = 0; i < 25; i++) budget.callStarted();
    const started = [];
    for (let i = 0; i < 6; i++) {
      const allowed = budget.allows(false);
      started.push(allowed);
      if (allowed) budget.retryStarted();
    }
    expect(started).toEqual([true, true, true, true, true, false]);
    expect(budget.allows(true)).toBe(true);
    // A retrying dispatch ends: its place is free again.
    budget.callEnded(true);
    expect(budget.limit()).toBe(4);
    expect(budget.allows(false)).toBe(false);
    budget.callEnded(true);
    expect(budget.allows(false)).toBe(true);
  });

  it("counts a retry waiting out its delay: concurrent dispatches beyond the budget end exhausted, reason retry_budget", async () => {
    // Five calls in progress at once (20 % of 5 is 1, so the minimum of 3 holds): each fails,
    // wants a retry, and waits in backoff on a clock that only moves when the test says so.
    const gate = manualClock();
    const dispatcher = createDispatcher({
      registry: REGISTRY,
      playbook: playbook({ timeout: retry(1, [1000]) }, { retry_budget: { percent: 20, min_concurrency: 3 } }),
      clock: gate.clock,
      random: seededRandom(0),
    });
    const attempt: AttemptFn = (_call, n) => (n === 1 ? err("timeout") : ok());
    const runs = Array.from({ length: 5 }, (_, i) => dispatcher.dispatch({ ...CALL, id: `c${i}` }, attempt));
    await gate.settled();
    expect(dispatcher.policies.budget?.retriesInProgress).toBe(3);
    gate.release();
    const results = await Promise.all(runs);
    expect(results.map((r) => r.outcome.kind)).toEqual(["recovered", "recovered", "recovered", "exhausted", "exhausted"]);
    expect(results[3].outcome.reason).toBe("retry_budget");
    expect(results[3].events.at(-1)).toMatchObject({ type: "retry_budget_exhausted", verdict: "timeout", retries_in_progress: 3, limit: 3, calls_in_progress: 5 });
    expect(dispatcher.policies.budget?.callsInProgress).toBe(0);
    expect(dispatcher.policies.budget?.retriesInProgress).toBe(0);
  });
});

describe("retry throttling (gRPC A6)", () => {
  it("max_tokens 10, token_ratio 0.1: five straight failures from a full bucket throttle retries", () => {
    const throttle = new RetryThrottle({ max_tokens: 10, token_ratio: 0.1 });
    const allowed: boolean[] = [];
    for (let i = 0; i < 6; i++) {
      throttle.failed();
      allowed.push(throttle.allowsRetry());
    }
    expect(allowed).toEqual([true, true, true, true, false, false]);
    expect(throttle.tokens).toBe(4);
    // Each success adds 0.1, exactly: eleven of them lift 4 to 5.1, above the half.
    for (let i = 0; i < 10; i++) throttle.succeeded();
    expect([throttle.tokens, throttle.allowsRetry()]).toEqual([5, false]);
    throttle.succeeded();
    expect([throttle.tokens, throttle.allowsRetry()]).toEqual([5.1, true]);
  });

  it.each([
    { what: "never below 0", max: 3, ratio: 1, failures: 10, successes: 0, tokens: 0 },
    { what: "never above max_tokens", max: 3, ratio: 1, failures: 0, successes: 10, tokens: 3 },
    { what: "thousandths, without drift", max: 100, ratio: 0.001, failures: 1, successes: 999, tokens: 99.999 },
  ])("tokens: $what", ({ max, ratio, failures, successes, tokens }) => {
    const throttle = new RetryThrottle({ max_tokens: max, token_ratio: ratio });
    for (let i = 0; i < failures; i++) throttle.failed();
    for (let i = 0; i < successes; i++) throttle.succeeded();
    expect(throttle.tokens).toBe(tokens);
  });

  it("through the dispatcher: retryable failures take tokens across calls, then the retry ends exhausted, reason retry_throttled", async () => {
    const clock = new VirtualClock();
    const dispatcher = createDispatcher({
      registry: REGISTRY,
      playbook: playbook({ timeout: retry(5, [10, 10, 10, 10, 10]), refused: { action: "fail" } }, { retry_throttling: { max_tokens: 10, token_ratio: 0.1 } }),
      clock,
      random: seededRandom(0),
      state: { throttling: { tokens: 7 } },
    });
    const run = (responses: Response[]) => dispatcher.dispatch(CALL, replay(clock, responses));
    // A failure that is not retryable takes nothing.
    await run([err("refused")]);
    expect(dispatcher.policies.throttle?.tokens).toBe(7);
    const r = await run([err("timeout"), err("timeout"), ok()]);
    expect(r.outcome).toMatchObject({ kind: "exhausted", reason: "retry_throttled", retried: 1, attempts: 2 });
    expect(r.events.at(-1)).toMatchObject({ type: "retry_throttled", verdict: "timeout", tokens: 5, threshold: 5 });
  });
});

/** A clock whose sleeps wait until the test releases them: retries stay "waiting in backoff". */
function manualClock() {
  let time = 0;
  const waiting: (() => void)[] = [];
  let release = false;
  const clock = {
    now: () => time,
    sleep: (ms: number) =>
      new Promise<void>((resolve) => {
        const go = () => {
          time += ms;
          resolve();
        };
        if (release) go();
        else waiting.push(go);
      }),
  };
  return {
    clock,
    /** Let every promise that can run, run. */
    settled: () => new Promise<void>((resolve) => setImmediate(resolve)),
    release: () => {
      release = true;
      for (const go of waiting.splice(0)) go();
    },
  };
}
