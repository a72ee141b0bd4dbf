/**
 * examples/openai-retry against the OpenAI Node SDK's own retry code (SPEC 12, issue 16).
 *
 * The same generated responses and fetch errors go to the installed SDK (an `OpenAI` client
 * whose `fetch` returns them: its own shouldRetry, retryRequest and backoff run, on faked
 * timers) and to failbook (the example's registry and playbook, through the dispatcher). The
 * test requires the same retry decision for every response, the same number of attempts for
 * every call, and the same delay for every retry from the same random draw, except for the
 * hint forms the README lists as not expressible, which it counts.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { fetchError, responseError } from "../examples/openai-retry/adapter.js";
import { classify } from "failbook-runtime/engine/classify.js";
import { createDispatcher, type AttemptFn } from "failbook-runtime/engine/dispatch.js";
import type { BackoffFormula, RetryAction } from "failbook-runtime/model/playbook.js";
import { Draws, gaps, loadExample, rng, SettableClock } from "./helpers/sdk.js";

/** Generous: the runs take seconds alone, but CI machines are shared. */
const SLOW = 120_000;

const { registry, playbook } = loadExample("openai-retry");

/** The client's private retry machinery, which these tests call or observe as it is. */
interface RetryInternals {
  maxRetries: number;
  shouldRetry(response: Response): Promise<boolean>;
  calculateDefaultRetryTimeoutMillis(retriesRemaining: number, maxRetries: number): number;
}
const internals = (client: OpenAI) => client as unknown as RetryInternals;

// ------------------------------------------------------------------------------------------
// Generated responses and fetch errors
// ------------------------------------------------------------------------------------------

type Rng = ReturnType<typeof rng>;

type HeaderSpec = [name: string, value: string | { dateOffsetMs: number }];
type AttemptSpec = { kind: "http"; status: number; headers: HeaderSpec[] } | { kind: "throw"; make: () => Error } | { kind: "ok" };

const STATUSES = [300, 302, 400, 401, 403, 404, 408, 409, 413, 418, 422, 429, 429, 500, 501, 502, 503, 503, 504, 520, 529, 599];

function genHeaders(r: Rng): HeaderSpec[] {
  const headers: HeaderSpec[] = [["x-request-id", `req_${r.int(0, 1e9).toString(16)}`]];
  if (r.chance(0.25)) headers.push(["x-should-retry", r.pick(["true", "false", "TRUE", "False", "yes", "1", "", " true"])]);
  if (r.chance(0.2)) headers.push(["retry-after-ms", r.pick([String(r.int(0, 20_000)), "0", `${r.int(0, 5000)}.5`, "0.4", `-${r.int(1, 500)}`, "soon", ""])]);
  if (r.chance(0.25)) {
    const value = r.pick<HeaderSpec[1]>([String(r.int(0, 30)), `${r.int(0, 9)}.${r.int(1, 9)}`, `-${r.int(1, 9)}`, { dateOffsetMs: r.int(-5_000, 40_000) }, { dateOffsetMs: r.int(1_000, 60_000) }, "soon", "later", ""]);
    headers.push(["retry-after", value]);
  }
  if (r.chance(0.2)) headers.push(["date", { dateOffsetMs: 0 }]);
  return headers;
}

const THROWN: (() => Error)[] = [
  () => new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:443"), { code: "ECONNREFUSED" }) }),
  () => new TypeError("fetch failed", { cause: new Error("Connect Timeout Error (attempted address: api.openai.com:443, timeout: 10000ms)") }),
  () => Object.assign(new Error("This operation was aborted"), { name: "AbortError" }),
  () => Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }),
  () => new Error("getaddrinfo ENOTFOUND api.openai.com"),
  () => new Error("Request timed out"),
];

function genAttempt(r: Rng): AttemptSpec {
  if (r.chance(0.15)) return { kind: "throw", make: r.pick(THROWN) };
  return { kind: "http", status: r.pick(STATUSES), headers: genHeaders(r) };
}

/** The Response the server sends, built at attempt time (dates are relative to now). */
function buildResponse(spec: Extract<AttemptSpec, { kind: "http" }>, now: number): Response {
  const headers = new Headers();
  for (const [name, value] of spec.headers) headers.append(name, typeof value === "string" ? value : new Date(now + value.dateOffsetMs).toUTCString());
  headers.set("content-type", "application/json");
  return new Response(JSON.stringify({ error: { message: "generated", type: "test" } }), { status: spec.status, headers });
}

const OK_BODY = JSON.stringify({ id: "gpt-test", object: "model", created: 0, owned_by: "test" });
const okResponse = () => new Response(OK_BODY, { status: 200, headers: { "content-type": "application/json" } });

const retryable = (code: string) => registry.verdicts.find((v) => v.code === code)!.retryable;

function newClient(fetch: (url: string | URL | Request, init?: RequestInit) => Promise<Response>): OpenAI {
  return new OpenAI({ apiKey: "test-key", baseURL: "http://openai.test/v1", fetch, logLevel: "off" });
}

// ------------------------------------------------------------------------------------------
// The installed SDK's numbers are the example's
// ------------------------------------------------------------------------------------------

describe("the example pins the installed SDK's numbers", () => {
  it("maxRetries, the backoff and its jitter, and how a hint is used", () => {
    const client = newClient(async () => okResponse());
    const sdk = internals(client);
    expect(playbook.budgets?.retries_per_call).toBe(sdk.maxRetries);
    expect(playbook.backoff_index).toBe("per_call");
    expect(playbook.retry_after).toEqual({ headers: ["retry-after-ms", "retry-after"], mode: "replace", parse: "float", clock: "local" });
    // The backoff at both ends of the jitter, for every retry up to the cap.
    const random = vi.spyOn(Math, "random");
    try {
      for (const retry of [0, 1, 2, 3, 4, 5, 6]) {
        const formula = (playbook.verdicts.server_error as RetryAction).backoff as Extract<BackoffFormula, { strategy: "exponential" }>;
        const full = Math.min(formula.cap_ms!, formula.base_ms * formula.factor! ** retry);
        random.mockReturnValue(0);
        expect(sdk.calculateDefaultRetryTimeoutMillis(10 - retry, 10)).toBe(full);
        random.mockReturnValue(1);
        expect(sdk.calculateDefaultRetryTimeoutMillis(10 - retry, 10)).toBe(full * (1 - (formula.jitter as number)));
      }
    } finally {
      random.mockRestore();
    }
    for (const code of ["server_says_retry", "request_timeout", "lock_timeout", "rate_limited", "server_error", "connection_error"]) {
      expect(playbook.verdicts[code]).toEqual(playbook.verdicts.server_error);
    }
  });
});

// ------------------------------------------------------------------------------------------
// One decision per response
// ------------------------------------------------------------------------------------------

describe("20,000 generated responses: the same decision as the SDK's shouldRetry", () => {
  it("retries exactly the responses the client retries", async () => {
    const r = rng(16);
    const sdk = internals(newClient(async () => okResponse()));
    let agree = 0;
    let retried = 0;
    const disagreements: unknown[] = [];
    const statuses = new Set<number>();
    for (let i = 0; i < 20_000; i++) {
      const spec = { kind: "http" as const, status: r.pick(STATUSES), headers: genHeaders(r) };
      const response = buildResponse(spec, Date.UTC(2026, 10, 23, 12));
      const sdkRetries = await sdk.shouldRetry(response);
      const { verdict } = classify(registry, responseError(response), "openai.call");
      if (sdkRetries === retryable(verdict)) agree++;
      else disagreements.push({ status: spec.status, headers: spec.headers, sdkRetries, verdict });
      if (sdkRetries) retried++;
      statuses.add(spec.status);
    }
    expect(disagreements.slice(0, 5)).toEqual([]);
    expect(agree).toBe(20_000);
    expect(retried).toBeGreaterThan(5000);
    expect(20_000 - retried).toBeGreaterThan(5000);
    // Every error fetch throws is retried by the client; failbook classifies each as retryable.
    for (const make of THROWN) expect(retryable(classify(registry, fetchError(make()), "openai.call").verdict)).toBe(true);
    console.log(`openai: ${agree}/20000 shouldRetry decisions agree (${retried} retried, ${statuses.size} statuses)`);
  }, SLOW);
});

// ------------------------------------------------------------------------------------------
// Whole calls through the client
// ------------------------------------------------------------------------------------------

/** Why a retry's delay may differ from the SDK's: the forms the README lists. */
type Deviation = "unreadable_retry_after" | "zero_retry_after_ms" | "date_header";

/**
 * Which documented form, if any, a failed response's headers take. This restates the
 * headers' shape, not the SDK's arithmetic: the delays compared are the SDK's own.
 */
function deviationOf(spec: AttemptSpec | undefined): Deviation | undefined {
  if (spec?.kind !== "http") return undefined;
  const get = (name: string) => spec.headers.find(([n]) => n === name)?.[1];
  const ms = get("retry-after-ms");
  const after = get("retry-after");
  const msValue = typeof ms === "string" ? parseFloat(ms) : NaN;
  if (typeof ms === "string" && ms !== "" && !Number.isNaN(msValue) && msValue !== 0) return undefined;
  if (after === undefined || after === "") return undefined;
  if (typeof ms === "string" && msValue === 0) return "zero_retry_after_ms";
  if (typeof after === "string" && Number.isNaN(parseFloat(after))) return "unreadable_retry_after";
  if (typeof after !== "string" && get("date") !== undefined) return "date_header";
  return undefined;
}

const T0 = Date.UTC(2026, 10, 23, 12);

describe("calls through the OpenAI client", () => {
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: T0 });
  });
  afterAll(() => {
    vi.useRealTimers();
  });

  it("5,000 generated calls: the same attempts, and the same delays but for the documented hint forms", async () => {
    const r = rng(1216);
    const draw = rng(99);

    // The SDK: one client whose fetch answers from the current call's plan.
    let plan: AttemptSpec[] = [];
    let sdkTimes: number[] = [];
    let sdkDraws: number[] = [];
    const client = newClient(async () => {
      sdkTimes.push(Date.now());
      const spec = plan[sdkTimes.length - 1] ?? { kind: "ok" };
      if (spec.kind === "throw") throw spec.make();
      return spec.kind === "ok" ? okResponse() : buildResponse(spec, Date.now());
    });
    const sdk = internals(client);
    const backoff = sdk.calculateDefaultRetryTimeoutMillis;
    // Only the randomness is routed: the SDK's own formula runs on the call's k-th draw.
    sdk.calculateDefaultRetryTimeoutMillis = function (remaining, max) {
      const random = vi.spyOn(Math, "random").mockReturnValue(sdkDraws[max - remaining]);
      try {
        return backoff.call(this, remaining, max);
      } finally {
        random.mockRestore();
      }
    };

    // failbook: one dispatcher; its jitter draws 1 - u where the SDK's draws u, because the
    // SDK takes up to 25 % off the top (d(1 - 0.25u)) and failbook adds up to 25 % to the
    // bottom (0.75d + 0.25dv): the same delay.
    const clock = new SettableClock();
    const fbDraws = new Draws();
    const dispatcher = createDispatcher({ registry, playbook, clock, random: fbDraws.next });

    const tally = { calls: 0, failures: 0, retries: 0, hinted: 0, exact: 0, unreadable_retry_after: 0, zero_retry_after_ms: 0, date_header: 0, after_deviation: 0 };
    const mismatches: unknown[] = [];
    for (let i = 0; i < 5000; i++) {
      const failures = r.pick([0, 1, 1, 2, 2, 3, 3]);
      plan = Array.from({ length: failures }, () => genAttempt(r));
      const draws = [draw.next(), draw.next()];
      const start = T0 + i * 1_000_000;

      vi.setSystemTime(start);
      sdkTimes = [];
      sdkDraws = draws;
      const done = client.models.retrieve("gpt-test").then(
        () => undefined,
        () => undefined,
      );
      await vi.runAllTimersAsync();
      await done;

      clock.set(start);
      fbDraws.load(draws.map((u) => 1 - u));
      const fbTimes: number[] = [];
      const attempt: AttemptFn = (_call, k) => {
        fbTimes.push(clock.now());
        const spec = plan[k - 1] ?? { kind: "ok" };
        if (spec.kind === "ok") return { status: "ok", value: {} };
        if (spec.kind === "throw") return { status: "error", error: fetchError(spec.make()) };
        return { status: "error", error: responseError(buildResponse(spec, clock.now())) };
      };
      await dispatcher.dispatch({ id: `call-${i}`, tool: "openai.models.retrieve" }, attempt, { runId: "sdk-openai" });

      tally.calls++;
      tally.failures += failures;
      if (fbTimes.length !== sdkTimes.length) {
        mismatches.push({ i, plan, sdk: gaps(sdkTimes), failbook: gaps(fbTimes) });
        continue;
      }
      const sdkDelays = gaps(sdkTimes);
      const fbDelays = gaps(fbTimes);
      let shifted = false;
      sdkDelays.forEach((d, k) => {
        tally.retries++;
        const spec = plan[k];
        if (spec?.kind === "http" && spec.headers.some(([n]) => n === "retry-after-ms" || n === "retry-after")) tally.hinted++;
        if (d === fbDelays[k]) {
          tally.exact++;
          return;
        }
        const deviation = deviationOf(spec);
        // A date read against the response's date header rather than the client's clock
        // is off by less than a second; the other two forms are the SDK's alone.
        if (deviation === "date_header" && Math.abs(d - fbDelays[k]) < 1000) tally.date_header++;
        else if (deviation === "unreadable_retry_after" || deviation === "zero_retry_after_ms") tally[deviation]++;
        // After a documented difference the two clocks part, so a later HTTP-date hint of the
        // same call (relative to the attempt's time) parts with them.
        else if (shifted && spec?.kind === "http" && spec.headers.some(([n, v]) => n === "retry-after" && typeof v !== "string")) tally.after_deviation++;
        else mismatches.push({ i, retry: k, spec, sdk: d, failbook: fbDelays[k] });
        shifted = true;
      });
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
    expect(tally.retries).toBeGreaterThan(3000);
    expect(tally.hinted).toBeGreaterThan(1000);
    expect(tally.exact / tally.retries).toBeGreaterThan(0.95);
    console.log(`openai: ${tally.calls} calls, ${tally.failures} generated failures, the same attempts for every call; ${tally.exact}/${tally.retries} delays identical (${tally.hinted} retries after a hint); documented: ${tally.unreadable_retry_after} unreadable retry-after (the SDK retries at once), ${tally.zero_retry_after_ms} retry-after-ms 0 (the SDK reads retry-after), ${tally.date_header} HTTP dates read against the date header, ${tally.after_deviation} HTTP dates after one of those in the same call`);
  }, SLOW);
});
