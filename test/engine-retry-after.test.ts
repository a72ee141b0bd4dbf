/** SPEC 12: Retry-After as servers send it, which retry is the n-th, proportional jitter and floors. */
import { describe, expect, it } from "vitest";
import { formulaDelay } from "failbook-runtime/engine/backoff.js";
import { applyRetryAfter, parseHttpDate, parseHint, readRetryAfter } from "failbook-runtime/engine/retry-after.js";
import { seededRandom } from "failbook-runtime/engine/random.js";
import type { DispatchEvent } from "failbook-runtime/model/outcome.js";
import type { RetryAfterPolicy } from "failbook-runtime/model/playbook.js";
import { dispatchScenario, err, ok, playbook, retry } from "./helpers/dispatch.js";

const delays = (events: DispatchEvent[]) => events.flatMap((e) => (e.type === "retry_scheduled" ? [e.delay_ms] : []));

describe("reading a hint", () => {
  it("reads -ms headers as milliseconds and others as seconds, fractions allowed", () => {
    expect(parseHint("retry-after-ms", "1500", () => 0)).toBe(1500);
    expect(parseHint("x-ms-retry-after-ms", "20.9", () => 0)).toBe(20);
    expect(parseHint("retry-after", "2", () => 0)).toBe(2000);
    expect(parseHint("Retry-After", "0.25", () => 0)).toBe(250);
  });

  it("reads an HTTP date against the clock, and a past date or a negative value as now", () => {
    const now = Date.parse("Wed, 21 Oct 2026 07:28:00 GMT");
    expect(parseHint("retry-after", "Wed, 21 Oct 2026 07:28:30 GMT", () => now)).toBe(30_000);
    expect(parseHint("retry-after", "Wed, 21 Oct 2026 07:27:00 GMT", () => now)).toBe(0);
    expect(parseHint("retry-after", "-5", () => now)).toBe(0);
    expect(parseHttpDate("Wednesday, 21-Oct-26 07:28:30 GMT")).toBeDefined();
    expect(parseHttpDate("Wed Oct 21 07:28:30 2026")).toBe(Date.parse("Wed, 21 Oct 2026 07:28:30 GMT"));
  });

  it("refuses what is neither a number nor an HTTP date", () => {
    for (const value of ["soon", "", "1e400x", "2026-10-21", "12 seconds"]) expect(parseHint("retry-after", value, () => 0)).toBeUndefined();
    // A date in a milliseconds header is not a number of milliseconds.
    expect(parseHint("retry-after-ms", "Wed, 21 Oct 2026 07:28:30 GMT", () => 0)).toBeUndefined();
  });

  it("takes the first listed header present, compared in any case, then the error's retry_after_ms", () => {
    const error = { kind: "rate_limited", retry_after_ms: 9000, headers: { "Retry-After": "3", "RETRY-AFTER-MS": "1200" } };
    expect(readRetryAfter(error, undefined, 0).hintMs).toBe(1200);
    expect(readRetryAfter(error, { headers: ["retry-after"] }, 0).hintMs).toBe(3000);
    expect(readRetryAfter(error, { headers: ["x-other"] }, 0).hintMs).toBe(9000);
  });

  it("reads ms_headers as milliseconds although their names do not end in -ms (AWS's x-amz-retry-after)", () => {
    const error = { kind: "throttled", headers: { "X-Amz-Retry-After": "1500" } };
    expect(readRetryAfter(error, { headers: ["retry-after", "x-amz-retry-after"] }, 0).hintMs).toBe(1_500_000);
    expect(readRetryAfter(error, { headers: ["retry-after", "x-amz-retry-after"], ms_headers: ["x-amz-retry-after"] }, 0).hintMs).toBe(1500);
    // Milliseconds are a number, never a date.
    const dated = { kind: "throttled", headers: { "x-amz-retry-after": "Wed, 21 Oct 2026 07:28:30 GMT" } };
    expect(readRetryAfter(dated, { headers: ["x-amz-retry-after"], ms_headers: ["x-amz-retry-after"] }, 0).hintMs).toBeUndefined();
  });

  it("reads a date against the error's own date header first", () => {
    const error = { kind: "busy", headers: { date: "Wed, 21 Oct 2026 07:28:00 GMT", "retry-after": "Wed, 21 Oct 2026 07:28:10 GMT" } };
    expect(readRetryAfter(error, undefined, 0).hintMs).toBe(10_000);
  });

  it("counts an unreadable header as absent and says so", () => {
    const reading = readRetryAfter({ kind: "busy", headers: { "retry-after": "later" }, retry_after_ms: 700 }, undefined, 0);
    expect(reading).toEqual({ hintMs: 700, unreadable: [{ header: "retry-after", value: "later" }] });
  });
});

describe("what the hint does to the backoff", () => {
  it("mode max waits the longer, mode replace the hint even when shorter", () => {
    expect(applyRetryAfter(1000, 200, {})).toEqual({ kind: "delay", delayMs: 1000 });
    expect(applyRetryAfter(1000, 200, { mode: "replace" })).toEqual({ kind: "delay", delayMs: 200 });
    expect(applyRetryAfter(1000, undefined, { mode: "replace" })).toEqual({ kind: "delay", delayMs: 1000 });
  });

  it("above max_ms: ignore falls back to the backoff, cap waits max_ms (the default), give_up gives up", () => {
    expect(applyRetryAfter(100, 90_000, { max_ms: 60_000, above_max: "ignore" })).toEqual({ kind: "delay", delayMs: 100 });
    expect(applyRetryAfter(100, 90_000, { max_ms: 60_000 })).toEqual({ kind: "delay", delayMs: 60_000 });
    expect(applyRetryAfter(100, 90_000, { max_ms: 60_000, above_max: "give_up" })).toEqual({ kind: "give_up", hintMs: 90_000 });
  });

  it("max_over_backoff_ms clamps the hint first (the AWS SDK's backoff + 5 s)", () => {
    expect(applyRetryAfter(100, 90_000, { max_over_backoff_ms: 5000 })).toEqual({ kind: "delay", delayMs: 5100 });
    expect(applyRetryAfter(100, 90_000, { max_over_backoff_ms: 5000, max_ms: 5000, above_max: "give_up" })).toEqual({ kind: "give_up", hintMs: 5100 });
  });
});

describe("in a dispatch", () => {
  const rateLimited = (headers: Record<string, string>) => err("timeout", { headers });

  it("waits the header's hint over a shorter backoff", async () => {
    const { events } = await dispatchScenario({ playbook: playbook({ timeout: retry(2, [100, 100]) }), responses: [rateLimited({ "retry-after": "2" }), ok()] });
    expect(delays(events)).toEqual([2000]);
  });

  it("gives up on a hint above max_ms with give_up, exhausted with reason retry_after_too_long", async () => {
    const { outcome, events } = await dispatchScenario({
      playbook: playbook({ timeout: retry(2) }, { retry_after: { max_ms: 60_000, above_max: "give_up" } }),
      responses: [rateLimited({ "retry-after": "3600" }), ok()],
    });
    expect(outcome).toMatchObject({ kind: "exhausted", reason: "retry_after_too_long", exhausted: true, attempts: 1 });
    expect(events.at(-1)).toMatchObject({ type: "retry_suppressed", reason: "retry_after_too_long", verdict: "timeout" });
  });

  it("a retry action's own retry_after replaces the playbook's", async () => {
    const { events } = await dispatchScenario({
      playbook: playbook({ timeout: { ...retry(2, [1000, 1000]), retry_after: { mode: "replace" } } as never }, { retry_after: { mode: "max" } }),
      responses: [rateLimited({ "retry-after-ms": "250" }), ok()],
    });
    expect(delays(events)).toEqual([250]);
  });

  it("records an unreadable Retry-After as an event and falls back to the backoff", async () => {
    const { events } = await dispatchScenario({ playbook: playbook({ timeout: retry(2, [100, 100]) }), responses: [rateLimited({ "retry-after": "tomorrow" }), ok()] });
    expect(events.find((e) => e.type === "retry_after_unreadable")).toMatchObject({ header: "retry-after", value: "tomorrow" });
    expect(delays(events)).toEqual([100]);
  });

  it("honor_retry_after: false switches all of it off", async () => {
    const { events } = await dispatchScenario({
      playbook: playbook({ timeout: retry(2, [100, 100]) }, { honor_retry_after: false }),
      responses: [rateLimited({ "retry-after": "tomorrow", "retry-after-ms": "5000" }), ok()],
    });
    expect(events.some((e) => e.type === "retry_after_unreadable")).toBe(false);
    expect(delays(events)).toEqual([100]);
  });

  it("backoff_index per_call counts every retry of the call, whatever its verdict", async () => {
    const action = { action: "retry_with_backoff", max_retries: 3, backoff: { strategy: "exponential", base_ms: 100 } } as const;
    const responses = [err("timeout"), err("x", { http_status: 503 }), err("timeout"), ok()];
    const perVerdict = await dispatchScenario({ playbook: playbook({ timeout: action, server: action }), responses });
    const perCall = await dispatchScenario({ playbook: playbook({ timeout: action, server: action }, { backoff_index: "per_call" }), responses });
    expect(delays(perVerdict.events)).toEqual([100, 100, 200]);
    expect(delays(perCall.events)).toEqual([100, 200, 400]);
  });

  it("budgets.retries_per_call caps a call's retries whatever their verdicts, each call afresh", async () => {
    const responses = [err("timeout"), err("x", { http_status: 503 }), err("timeout"), ok()];
    const perVerdict = await dispatchScenario({ playbook: playbook({ timeout: retry(2), server: retry(2) }), responses });
    expect(perVerdict.outcome).toMatchObject({ kind: "recovered", retried: 3 });
    const { outcome, events } = await dispatchScenario({ playbook: playbook({ timeout: retry(2), server: retry(2) }, { budgets: { retries_per_call: 2 } }), responses });
    expect(outcome).toMatchObject({ kind: "exhausted", reason: "budget_retries_per_call", retried: 2, attempts: 3, exhausted: true });
    expect(events.at(-1)).toMatchObject({ type: "budget_exhausted", budget: "retries_per_call", limit: 2, verdict: "timeout" });
  });
});

describe("jitter as a ratio, and a floor", () => {
  const f = { strategy: "constant", base_ms: 1000 } as const;

  it("draws from [d(1-r), d], whole milliseconds rounded down", () => {
    const random = seededRandom(3);
    for (let i = 0; i < 500; i++) {
      const d = formulaDelay({ ...f, jitter: 0.25 }, 0, undefined, random);
      expect(Number.isInteger(d)).toBe(true);
      expect(d).toBeGreaterThanOrEqual(750);
      expect(d).toBeLessThanOrEqual(1000);
    }
  });

  it("full is the ratio 1 and equal the ratio 0.5", () => {
    for (const [named, ratio] of [["full", 1], ["equal", 0.5]] as const) {
      const a = seededRandom(9);
      const b = seededRandom(9);
      for (let i = 0; i < 50; i++) expect(formulaDelay({ ...f, jitter: named }, 0, undefined, a)).toBe(formulaDelay({ ...f, jitter: ratio }, 0, undefined, b));
    }
  });

  it("min_ms is a floor after jitter", () => {
    const random = seededRandom(1);
    for (let i = 0; i < 200; i++) expect(formulaDelay({ ...f, jitter: "full", min_ms: 500 }, 0, undefined, random)).toBeGreaterThanOrEqual(500);
  });
});

describe("rate-limit reset headers (SPEC 21)", () => {
  const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
  const date = new Date(NOW).toUTCString();
  const policy = (headers: RetryAfterPolicy["headers"], more: Partial<RetryAfterPolicy> = {}): RetryAfterPolicy => ({ headers, ...more });
  const github = [{ name: "x-ratelimit-reset", epoch: "seconds" as const }];
  const error = (headers: Record<string, string>) => ({ kind: "x", http_status: 429, headers: { date, ...headers } });

  it("GitHub's x-ratelimit-reset is a Unix time in seconds: the delay is that time minus now (not 55 years)", () => {
    expect(readRetryAfter(error({ "x-ratelimit-reset": String(NOW / 1000 + 90) }), policy(github), 0).hintMs).toBe(90_000);
    // Without a date header: the local clock's epoch time.
    expect(readRetryAfter({ kind: "x", headers: { "x-ratelimit-reset": String(NOW / 1000 + 5) } }, policy(github), NOW).hintMs).toBe(5_000);
  });

  it("a reset in the past is a zero delay; max_ms still applies", () => {
    expect(readRetryAfter(error({ "x-ratelimit-reset": String(NOW / 1000 - 30) }), policy(github), 0).hintMs).toBe(0);
    const far = readRetryAfter(error({ "x-ratelimit-reset": String(NOW / 1000 + 7200) }), policy(github, { max_ms: 60_000 }), 0).hintMs!;
    expect(applyRetryAfter(100, far, policy(github, { max_ms: 60_000 }))).toEqual({ kind: "delay", delayMs: 60_000 });
  });

  it("epoch: ms reads milliseconds", () => {
    expect(readRetryAfter(error({ "x-reset-ms": String(NOW + 1500) }), policy([{ name: "x-reset-ms", epoch: "ms" }]), 0).hintMs).toBe(1500);
  });

  it.each([
    ["1m30.5s", 90_500],
    ["6m0s", 360_000],
    ["20ms", 20],
    ["2.03s", 2030],
    ["1h", 3_600_000],
    ["0s", 0],
  ])("OpenAI's duration %s reads %d ms", (value, ms) => {
    expect(readRetryAfter(error({ "x-ratelimit-reset-requests": value }), policy([{ name: "x-ratelimit-reset-requests", duration: true }]), 0).hintMs).toBe(ms);
  });

  it.each(["soon", "-5", "1.5.5", ""])("a reset header holding %j is unreadable, never a wait", (value) => {
    const reading = readRetryAfter(error({ "x-ratelimit-reset": value }), policy(github), 0);
    expect(reading.hintMs).toBeUndefined();
    expect(reading.unreadable).toEqual([{ header: "x-ratelimit-reset", value }]);
  });
});
