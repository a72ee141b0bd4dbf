/**
 * examples/aws-standard-retry against the AWS SDK's own retry code (SPEC 12, issue 16).
 *
 * The same generated errors go to the installed SDK (@smithy/util-retry's StandardRetryStrategy
 * behind @smithy/middleware-retry's retryMiddleware, the classifiers of
 * @smithy/service-error-classification) and to failbook (the example's registry and playbook,
 * through the dispatcher), and the test requires the same decision for every error, the same
 * delays from the same random draws, and the same retries and quota over long sequences of calls
 * that share one client's token bucket. The SDK's constants and name lists are read from the
 * installed packages, so a release that changes them fails here.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { retryMiddleware } from "@smithy/middleware-retry";
import { isServerError, isThrottlingError, isTransientError } from "@smithy/service-error-classification";
import { DEFAULT_MAX_ATTEMPTS, INITIAL_RETRY_TOKENS, MAXIMUM_RETRY_DELAY, NO_RETRY_INCREMENT, Retry, StandardRetryStrategy } from "@smithy/util-retry";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { toAdapterError, type AwsSdkError } from "../examples/aws-standard-retry/adapter.js";
import { classify } from "failbook-runtime/engine/classify.js";
import { createDispatcher, type AttemptFn } from "failbook-runtime/engine/dispatch.js";
import { loadProject } from "../src/load/project.js";
import type { BackoffFormula, RetryAction } from "failbook-runtime/model/playbook.js";
import type { MatchRule } from "failbook-runtime/model/registry.js";
import { Draws, gaps, loadExample, rng, SettableClock } from "./helpers/sdk.js";

/** Generous: the runs take seconds alone, but CI machines are shared. */
const SLOW = 120_000;

const { registry, playbook } = loadExample("aws-standard-retry");

// ------------------------------------------------------------------------------------------
// The SDK's lists: not exported, so read from the installed source of @smithy/core/retry.
// ------------------------------------------------------------------------------------------

const requireFromRetry = createRequire(createRequire(import.meta.url).resolve("@smithy/util-retry"));
const RETRY_SOURCE = readFileSync(requireFromRetry.resolve("@smithy/core/retry"), "utf8");

function sdkList(pattern: RegExp): string[] {
  const m = pattern.exec(RETRY_SOURCE);
  if (!m) throw new Error(`@smithy/core/retry no longer has ${pattern.source}: the example needs a look`);
  return [...m[1].matchAll(/"([^"]+)"/g)].map((x) => x[1]);
}
const list = (name: string) => sdkList(new RegExp(`const ${name} = \\[([^\\]]*)\\]`));
const THROTTLING_NAMES = list("THROTTLING_ERROR_CODES");
const TRANSIENT_NAMES = list("TRANSIENT_ERROR_CODES");
const CLOCK_SKEW_NAMES = list("CLOCK_SKEW_ERROR_CODES");
const TIMEOUT_CODES = list("NODEJS_TIMEOUT_ERROR_CODES");
const NETWORK_CODES = list("NODEJS_NETWORK_ERROR_CODES");
const TRANSIENT_STATUSES = (/const TRANSIENT_ERROR_STATUS_CODES = \[([^\]]*)\]/.exec(RETRY_SOURCE)?.[1] ?? "").split(",").map((s) => Number(s.trim()));
const BROWSER_MESSAGES = sdkList(/const errorMessages = new Set\(\[([^\]]*)\]\)/);

const OTHER_NAMES = [
  "Error",
  "ValidationException",
  "ResourceNotFoundException",
  "ConditionalCheckFailedException",
  "InternalFailure",
  "InternalServerError",
  "ServiceUnavailable",
  "NotImplemented",
  // near misses of the SDK's names
  "ThrottlingError",
  "throttlingexception",
  "RequestTimeoutError",
  "SlowDownException",
];
const OTHER_CODES = ["ERR_HTTP2_STREAM_ERROR", "ECONNABORTED", "EPROTO", "ENOENT", "econnreset"];
const STATUSES = [200, 400, 403, 404, 408, 409, 413, 429, 500, 501, 502, 503, 504, 505, 507, 509, 599];

// ------------------------------------------------------------------------------------------
// Generated errors
// ------------------------------------------------------------------------------------------

type Hint = { header: string; value: string } | { header: string; dateOffsetMs: number };

interface Spec {
  name: string;
  message: string;
  code?: string;
  status?: number;
  retryable?: { throttling?: boolean };
  skewCorrected?: boolean;
  hint?: Hint;
  cause?: Spec;
}

type Rng = ReturnType<typeof rng>;

function messageFor(r: Rng, name: string, code: string | undefined): string {
  if (name === "InvalidSignatureException") return r.pick(["Signature expired: 20261123T115500Z is now earlier than 20261123T120000Z", "signature expired", "Signature does not match"]);
  if (name === "TypeError") return r.pick([...BROWSER_MESSAGES, "fetch failed", "failed to fetch", "Failed to fetch ", "Cannot read properties of undefined"]);
  if (code === "ERR_HTTP2_STREAM_ERROR") return r.pick(["Stream closed with error code NGHTTP2_REFUSED_STREAM", "Stream closed with error code NGHTTP2_INTERNAL_ERROR", "nghttp2_refused_stream"]);
  return r.pick(["", "Rate exceeded", "socket hang up", "Request aborted", "Service Unavailable", "We encountered an internal error"]);
}

function genHint(r: Rng): Hint {
  const retryAfter = () => r.pick(["retry-after", "Retry-After", "RETRY-AFTER"]);
  const amz = () => r.pick(["x-amz-retry-after", "X-Amz-Retry-After"]);
  switch (r.int(0, 9)) {
    case 0:
      return { header: retryAfter(), value: String(r.int(0, 40)) };
    case 1:
      return { header: retryAfter(), value: (r.int(0, 400) / 10).toFixed(1) };
    case 2:
      return { header: retryAfter(), value: `-${r.int(1, 30)}` };
    case 3:
      return { header: retryAfter(), value: r.pick(["soon", "later", "n/a", ""]) };
    case 4:
    case 5:
      return { header: retryAfter(), dateOffsetMs: r.int(-5_000, 40_000) };
    case 6:
    case 7:
      return { header: amz(), value: String(r.int(0, 30_000)) };
    case 8:
      return { header: amz(), value: `-${r.int(1, 5_000)}` };
    default:
      return { header: amz(), value: r.pick(["abc", "soon"]) };
  }
}

function genSpec(r: Rng, depth = 0): Spec {
  const name = r.chance(0.18)
    ? r.pick(THROTTLING_NAMES)
    : r.chance(0.12)
      ? r.pick(TRANSIENT_NAMES)
      : r.chance(0.1)
        ? r.pick(CLOCK_SKEW_NAMES)
        : r.chance(0.07)
          ? "AbortError"
          : r.chance(0.07)
            ? "InvalidSignatureException"
            : r.chance(0.07)
              ? "TypeError"
              : r.pick(OTHER_NAMES);
  const code = r.chance(0.3) ? r.pick([...TIMEOUT_CODES, ...NETWORK_CODES, ...OTHER_CODES]) : undefined;
  const spec: Spec = { name, message: messageFor(r, name, code) };
  if (code !== undefined) spec.code = code;
  if (r.chance(0.7)) spec.status = r.pick(STATUSES);
  if (r.chance(0.12)) spec.retryable = r.pick([{}, { throttling: true }, { throttling: false }]);
  if (r.chance(0.08)) spec.skewCorrected = true;
  // The SDK reads hints from the top error's response only.
  if (depth === 0 && spec.status !== undefined && r.chance(0.45)) spec.hint = genHint(r);
  if (depth < 8 && r.chance(depth === 0 ? 0.25 : 0.35)) spec.cause = genSpec(r, depth + 1);
  return spec;
}

/** The error as the SDK throws it, built at attempt time (an HTTP-date hint is relative to now). */
function buildError(spec: Spec, now: number): Error & AwsSdkError {
  const e = (spec.name === "TypeError" ? new TypeError(spec.message) : Object.assign(new Error(spec.message), { name: spec.name })) as Error & AwsSdkError;
  if (spec.code !== undefined) e.code = spec.code;
  if (spec.status !== undefined || spec.skewCorrected) {
    e.$metadata = {};
    if (spec.status !== undefined) e.$metadata.httpStatusCode = spec.status;
    if (spec.skewCorrected) e.$metadata.clockSkewCorrected = true;
  }
  if (spec.retryable !== undefined) e.$retryable = { ...spec.retryable };
  if (spec.status !== undefined) {
    const headers: Record<string, string> = {};
    const hint = spec.hint;
    if (hint !== undefined) headers[hint.header] = "value" in hint ? hint.value : new Date(now + hint.dateOffsetMs).toUTCString();
    e.$response = { statusCode: spec.status, headers };
  }
  if (spec.cause !== undefined) e.cause = buildError(spec.cause, now);
  return e;
}

/** getRetryErrorType's order (it is not exported; the middleware tests below run the real one). */
function sdkErrorType(e: AwsSdkError): "THROTTLING" | "TRANSIENT" | "SERVER_ERROR" | "CLIENT_ERROR" {
  const error = e as Parameters<typeof isThrottlingError>[0];
  if (isThrottlingError(error)) return "THROTTLING";
  if (isTransientError(error)) return "TRANSIENT";
  if (isServerError(error)) return "SERVER_ERROR";
  return "CLIENT_ERROR";
}

const directlyTransient = (spec: Spec): boolean => isTransientError(buildError({ ...spec, cause: undefined }, 0) as never);

/**
 * The one shape failbook cannot express (README): the SDK stops looking through the cause
 * chain at the first AbortError, while failbook's `cause:` holds at any depth, so
 * `transient_above_abort` reads "above an AbortError" as "with an AbortError below". An
 * AbortError, then a transient cause, then another AbortError is retried by failbook only.
 */
function transientAboveAbort(spec: Spec): boolean {
  const top = buildError({ ...spec, cause: undefined }, 0);
  if (isThrottlingError(top as never) || spec.name === "AbortError" || directlyTransient(spec)) return false;
  const chain: Spec[] = [];
  for (let c = spec.cause; c !== undefined; c = c.cause) chain.push(c);
  const transient = (c: Spec) => c.name !== "AbortError" && directlyTransient(c);
  const firstAbort = chain.findIndex((c) => c.name === "AbortError");
  const firstTransient = chain.findIndex(transient);
  if (firstAbort < 0 || (firstTransient >= 0 && firstTransient < firstAbort)) return false;
  return chain.some((c, i) => transient(c) && chain.slice(i + 1).some((d) => d.name === "AbortError"));
}

const verdictClass = (code: string) => registry.verdicts.find((v) => v.code === code)!.class;
const retryableVerdict = (code: string) => registry.verdicts.find((v) => v.code === code)!.retryable;
const CLASS_OF_TYPE = { THROTTLING: "throttling", TRANSIENT: "transient", SERVER_ERROR: "server_error", CLIENT_ERROR: "client_error" } as const;

// ------------------------------------------------------------------------------------------
// The installed SDK's constants are the example's
// ------------------------------------------------------------------------------------------

describe("the example pins the installed SDK's constants", () => {
  const action = (code: string) => playbook.verdicts[code] as RetryAction;
  const formula = (code: string) => action(code).backoff as Extract<BackoffFormula, { strategy: "exponential" }>;

  it("backoff bases, cap, attempts, quota costs and refunds", () => {
    expect(Retry.v2026).toBe(true);
    expect(formula("throttling")).toEqual({ strategy: "exponential", base_ms: Retry.throttlingDelay(), factor: 2, cap_ms: MAXIMUM_RETRY_DELAY, jitter: "full" });
    for (const code of ["transient", "transient_cause", "transient_above_abort"]) {
      expect(formula(code)).toEqual({ strategy: "exponential", base_ms: Retry.delay(), factor: 2, cap_ms: MAXIMUM_RETRY_DELAY, jitter: "full" });
    }
    expect(playbook.budgets?.retries_per_call).toBe(DEFAULT_MAX_ATTEMPTS - 1);
    expect(playbook.backoff_index).toBe("per_call");
    expect(playbook.retry_quota).toEqual({ capacity: INITIAL_RETRY_TOKENS, cost: Retry.cost(), cost_by_class: { [Retry.modifiedCostType().toLowerCase()]: Retry.throttlingCost() }, refund: NO_RETRY_INCREMENT, refund_on_recovery: "last" });
    expect(playbook.retry_after).toEqual({ headers: ["retry-after", "x-amz-retry-after"], ms_headers: ["x-amz-retry-after"], order: "response", clock: "local", mode: "max", max_over_backoff_ms: 5000 });
    expect(new StandardRetryStrategy().getCapacity()).toBe(INITIAL_RETRY_TOKENS);
  });

  it("the registry's names, codes and statuses are the SDK's lists", () => {
    const rules = (code: string): MatchRule[] => registry.verdicts.find((v) => v.code === code)!.match ?? [];
    const asList = (v: unknown) => (Array.isArray(v) ? v : [v]);
    expect(asList(rules("throttling").find((r) => r.kind)?.kind).sort()).toEqual([...THROTTLING_NAMES].sort());
    const transient = rules("transient");
    expect(transient.find((r) => Array.isArray(r.kind))?.kind).toEqual(TRANSIENT_NAMES);
    expect(transient.find((r) => Array.isArray(r.fields?.node_code))?.fields?.node_code).toEqual([...TIMEOUT_CODES, ...NETWORK_CODES]);
    expect(transient.find((r) => r.http_status)?.http_status).toEqual(TRANSIENT_STATUSES);
    const browser = transient.find((r) => r.kind === "TypeError")?.message_matches;
    expect(browser).toBe(`^(${BROWSER_MESSAGES.join("|")})$`);
    // The lists really are what the exported classifiers use.
    for (const name of THROTTLING_NAMES) expect(isThrottlingError({ name, message: "" } as never)).toBe(true);
    for (const name of TRANSIENT_NAMES) expect(isTransientError({ name, message: "" } as never)).toBe(true);
    for (const code of [...TIMEOUT_CODES, ...NETWORK_CODES]) expect(isTransientError({ name: "Error", message: "", code } as never)).toBe(true);
    for (const status of TRANSIENT_STATUSES) expect(isTransientError({ name: "Error", message: "", $metadata: { httpStatusCode: status } } as never)).toBe(true);
    for (const message of BROWSER_MESSAGES) expect(isTransientError(new TypeError(message) as never)).toBe(true);
  });
});

// ------------------------------------------------------------------------------------------
// One decision per error
// ------------------------------------------------------------------------------------------

describe("20,000 generated errors: the same decision as the SDK's classifiers", () => {
  it("retries exactly what StandardRetryStrategy retries, with its error type", () => {
    const r = rng(16);
    const tally = { errors: 0, agree: 0, retried: 0, causeChains: 0, documented: 0, byType: {} as Record<string, number> };
    const disagreements: { spec: Spec; sdk: string; failbook: string }[] = [];
    for (let i = 0; i < 20_000; i++) {
      const spec = genSpec(r);
      const error = buildError(spec, Date.UTC(2026, 10, 23, 12));
      const type = sdkErrorType(error);
      const sdkRetries = type === "THROTTLING" || type === "TRANSIENT";
      const { verdict } = classify(registry, toAdapterError(error), "aws.call");
      const fbRetries = retryableVerdict(verdict);
      // A retried error must also land in the SDK's class: it sets the base delay and the cost.
      const same = sdkRetries === fbRetries && (!sdkRetries || verdictClass(verdict) === CLASS_OF_TYPE[type]);
      tally.errors++;
      tally.byType[type] = (tally.byType[type] ?? 0) + 1;
      if (sdkRetries) tally.retried++;
      if (spec.cause) tally.causeChains++;
      if (same) tally.agree++;
      else if (transientAboveAbort(spec)) tally.documented++;
      else disagreements.push({ spec, sdk: type, failbook: verdict });
    }
    expect(disagreements.slice(0, 5)).toEqual([]);
    // Every error agrees but the documented shape, which the generator does produce.
    expect(tally.agree + tally.documented).toBe(tally.errors);
    expect(tally.agree / tally.errors).toBeGreaterThan(0.999);
    // The shapes not: now tells apart (15 of these 20,000 disagreed before it), and the one it cannot.
    const chain = (...names: string[]): Spec => names.reduceRight<Spec | undefined>((cause, name) => ({ name, message: "m", ...(name === "Error" ? {} : { code: "ECONNRESET" }), ...(cause ? { cause } : {}) }), undefined) as Spec;
    for (const spec of [chain("Error", "Socket", "AbortError"), chain("Error", "AbortError", "Socket"), chain("Error", "Socket", "AbortError", "Socket")]) {
      const sdkRetries = ["THROTTLING", "TRANSIENT"].includes(sdkErrorType(buildError(spec, 0)));
      expect(retryableVerdict(classify(registry, toAdapterError(buildError(spec, 0)), "aws.call").verdict), JSON.stringify(spec)).toBe(sdkRetries);
    }
    const documented = chain("Error", "AbortError", "Socket", "AbortError");
    expect(transientAboveAbort(documented)).toBe(true);
    expect(retryableVerdict(classify(registry, toAdapterError(buildError(documented, 0)), "aws.call").verdict)).toBe(true);
    // The generator reaches every type, and a fair share of cause chains.
    for (const type of ["THROTTLING", "TRANSIENT", "SERVER_ERROR", "CLIENT_ERROR"]) expect(tally.byType[type]).toBeGreaterThan(1000);
    expect(tally.causeChains).toBeGreaterThan(4000);
    console.log(`aws: ${tally.agree}/${tally.errors} decisions agree (${tally.documented} chains with a transient cause between two AbortErrors differ, as documented); ${JSON.stringify(tally.byType)}`);
  }, SLOW);
});

// ------------------------------------------------------------------------------------------
// Whole calls through the SDK's middleware and strategy, sharing one quota
// ------------------------------------------------------------------------------------------

type Step = Spec | "ok";
const T0 = Date.UTC(2026, 10, 23, 12);

interface CallResult {
  attempts: number;
  delays: number[];
  capacity: number;
}

/** Both sides of the comparison: one SDK client (strategy) and one failbook dispatcher, each with its own quota. */
function pair() {
  const strategy = new StandardRetryStrategy(DEFAULT_MAX_ATTEMPTS);
  const fbDraws = new Draws();
  const clock = new SettableClock();
  const dispatcher = createDispatcher({ registry, playbook, clock, random: fbDraws.next });
  let n = 0;

  async function sdk(steps: readonly Step[], draws: number[], start: number): Promise<CallResult> {
    vi.setSystemTime(start);
    vi.mocked(Math.random).mockImplementation(sdkDrawsFor(draws));
    const times = await sdkAttempts(strategy, steps);
    return { attempts: times.length, delays: gaps(times), capacity: strategy.getCapacity() };
  }

  async function failbook(steps: readonly Step[], draws: number[], start: number): Promise<CallResult> {
    clock.set(start);
    fbDraws.load(draws);
    const times: number[] = [];
    const attempt: AttemptFn = (_call, k) => {
      times.push(clock.now());
      const step = steps[k - 1];
      if (step === undefined || step === "ok") return { status: "ok", value: {} };
      return { status: "error", error: toAdapterError(buildError(step, clock.now())) };
    };
    await dispatcher.dispatch({ id: `call-${n++}`, tool: "aws.call" }, attempt, { runId: "sdk-aws" });
    return { attempts: times.length, delays: gaps(times), capacity: dispatcher.quota!.tokens };
  }

  /** One call on both sides from the same start time and the same draws. */
  return async (steps: readonly Step[], draws: number[], start: number) => ({ sdk: await sdk(steps, draws, start), failbook: await failbook(steps, draws, start) });
}

/** A spec outside the documented shape (a sequence must not diverge on it). */
function expressibleSpec(r: Rng): Spec {
  for (;;) {
    const spec = genSpec(r);
    if (!transientAboveAbort(spec)) return spec;
  }
}

/** The largest delay the SDK may wait before retry i of a call: the capped backoff plus 5 s. */
const maxDelay = (i: number) => Math.min(Retry.throttlingDelay() * 2 ** i, MAXIMUM_RETRY_DELAY) + 5000;

describe("calls through retryMiddleware and StandardRetryStrategy", () => {
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: T0 });
    vi.spyOn(Math, "random");
  });
  afterAll(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it("5,000 generated calls: the same attempts, delays and quota, call after call", async () => {
    const r = rng(1216);
    const draw = rng(99);
    const run = pair();
    const mismatches: unknown[] = [];
    let retries = 0;
    let hinted = 0;
    let refused = 0;
    let errors = 0;
    const capacities: number[] = [];
    for (let i = 0; i < 5000; i++) {
      // Mostly healthy traffic with bursts of failures, so the quota both drains and refills.
      const burst = Math.floor(i / 250) % 2 === 1;
      const failures = r.chance(burst ? 0.6 : 0.2) ? r.pick([1, 1, 2, 3]) : 0;
      errors += failures;
      const steps: Step[] = Array.from({ length: failures }, () => expressibleSpec(r));
      const draws = [draw.next(), draw.next()];
      const start = T0 + i * 100_000;
      const { sdk, failbook } = await run(steps, draws, start);
      if (JSON.stringify(sdk) !== JSON.stringify(failbook)) mismatches.push({ i, steps, sdk, failbook });
      failbook.delays.forEach((d, k) => {
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThanOrEqual(maxDelay(k));
      });
      retries += sdk.delays.length;
      capacities.push(sdk.capacity);
      hinted += steps.slice(0, sdk.delays.length).filter((s) => s !== "ok" && s.hint !== undefined).length;
      if (sdk.attempts < Math.min(failures + 1, DEFAULT_MAX_ATTEMPTS) && failures > 0) refused++;
    }
    expect(mismatches.slice(0, 3)).toEqual([]);
    // The sequence exercised what it claims: many retries and hints, a drained and a refilled bucket.
    expect(errors).toBeGreaterThan(2500);
    expect(retries).toBeGreaterThan(600);
    expect(hinted).toBeGreaterThan(150);
    expect(refused).toBeGreaterThan(50);
    expect(Math.min(...capacities)).toBeLessThan(Retry.cost());
    expect(capacities.at(-1)).toBeGreaterThan(Math.min(...capacities));
    console.log(`aws: 5000 calls, ${errors} generated errors, ${retries} retries (${hinted} after a Retry-After), ${refused} calls stopped before their failures ran out (not retryable, or no tokens); tokens ${Math.min(...capacities)}..${Math.max(...capacities)}: attempts, delays and quota identical`);
  }, SLOW);

  it("an outage drains the shared quota and recovery refills it, as the SDK's strategy does", async () => {
    const r = rng(2026);
    const draw = rng(7);
    const run = pair();
    const capacities: number[] = [];
    const retriesPerCall: number[] = [];
    const outage = (): Spec => r.pick<Spec>([
      { name: "ServiceUnavailable", message: "", status: 503 },
      { name: "ThrottlingException", message: "Rate exceeded", status: 400 },
      { name: "Error", message: "socket hang up", code: "ECONNRESET" },
      { name: "TimeoutError", message: "" },
    ]);
    const phases: [string, number, () => Step[]][] = [
      ["outage", 80, () => [outage(), outage(), outage()]],
      ["recovery", 300, () => []],
      ["flaky", 60, () => [outage()]],
    ];
    let i = 0;
    for (const [, calls, steps] of phases) {
      for (let c = 0; c < calls; c++, i++) {
        const draws = [draw.next(), draw.next()];
        const { sdk, failbook } = await run(steps(), draws, T0 + i * 100_000);
        expect(failbook).toEqual(sdk);
        capacities.push(sdk.capacity);
        retriesPerCall.push(sdk.attempts - 1);
      }
    }
    const outageRetries = retriesPerCall.slice(0, 80);
    // The bucket ran dry during the outage: late calls could not retry at all ...
    expect(Math.min(...capacities.slice(0, 80))).toBeLessThan(Retry.cost());
    expect(outageRetries.slice(-20).filter((n) => n === 0).length).toBeGreaterThan(0);
    // ... and the first-time successes of recovery refilled it a token each.
    expect(capacities[379]).toBe(Math.min(INITIAL_RETRY_TOKENS, capacities[79] + 300 * NO_RETRY_INCREMENT));
    expect(retriesPerCall.slice(380).every((n) => n === 1)).toBe(true);
    console.log(`aws: outage ${capacities[0]} -> ${Math.min(...capacities.slice(0, 80))} tokens, recovery -> ${capacities[379]}, flaky -> ${capacities.at(-1)}`);
  }, SLOW);

  it("the example's waves fixture is what one SDK client does from 40 tokens", async () => {
    // outage.yaml, call by call: the same failures through a strategy that starts with 40 tokens.
    const fixture = loadWaves();
    const strategy = new StandardRetryStrategy(DEFAULT_MAX_ATTEMPTS);
    (strategy as unknown as { capacity: number }).capacity = fixture.tokens;
    vi.mocked(Math.random).mockImplementation(() => 0.5);
    const retried: Record<string, number> = {};
    for (const { id, steps } of fixture.calls) retried[id] = (await sdkAttempts(strategy, steps)).length - 1;
    expect(retried).toEqual(Object.fromEntries(fixture.expected.map((c) => [c.id, c.retried])));
    expect(strategy.getCapacity()).toBe(12);
  });
});

/** One call through the SDK's retryMiddleware and `strategy`, on the faked timers: when each attempt was made. */
async function sdkAttempts(strategy: StandardRetryStrategy, steps: readonly Step[]): Promise<number[]> {
  const times: number[] = [];
  const next = async () => {
    times.push(Date.now());
    const step = steps[times.length - 1];
    if (step === undefined || step === "ok") return { response: {}, output: { $metadata: {} } };
    throw buildError(step, Date.now());
  };
  const handler = retryMiddleware({ retryStrategy: async () => strategy, maxAttempts: async () => DEFAULT_MAX_ATTEMPTS } as never)(next as never, {} as never);
  // The SDK throws the last error; the attempts are what this compares.
  const done = handler({ input: {}, request: {} } as never).then(
    () => undefined,
    () => undefined,
  );
  await vi.runAllTimersAsync();
  await done;
  return times;
}

/** Math.random for the SDK: the call's draws in order (its backoff draws once per retry). */
function sdkDrawsFor(draws: number[]): () => number {
  let k = 0;
  return () => {
    const v = draws[k++];
    if (v === undefined) throw new Error("the SDK drew more random numbers than it retried");
    return v;
  };
}

interface WavesFixture {
  tokens: number;
  calls: { id: string; steps: Step[] }[];
  expected: { id: string; retried: number }[];
}

/** examples/aws-standard-retry/fixtures/outage.yaml as SDK steps, with its golden's per-call retries. */
function loadWaves(): WavesFixture {
  const dir = new URL("../examples/aws-standard-retry/", import.meta.url).pathname;
  const { project } = loadProject({ config: dir, cwd: dir });
  const fixture = project.fixtures.map((f) => f.value).find((f) => f.name === "outage-drains-the-quota-and-recovery-refills-it")!;
  const calls = fixture.waves!.flatMap((w) =>
    w.calls.map((c) => ({
      id: c.call.id,
      steps: c.responses.map((resp): Step => {
        if (resp.status !== "error" || !resp.error) return "ok";
        const e = resp.error;
        return { name: e.kind, message: e.message ?? "", ...(e.http_status === undefined ? {} : { status: e.http_status }) };
      }),
    })),
  );
  const expected = (fixture.expect?.calls as { id: string; retried: number }[]).map(({ id, retried }) => ({ id, retried }));
  return { tokens: fixture.quota!.tokens, calls, expected };
}
