/**
 * SPEC 18's proof against real packages: failbook's circuit breaker, configured to each
 * peer's semantics, reports the same open/closed state as cockatiel 3 (ConsecutiveBreaker,
 * CountBreaker, SamplingBreaker) and opossum 9 after every attempt of thousands of random
 * attempt sequences on a virtual clock. Where a peer's semantics cannot be expressed, the
 * sequences stay where they agree, and docs/policies.md says what differs and why:
 *
 * - after a half-open probe closes the circuit, cockatiel's CountBreaker and SamplingBreaker
 *   keep the probe's success in their window and opossum keeps its whole window; failbook
 *   closes with an empty window (as Polly and resilience4j do). Those comparisons start both
 *   breakers afresh at a close (ConsecutiveBreaker's count resets on the success: it needs none).
 * - opossum counts a call it rejects while open in `fires`; failbook never counts an attempt
 *   it did not send. No call is fired at opossum while it is open.
 * - cockatiel's SamplingBreaker rotates one bucket per recorded call, so after a quiet spell
 *   its window still holds buckets older than its duration; failbook's drops them. Its
 *   sequences span less than its duration.
 * - "more than threshold" (cockatiel, opossum) is failbook's "at least failure_ratio" with a
 *   ratio a hair above the threshold; thresholds are binary fractions, where opossum's
 *   `failures / fires * 100` is exact.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CircuitState, ConsecutiveBreaker, ConstantBackoff, CountBreaker, ExponentialBackoff, SamplingBreaker, circuitBreaker, handleAll, noJitterGenerator, type CircuitBreakerPolicy as CockatielPolicy } from "cockatiel";
import CircuitBreaker from "opossum";
import { CircuitBreakers } from "failbook-runtime/engine/policies/breakers.js";
import { seededRandom, type Random } from "failbook-runtime/engine/random.js";
import type { CircuitBreakerPolicy } from "failbook-runtime/model/playbook.js";

/** "More than θ" as failbook's "at least": exact for every window under 10^8 attempts. */
const MORE_THAN = 1e-9;
const DAY = 86_400_000;
const FAILED = { verdictClass: "transient", retryable: true, errorKind: "upstream" } as const;
const quiet = () => {};

/** failbook's side: the dispatcher's breakers, one breaker named `b` guarding tool `t`. */
class Failbook {
  private readonly breakers: CircuitBreakers;
  constructor(policy: Omit<CircuitBreakerPolicy, "tools">, origin: number) {
    this.breakers = new CircuitBreakers({ b: { tools: "t", ...policy } }, origin);
  }
  attempt(now: number, fail: boolean): void {
    const admission = this.breakers.admit("t", "t", now, quiet);
    if (admission.blockedBy === undefined) this.breakers.record(admission, "t", now, fail ? FAILED : null, quiet);
  }
  open(now: number): boolean {
    return this.breakers.stateOf("b", now) === "open";
  }
  halfOpen(now: number): boolean {
    return this.breakers.stateOf("b", now) === "half_open";
  }
}

interface Peer {
  /** One attempt at the current (fake) time; resolves once the peer has recorded it. */
  attempt(fail: boolean): Promise<void>;
  open(): boolean;
  closed(): boolean;
  dispose(): void;
}

interface Tally {
  attempts: number;
  agreed: number;
  opened: number;
  closed: number;
  first?: string;
}

/**
 * Run one sequence of attempts (`gaps` ms apart, failing as `fails` says) through both, and
 * count the attempts after which they agree. At a close both start afresh (see above),
 * unless `restart` is false: the peer's window after a close is failbook's.
 */
async function compare(gaps: number[], fails: boolean[], make: (origin: number) => { failbook: Failbook; peer: Peer }, tally: Tally, label: string, restart = true): Promise<void> {
  let { failbook, peer } = make(Date.now());
  for (let i = 0; i < gaps.length; i++) {
    vi.advanceTimersByTime(gaps[i]);
    const now = Date.now();
    const wasClosed = peer.closed();
    failbook.attempt(now, fails[i]);
    await peer.attempt(fails[i]);
    const theirs = peer.open();
    const ours = failbook.open(now);
    tally.attempts++;
    if (theirs !== ours) {
      tally.first ??= `${label}: attempt ${i + 1} at ${now} ms (${fails[i] ? "failure" : "success"}): the peer is ${theirs ? "open" : "closed"}, failbook ${ours ? "open" : "closed"}`;
      break;
    }
    tally.agreed++;
    if (wasClosed && theirs) tally.opened++;
    if (!wasClosed && peer.closed()) {
      tally.closed++;
      if (!restart) continue;
      peer.dispose();
      ({ failbook, peer } = make(now));
    }
  }
  peer.dispose();
}

/** A sequence: how many attempts, the gaps between them, which fail (in runs, so that breakers open). */
function sequence(random: Random, length: number, maxGap: number): { gaps: number[]; fails: boolean[] } {
  const failShare = 0.2 + random() * 0.7;
  const gaps: number[] = [];
  const fails: boolean[] = [];
  let failing = random() < failShare;
  for (let i = 0; i < length; i++) {
    if (random() < 0.3) failing = random() < failShare;
    gaps.push(random() < 0.15 ? 0 : Math.floor(random() * maxGap));
    fails.push(failing ? random() < 0.9 : random() < 0.1);
  }
  return { gaps, fails };
}

const pick = <T>(random: Random, list: readonly T[]): T => list[Math.floor(random() * list.length)];

/** cockatiel's policy as a peer: execute() with a task that fails or not; open is CircuitState.Open. */
function cockatiel(policy: CockatielPolicy): Peer {
  return {
    async attempt(fail: boolean) {
      await policy
        .execute(() => {
          if (fail) throw new Error("upstream failed");
          return "ok";
        })
        .catch(() => undefined);
    },
    open: () => policy.state === CircuitState.Open,
    closed: () => policy.state === CircuitState.Closed,
    dispose: () => {},
  };
}

/** opossum as a peer: fire() unless it is open (a call it rejects would count in its window). */
function opossum(options: ConstructorParameters<typeof CircuitBreaker>[1]): Peer {
  const breaker = new CircuitBreaker(async (fail: boolean) => {
    if (fail) throw new Error("upstream failed");
    return "ok";
  }, { timeout: false, enableSnapshots: false, rollingPercentilesEnabled: false, ...options });
  return {
    async attempt(fail: boolean) {
      if (breaker.opened) return;
      await breaker.fire(fail).catch(() => undefined);
    },
    open: () => breaker.opened,
    closed: () => breaker.closed,
    dispose: () => breaker.shutdown(),
  };
}

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000, toFake: ["Date", "setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
});
afterEach(() => {
  vi.useRealTimers();
});

const SEQUENCES = 1500;

function expectAgreement(tally: Tally): void {
  expect(tally.first ?? "", "the first disagreement").toBe("");
  expect(tally.agreed).toBe(tally.attempts);
  // Not vacuous: the sequences open breakers, and close them again through a probe.
  expect(tally.attempts).toBeGreaterThan(SEQUENCES * 20);
  expect(tally.opened).toBeGreaterThan(SEQUENCES / 4);
  expect(tally.closed).toBeGreaterThan(SEQUENCES / 10);
}

describe("failbook's breaker agrees with cockatiel 3", () => {
  it(`ConsecutiveBreaker(n): failure_ratio 1 over the last n attempts, ${SEQUENCES} random sequences, constant and exponential half-open delays, never restarted`, async () => {
    const random = seededRandom(1);
    const tally: Tally = { attempts: 0, agreed: 0, opened: 0, closed: 0 };
    for (let s = 0; s < SEQUENCES; s++) {
      const n = 1 + Math.floor(random() * 6);
      const breakMs = pick(random, [50, 200, 1000, 2500]);
      const maxBreakMs = random() < 0.5 ? undefined : breakMs * pick(random, [2, 3, 8]);
      const { gaps, fails } = sequence(random, 40, breakMs * 1.5);
      await compare(
        gaps,
        fails,
        (origin) => ({
          failbook: new Failbook({ failure_ratio: 1, minimum_throughput: n, sampling_attempts: n, sampling_ms: DAY, break_ms: breakMs, ...(maxBreakMs === undefined ? {} : { max_break_ms: maxBreakMs }) }, origin),
          peer: cockatiel(
            circuitBreaker(handleAll, {
              breaker: new ConsecutiveBreaker(n),
              halfOpenAfter: maxBreakMs === undefined ? new ConstantBackoff(breakMs) : new ExponentialBackoff({ initialDelay: breakMs, maxDelay: maxBreakMs, generator: noJitterGenerator }),
            }),
          ),
        }),
        tally,
        `sequence ${s} (n ${n}, break ${breakMs}, max ${maxBreakMs})`,
        false,
      );
    }
    expectAgreement(tally);
  });

  it(`CountBreaker({ threshold, size, minimumNumberOfCalls }): the last size attempts, ${SEQUENCES} random sequences`, async () => {
    const random = seededRandom(2);
    const tally: Tally = { attempts: 0, agreed: 0, opened: 0, closed: 0 };
    for (let s = 0; s < SEQUENCES; s++) {
      const size = 2 + Math.floor(random() * 12);
      const minimum = 1 + Math.floor(random() * size);
      const threshold = pick(random, [0.25, 0.5, 0.75]);
      const breakMs = pick(random, [100, 1000]);
      const { gaps, fails } = sequence(random, 40, 300);
      await compare(
        gaps,
        fails,
        (origin) => ({
          failbook: new Failbook({ failure_ratio: threshold + MORE_THAN, minimum_throughput: minimum, sampling_attempts: size, sampling_ms: DAY, break_ms: breakMs }, origin),
          peer: cockatiel(circuitBreaker(handleAll, { breaker: new CountBreaker({ threshold, size, minimumNumberOfCalls: minimum }), halfOpenAfter: breakMs })),
        }),
        tally,
        `sequence ${s} (size ${size}, minimum ${minimum}, threshold ${threshold})`,
      );
    }
    expectAgreement(tally);
  });

  it(`SamplingBreaker({ threshold, duration, minimumRps }): a sliding window, ${SEQUENCES} random sequences shorter than the duration`, async () => {
    const random = seededRandom(3);
    const tally: Tally = { attempts: 0, agreed: 0, opened: 0, closed: 0 };
    for (let s = 0; s < SEQUENCES; s++) {
      const duration = pick(random, [5000, 10_000, 20_000]);
      const threshold = pick(random, [0.25, 0.5, 0.75]);
      const minimumRps = pick(random, [0.5, 1, 2]);
      const breakMs = pick(random, [100, 500, 1500]);
      // The window as cockatiel sizes it: at least 5 buckets of at most a second.
      const buckets = Math.max(5, Math.ceil(duration / 1000));
      const window = Math.round(duration / buckets) * buckets;
      const minimum = Math.ceil(window * (minimumRps / 1000));
      const length = 40;
      const { gaps, fails } = sequence(random, length, Math.floor((window - 1) / length));
      await compare(
        gaps,
        fails,
        (origin) => ({
          failbook: new Failbook({ failure_ratio: threshold + MORE_THAN, minimum_throughput: Math.max(1, minimum), sampling_ms: window, break_ms: breakMs }, origin),
          peer: cockatiel(circuitBreaker(handleAll, { breaker: new SamplingBreaker({ threshold, duration, minimumRps }), halfOpenAfter: breakMs })),
        }),
        tally,
        `sequence ${s} (duration ${duration}, threshold ${threshold}, minimumRps ${minimumRps})`,
      );
    }
    expectAgreement(tally);
  });
});

describe("failbook's breaker agrees with opossum 9", () => {
  it(`errorThresholdPercentage, volumeThreshold, resetTimeout over rolling buckets (failbook's buckets:), ${SEQUENCES} random sequences`, async () => {
    const random = seededRandom(4);
    const tally: Tally = { attempts: 0, agreed: 0, opened: 0, closed: 0 };
    for (let s = 0; s < SEQUENCES; s++) {
      const buckets = pick(random, [2, 5, 10]);
      const rollingCountTimeout = pick(random, [1000, 2000, 5000]);
      const percent = pick(random, [25, 50, 75]);
      const volumeThreshold = Math.floor(random() * 8);
      const resetTimeout = pick(random, [100, 700, 3000]);
      const { gaps, fails } = sequence(random, 40, Math.floor(rollingCountTimeout / 8));
      await compare(
        gaps,
        fails,
        (origin) => ({
          failbook: new Failbook(
            {
              failure_ratio: percent / 100 + MORE_THAN,
              minimum_throughput: Math.max(1, volumeThreshold),
              sampling_ms: Math.floor(rollingCountTimeout / buckets) * buckets,
              buckets,
              break_ms: resetTimeout,
            },
            origin,
          ),
          peer: opossum({ errorThresholdPercentage: percent, volumeThreshold, resetTimeout, rollingCountTimeout, rollingCountBuckets: buckets }),
        }),
        tally,
        `sequence ${s} (${buckets} buckets of ${rollingCountTimeout} ms, ${percent} %, volume ${volumeThreshold}, reset ${resetTimeout})`,
      );
    }
    expectAgreement(tally);
  });
});

/**
 * The payments-breaker example's README says what each peer cannot express; two of its
 * claims are about behaviour, not configuration, and are shown here on the fake clock.
 */
describe("examples/payments-breaker/README.md's peer table", () => {
  /** How long each break lasts when every half-open probe fails: the fake clock moved 1 ms at a time until the breaker is half-open. */
  async function breaks(breaker: { fail(): Promise<void>; halfOpen(): boolean }, probes: number, limit: number): Promise<number[]> {
    await breaker.fail(); // opens it
    const lasted: number[] = [];
    for (let probe = 0; probe < probes; probe++) {
      let ms = 0;
      while (!breaker.halfOpen() && ms < limit) {
        vi.advanceTimersByTime(1);
        ms++;
      }
      lasted.push(ms);
      await breaker.fail(); // the probe fails: open again
    }
    return lasted;
  }

  const RESET = 100;
  it.each([
    { peer: "opossum { resetTimeout: 100 }", expected: [RESET, RESET, RESET, RESET, RESET] },
    { peer: "failbook { break_ms: 100, max_break_ms: 400 }", expected: [RESET, 2 * RESET, 4 * RESET, 4 * RESET, 4 * RESET] },
  ])("opossum's break does not grow: after each failed probe, $peer breaks for $expected ms", async ({ peer, expected }) => {
    let breaker: { fail(): Promise<void>; halfOpen(): boolean; dispose(): void };
    if (peer.startsWith("opossum")) {
      const o = new CircuitBreaker(
        async () => {
          throw new Error("upstream failed");
        },
        { timeout: false, enableSnapshots: false, rollingPercentilesEnabled: false, errorThresholdPercentage: 50, volumeThreshold: 1, resetTimeout: RESET, rollingCountTimeout: 30_000, rollingCountBuckets: 10 },
      );
      breaker = { fail: () => o.fire().catch(() => undefined), halfOpen: () => o.halfOpen, dispose: () => o.shutdown() };
    } else {
      const f = new Failbook({ failure_ratio: 0.5, minimum_throughput: 1, sampling_ms: 30_000, break_ms: RESET, max_break_ms: 4 * RESET }, Date.now());
      breaker = { fail: async () => f.attempt(Date.now(), true), halfOpen: () => f.halfOpen(Date.now()), dispose: () => {} };
    }
    expect(await breaks(breaker, expected.length, 10 * RESET)).toEqual(expected);
    breaker.dispose();
  });

  // The example's cockatiel breaker: minimumRps 0.2 over 30 s. Were it a rate, failures 1 ms
  // or 100 ms apart (1000 or 10 a second) would open the breaker at the first failures; it is
  // the count duration × minimumRps = 6 in the window, whatever span the attempts took:
  // failbook's minimum_throughput: 6.
  /** The attempt (all failing, `gapMs` apart) after which the breaker is open, if one up to `max` opens it. */
  async function opensAt(attempt: (fail: boolean) => Promise<void>, open: () => boolean, gapMs: number, max: number): Promise<number | undefined> {
    for (let n = 1; n <= max; n++) {
      if (n > 1) vi.advanceTimersByTime(gapMs);
      await attempt(true);
      if (open()) return n;
    }
    return undefined;
  }

  it.each([
    { gapMs: 1, rate: "1000 a second" },
    { gapMs: 100, rate: "10 a second" },
    { gapMs: 4000, rate: "0.25 a second" },
  ])("cockatiel's minimumRps is a count: SamplingBreaker({ minimumRps: 0.2, duration: 30 s }) opens at the 6th failure $gapMs ms apart ($rate), as failbook's minimum_throughput: 6", async ({ gapMs }) => {
    const peer = cockatiel(circuitBreaker(handleAll, { breaker: new SamplingBreaker({ threshold: 0.5, duration: 30_000, minimumRps: 0.2 }), halfOpenAfter: 5000 }));
    const theirs = await opensAt((fail) => peer.attempt(fail), () => peer.open(), gapMs, 10);
    const failbook = new Failbook({ failure_ratio: 0.5 + MORE_THAN, minimum_throughput: 6, sampling_ms: 30_000, break_ms: 5000 }, Date.now());
    const ours = await opensAt(async (fail) => failbook.attempt(Date.now(), fail), () => failbook.open(Date.now()), gapMs, 10);
    expect({ cockatiel: theirs, failbook: ours }).toEqual({ cockatiel: 6, failbook: 6 });
  });

  it("cockatiel's minimumRps: 0 is not \"no minimum\" but its default, 5 ÷ threshold a second: at threshold 0.5 over 30 s, the 300th failure opens it", async () => {
    const peer = cockatiel(circuitBreaker(handleAll, { breaker: new SamplingBreaker({ threshold: 0.5, duration: 30_000, minimumRps: 0 }), halfOpenAfter: 5000 }));
    expect(await opensAt((fail) => peer.attempt(fail), () => peer.open(), 1, 400)).toBe(300);
  });
});
