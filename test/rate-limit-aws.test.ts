/**
 * `adaptive: aws` is the AWS SDK's adaptive retry mode exactly (SPEC 22): failbook's limiter
 * and `@smithy/util-retry`'s own DefaultRateLimiter, each on a controlled clock started at
 * the same time and moved by the same steps, agree on every token wait and every fill rate
 * (relative 1e-9) over thousands of random sequences of sends, throttling responses and
 * successful ones.
 */
import { DefaultRateLimiter } from "@smithy/util-retry";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AwsAdaptiveLimiter } from "failbook-runtime/engine/policies/adaptive-aws.js";

type Step = { dt: number; op: "send" | "throttle" | "success" };

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/** The SDK's limiter on a clock of its own: `setTimeoutFn` moves the clock by the delay and records it. */
function sdkLimiter(start: number) {
  const clock = { t: start };
  const waits: number[] = [];
  class Controlled extends DefaultRateLimiter {
    override getCurrentTimeInSeconds(): number {
      return clock.t;
    }
  }
  const limiter = new Controlled();
  return { clock, waits, limiter };
}

async function run(steps: readonly Step[], start: number): Promise<{ sdk: number[][]; ours: number[][] }> {
  const sdk = sdkLimiter(start);
  const oursClock = { t: start };
  const ours = new AwsAdaptiveLimiter(() => oursClock.t);
  const oursWaits: number[] = [];
  const trace = { sdk: [] as number[][], ours: [] as number[][] };
  const original = DefaultRateLimiter.setTimeoutFn;
  DefaultRateLimiter.setTimeoutFn = (fn: () => void, delay: number) => {
    sdk.waits.push(delay);
    // As Node's setTimeout: a delay under 1 ms waits 1 ms (else a wait too small to move the clock spins).
    sdk.clock.t += Math.max(1, delay) / 1000;
    fn();
    return undefined as unknown as ReturnType<typeof setTimeout>;
  };
  try {
    for (const { dt, op } of steps) {
      sdk.clock.t += dt;
      oursClock.t += dt;
      if (op === "send") {
        await sdk.limiter.getSendToken();
        await ours.acquire(async (ms) => {
          oursWaits.push(ms);
          oursClock.t += Math.max(1, ms) / 1000;
        });
      } else {
        sdk.limiter.updateClientSendingRate(op === "throttle" ? { errorType: "THROTTLING" } : {});
        ours.update(op === "throttle");
      }
      const s = sdk.limiter as unknown as { fillRate: number; maxCapacity: number };
      trace.sdk.push([s.fillRate, s.maxCapacity, sdk.waits.length, ...sdk.waits.slice(-1)]);
      trace.ours.push([ours.fillRate, ours.maxCapacity, oursWaits.length, ...oursWaits.slice(-1)]);
    }
  } finally {
    DefaultRateLimiter.setTimeoutFn = original;
  }
  return trace;
}

const stepArb: fc.Arbitrary<Step> = fc.record({
  dt: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 0.2, noNaN: true }), fc.double({ min: 0, max: 3, noNaN: true })),
  op: fc.constantFrom<Step["op"]>("send", "send", "send", "throttle", "success", "success"),
});

describe("adaptive: aws against @smithy/util-retry's DefaultRateLimiter", () => {
  it("agrees on every token wait and fill rate over 3,000 random sequences", async () => {
    const sequences = fc.sample(fc.tuple(fc.array(stepArb, { minLength: 1, maxLength: 60 }), fc.double({ min: 1_000_000, max: 2_000_000_000, noNaN: true })), { numRuns: Number(process.env.AWS_SEQUENCES ?? 3000), seed: 2226 });
    let waits = 0;
    let throttled = 0;
    for (const [steps, start] of sequences) {
      const { sdk, ours } = await run(steps, start);
      for (let i = 0; i < sdk.length; i++) {
        const a = sdk[i]!;
        const b = ours[i]!;
        if (a.length !== b.length || a.some((v, k) => !close(v, b[k]!))) expect({ steps, start, i, ours: b }).toEqual({ steps, start, i, ours: a });
      }
      waits += sdk.at(-1)![2]!;
      if (steps.some((s) => s.op === "throttle")) throttled++;
    }
    // The sequences exercise the bucket: many waits, most sequences throttled at least once.
    expect(waits).toBeGreaterThan(1000);
    expect(throttled).toBeGreaterThan(1000);
  }, 60_000);

  it("the bucket is off until the first throttling response", () => {
    let t = 1000;
    const limiter = new AwsAdaptiveLimiter(() => t);
    for (let i = 0; i < 100; i++) expect(limiter.tryAcquire()).toBe(true);
    limiter.update(true);
    t += 0.001;
    expect(limiter.active).toBe(true);
    expect(limiter.fillRate).toBe(0.5);
  });
});
