/** SPEC 24: `dispatcher.snapshot()`, every shared policy's state now as plain JSON, for a health endpoint. */
import { describe, expect, it } from "vitest";
import { VirtualClock } from "failbook-runtime/engine/clock.js";
import { createDispatcher, type AttemptFn } from "failbook-runtime/engine/dispatch.js";
import { seededRandom } from "failbook-runtime/engine/random.js";
import type { Response } from "failbook-runtime/model/fixture.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import type { DispatcherSnapshot } from "failbook-runtime/telemetry/snapshot.js";
import { CALL, err, ok, playbook, REGISTRY, retry } from "./helpers/dispatch.js";

const POLICIES: Partial<Playbook> = {
  circuit_breakers: {
    payments: { tools: "payments.*", failure_ratio: 0.5, minimum_throughput: 2, sampling_ms: 10_000, break_ms: 1000, max_break_ms: 4000 },
    search: { tools: "search.*", per: "tool", break_ms: 500 },
  },
  retry_budget: { percent: 20, min_concurrency: 3 },
  retry_throttling: { max_tokens: 10, token_ratio: 0.1 },
  retry_quota: { capacity: 20, cost: 5 },
  rate_limits: { api: { tools: "payments.*", limit: { requests: 10, per_ms: 1000 } }, s3: { tools: "s3.*", adaptive: "aws" } },
};

const e503 = (latency: number): Response => err("upstream", { http_status: 503 }, latency);

/** A dispatcher on a virtual clock; each attempt takes its response's latency and may look at the snapshot while in flight. */
function setUp() {
  const clock = new VirtualClock();
  const dispatcher = createDispatcher({ registry: REGISTRY, playbook: playbook({ server: retry(3, [100]) }, POLICIES), clock, random: seededRandom(0) });
  const during: DispatcherSnapshot[] = [];
  const attempt = (responses: Response[]): AttemptFn => (_call, n) => {
    during.push(dispatcher.snapshot());
    clock.advance(responses[n - 1].latency_ms ?? 0);
    return responses[n - 1];
  };
  return { clock, dispatcher, during, attempt };
}

describe("dispatcher.snapshot()", () => {
  it("shows every policy at rest: breakers closed since the start, a full budget, full buckets, an adaptive limiter off", () => {
    const { dispatcher } = setUp();
    expect(dispatcher.snapshot()).toEqual({
      at_ms: 0,
      breakers: [{ breaker: "payments", state: "closed", since_ms: 0, break_ms: 1000, longest_break_ms: 4000 }],
      retry_budget: { retries_in_progress: 0, calls_in_progress: 0, limit: 3, remaining: 3 },
      retry_throttling: { tokens: 10, max_tokens: 10, threshold: 5, retries_allowed: true },
      retry_quota: { tokens: 20, capacity: 20 },
      rate_limits: [
        { name: "api", tokens: 10, capacity: 10 },
        { name: "s3", tokens: null, capacity: null, adaptive: { active: false, tokens: 0, fill_rate: 0.5, capacity: 1 } },
      ],
      fleet: null,
    });
  });

  it("follows a failing dispatch: the retry in progress, tokens taken, the breaker open since it opened, then half-open when its break ends", async () => {
    const { clock, dispatcher, during, attempt } = setUp();
    const { outcome } = await dispatcher.dispatch(CALL, attempt([e503(10), e503(10), ok(10)]));
    expect(outcome.kind).toBe("escalated");
    // While the second attempt was in flight: one call, one retry in progress; one token of `api` taken 110 ms ago (refilled: 10 a second).
    expect(during[1]!.retry_budget).toEqual({ retries_in_progress: 1, calls_in_progress: 1, limit: 3, remaining: 2 });
    expect(during[1]!.rate_limits[0]).toEqual({ name: "api", tokens: 9, capacity: 10 });
    const after = dispatcher.snapshot();
    expect(after.at_ms).toBe(220);
    expect(after.breakers).toEqual([{ breaker: "payments", state: "open", since_ms: 120, break_ms: 1000, longest_break_ms: 4000 }]);
    expect(after.retry_budget).toEqual({ retries_in_progress: 0, calls_in_progress: 0, limit: 3, remaining: 3 });
    expect(after.retry_throttling).toEqual({ tokens: 8, max_tokens: 10, threshold: 5, retries_allowed: true });
    expect(after.retry_quota).toEqual({ tokens: 10, capacity: 20 });
    clock.advance(2000);
    expect(dispatcher.snapshot().breakers[0]).toEqual({ breaker: "payments", state: "half_open", since_ms: 1120, break_ms: 1000, longest_break_ms: 4000 });
  });

  it("shows a per-tool breaker once per tool it has seen, each with its own state", async () => {
    const { dispatcher, attempt } = setUp();
    await dispatcher.dispatch({ ...CALL, tool: "search.web" }, attempt([ok(5)]));
    await dispatcher.dispatch({ ...CALL, tool: "search.news" }, attempt([ok(5)]));
    expect(dispatcher.snapshot().breakers.filter((b) => b.breaker === "search")).toEqual([
      { breaker: "search", tool: "search.web", state: "closed", since_ms: 0, break_ms: 500, longest_break_ms: 500 },
      { breaker: "search", tool: "search.news", state: "closed", since_ms: 0, break_ms: 500, longest_break_ms: 500 },
    ]);
  });

  it("is plain JSON and changes nothing: two snapshots at one time agree, and the dispatches after one see the buckets they would have seen", async () => {
    const runs = async (look: boolean) => {
      const { clock, dispatcher, attempt } = setUp();
      const seen: DispatcherSnapshot[] = [];
      for (let i = 0; i < 5; i++) {
        clock.advance(37);
        if (look) seen.push(dispatcher.snapshot(), dispatcher.snapshot());
        await dispatcher.dispatch(CALL, attempt([e503(3), ok(3)]));
      }
      return { seen, last: dispatcher.snapshot() };
    };
    const looked = await runs(true);
    for (let i = 0; i < looked.seen.length; i += 2) expect(looked.seen[i]).toEqual(looked.seen[i + 1]);
    expect(JSON.parse(JSON.stringify(looked.last))).toEqual(looked.last);
    expect(looked.last).toEqual((await runs(false)).last);
  });

  it("is empty for a playbook without shared policies", () => {
    const dispatcher = createDispatcher({ registry: REGISTRY, playbook: playbook({}), clock: new VirtualClock() });
    expect(dispatcher.snapshot()).toEqual({ at_ms: 0, breakers: [], retry_budget: null, retry_throttling: null, retry_quota: null, rate_limits: [], fleet: null });
  });
});
