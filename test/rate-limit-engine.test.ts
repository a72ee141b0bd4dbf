/**
 * Rate limits in the dispatcher (SPEC 22): a token before every attempt, waits on the
 * dispatcher's clock, `when_empty: fail`, `max_wait_ms` and the deadline, headers that correct
 * the bucket, `adaptive: aws` slowing after a throttling answer.
 */
import { describe, expect, it } from "vitest";
import { VirtualClock } from "failbook-runtime/engine/clock.js";
import { createDispatcher, type Dispatcher } from "failbook-runtime/engine/dispatch.js";
import { seededRandom } from "failbook-runtime/engine/random.js";
import type { RateLimitPolicy } from "failbook-runtime/model/playbook.js";
import type { Registry } from "failbook-runtime/model/registry.js";
import { CALL, err, ok, playbook, REGISTRY, replay, retry } from "./helpers/dispatch.js";

const registry: Registry = {
  ...REGISTRY,
  classes: { ...REGISTRY.classes, throttling: { max_retries: 5 } },
  verdicts: [
    { code: "rate_limited_locally", class: "policy", retryable: false, match: [{ kind: "rate_limited" }] },
    { code: "throttled", class: "throttling", retryable: true, match: [{ http_status: 429 }] },
    ...REGISTRY.verdicts,
  ],
};

function dispatcherWith(limit: RateLimitPolicy, clock = new VirtualClock()): { d: Dispatcher; clock: VirtualClock } {
  const pb = playbook({ server: retry(3, [100]), throttled: retry(3, [100]), rate_limited_locally: { action: "fail" } }, { rate_limits: { api: limit } });
  return { d: createDispatcher({ registry, playbook: pb, clock, random: seededRandom(1) }), clock };
}

const types = (events: { type: string }[]) => events.map((e) => e.type);

describe("a token bucket", () => {
  it("takes a token before each attempt and waits for the next one on the dispatcher's clock", async () => {
    const { d, clock } = dispatcherWith({ tools: "payments.*", limit: { requests: 2, per_ms: 1000 } });
    expect((await d.dispatch(CALL, () => ok())).events).toHaveLength(1);
    expect((await d.dispatch(CALL, () => ok())).events).toHaveLength(1);
    const third = await d.dispatch(CALL, () => ok());
    expect(third.events[0]).toMatchObject({ type: "rate_limit_waited", limit: "api", ms: 500 });
    expect(third.outcome.kind).toBe("succeeded");
    expect(clock.now()).toBe(500);
  });

  it("retries take tokens too: the upstream counts attempts", async () => {
    const { d, clock } = dispatcherWith({ tools: "payments.*", limit: { requests: 1, per_ms: 1000 } });
    const result = await d.dispatch(CALL, replay(clock, [err("x", { http_status: 503 }), ok()]));
    expect(result.outcome.kind).toBe("recovered");
    // The retry's 100 ms backoff, then 900 ms more for its token.
    expect(result.events.find((e) => e.type === "rate_limit_waited")).toMatchObject({ ms: 900 });
  });

  it("an attempt an open breaker refuses takes no token: the bucket is whole when the breaker lets calls through again", async () => {
    const clock = new VirtualClock();
    const pb = playbook(
      { server: { action: "fail" }, unknown: { action: "fail" } },
      { rate_limits: { api: { tools: "payments.*", limit: { requests: 2, per_ms: 60_000 }, when_empty: "fail" } }, circuit_breakers: { b: { tools: "payments.*", break_ms: 1000 } } },
    );
    const d = createDispatcher({ registry, playbook: pb, clock, random: seededRandom(1), state: { breakers: { b: "open" } } });
    for (let i = 0; i < 5; i++) {
      const refused = await d.dispatch(CALL, () => ok());
      expect(refused.outcome.kind).toBe("failed");
      expect(types(refused.events)).not.toContain("rate_limited");
    }
    clock.advance(1000);
    const sent: number[] = [];
    for (let i = 0; i < 2; i++) expect((await d.dispatch(CALL, () => (sent.push(i), ok()))).outcome.kind).toBe("succeeded");
    expect(sent).toEqual([0, 1]);
  });

  it("when_empty: fail sends nothing: the attempt fails at once as rate_limited, classified by the registry", async () => {
    const { d } = dispatcherWith({ tools: "payments.*", limit: { requests: 1, per_ms: 60_000 }, when_empty: "fail" });
    await d.dispatch(CALL, () => ok());
    let sent = 0;
    const result = await d.dispatch(CALL, () => (sent++, ok()));
    expect(sent).toBe(0);
    expect(result.outcome).toMatchObject({ kind: "failed", verdict: "rate_limited_locally", attempts: 0 });
    expect(types(result.events).slice(0, 2)).toEqual(["rate_limited", "attempt"]);
    expect(result.events[1]).toMatchObject({ error_kind: "rate_limited", short_circuited: true });
  });

  it("never waits past max_wait_ms or the dispatch's deadline", async () => {
    const { d, clock } = dispatcherWith({ tools: "payments.*", limit: { requests: 1, per_ms: 10_000 }, max_wait_ms: 1000 });
    await d.dispatch(CALL, () => ok());
    const refused = await d.dispatch(CALL, () => ok());
    expect(refused.outcome.verdict).toBe("rate_limited_locally");
    expect(clock.now()).toBe(0);
    const { d: d2, clock: c2 } = dispatcherWith({ tools: "payments.*", limit: { requests: 1, per_ms: 10_000 } });
    await d2.dispatch(CALL, () => ok());
    const late = await d2.dispatch(CALL, () => ok(), { deadlineMs: 5_000 });
    expect(late.outcome.verdict).toBe("rate_limited_locally");
    expect(c2.now()).toBe(0);
  });

  it("a tool no limit names is not paced", async () => {
    const { d } = dispatcherWith({ tools: "search.*", limit: { requests: 1, per_ms: 60_000 }, when_empty: "fail" });
    for (let i = 0; i < 5; i++) expect((await d.dispatch(CALL, () => ok())).outcome.kind).toBe("succeeded");
  });
});

describe("from_headers", () => {
  it("GitHub's remaining 0 and reset: the next call waits for the reset, not a 429", async () => {
    const { d, clock } = dispatcherWith({ tools: "payments.*", limit: { requests: 5000, per_ms: 3_600_000 }, from_headers: "github" });
    const reset = String(Math.floor(clock.now() / 1000) + 30);
    await d.dispatch(CALL, () => ({ status: "ok", value: 1, headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset, "x-ratelimit-limit": "5000" } }));
    const next = await d.dispatch(CALL, () => ok());
    expect(next.events[0]).toMatchObject({ type: "rate_limit_waited", ms: 30_000 });
  });

  it("OpenAI's remaining and reset duration, read from a 429's headers", async () => {
    const { d, clock } = dispatcherWith({ tools: "payments.*", limit: { requests: 100, per_ms: 60_000 }, from_headers: "openai" });
    const result = await d.dispatch(CALL, replay(clock, [err("x", { http_status: 429, headers: { "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1.5s" } }), ok()]));
    expect(result.outcome.kind).toBe("recovered");
    expect(result.events.find((e) => e.type === "rate_limit_waited")).toMatchObject({ ms: 1400 });
  });

  it.each([
    ["garbage", { "x-ratelimit-remaining": "lots" }],
    ["a negative reset", { "x-ratelimit-remaining": "0", "x-ratelimit-reset": "-5" }],
    ["a far-future reset", { "x-ratelimit-remaining": "0", "x-ratelimit-reset": "99999999999" }],
  ])("%s is ignored with an event, never a wait", async (_name, headers) => {
    const { d, clock } = dispatcherWith({ tools: "payments.*", limit: { requests: 10, per_ms: 1000 }, from_headers: "github" });
    const first = await d.dispatch(CALL, () => ({ status: "ok", value: 1, headers }));
    expect(types(first.events)).toContain("rate_limit_header_ignored");
    const next = await d.dispatch(CALL, () => ok());
    expect(types(next.events)).not.toContain("rate_limit_waited");
    expect(clock.now()).toBe(0);
  });
});

describe("adaptive: aws", () => {
  it("is off until a throttling answer, then paces the next attempts", async () => {
    const { d, clock } = dispatcherWith({ tools: "payments.*", adaptive: "aws" });
    for (let i = 0; i < 20; i++) expect(types((await d.dispatch(CALL, () => ok())).events)).toEqual(["attempt"]);
    const throttled = await d.dispatch(CALL, replay(clock, [err("x", { http_status: 429 }), err("x", { http_status: 429 }), ok()]));
    expect(throttled.outcome.kind).toBe("recovered");
    expect(types(throttled.events)).toContain("rate_limit_waited");
  });
});

describe("adaptive: aws under max_wait_ms and a deadline", () => {
  it("a wait the SDK's loop would make past max_wait_ms is refused before it starts", async () => {
    const { d, clock } = dispatcherWith({ tools: "payments.*", adaptive: "aws", max_wait_ms: 10 });
    // Throttled: the bucket turns on at the minimum fill rate (0.5 a second), so a token is seconds away.
    await d.dispatch(CALL, replay(clock, [err("x", { http_status: 429 }), ok()])).catch(() => undefined);
    const before = clock.now();
    const refused = await d.dispatch(CALL, () => ok());
    expect(refused.outcome.verdict).toBe("rate_limited_locally");
    expect(clock.now() - before).toBeLessThanOrEqual(10);
  });
});
