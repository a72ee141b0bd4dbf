/** Backoff (SPEC 3.1): formulas, jitter ranges, explicit schedules, seeded determinism. */
import { describe, expect, it } from "vitest";
import type { BackoffFormula } from "failbook-runtime/model/playbook.js";
import { formulaDelay, retryDelay } from "failbook-runtime/engine/backoff.js";
import { seededRandom } from "failbook-runtime/engine/random.js";
import { VirtualClock } from "failbook-runtime/engine/clock.js";

const half = () => 0.5;

describe("backoff formulas", () => {
  it.each<[string, BackoffFormula, number, number | undefined, number]>([
    ["exponential: base * factor^n", { strategy: "exponential", base_ms: 100, factor: 3 }, 2, undefined, 900],
    ["exponential: factor defaults to 2", { strategy: "exponential", base_ms: 100 }, 3, undefined, 800],
    ["exponential: capped at cap_ms", { strategy: "exponential", base_ms: 100, cap_ms: 500 }, 5, undefined, 500],
    ["linear: base * (n + 1)", { strategy: "linear", base_ms: 100 }, 2, undefined, 300],
    ["constant: base", { strategy: "constant", base_ms: 250 }, 7, undefined, 250],
    ["full jitter draws from [0, d]", { strategy: "exponential", base_ms: 100, jitter: "full" }, 1, undefined, 100],
    ["equal jitter draws from [d/2, d]", { strategy: "exponential", base_ms: 100, jitter: "equal" }, 1, undefined, 150],
    ["decorrelated: uniform(base, prev * 3), base before the first", { strategy: "decorrelated", base_ms: 100 }, 0, undefined, 200],
    ["decorrelated: from the previous delay", { strategy: "decorrelated", base_ms: 100 }, 1, 1000, 1550],
    ["decorrelated: capped", { strategy: "decorrelated", base_ms: 100, cap_ms: 400 }, 1, 1000, 400],
  ])("%s", (_name, formula, n, previous, expected) => {
    expect(formulaDelay(formula, n, previous, half)).toBe(expected);
  });

  it("an explicit backoff_ms list is used as is, its last delay repeating", () => {
    const action = { backoff_ms: [200, 600, 1800] };
    expect([0, 1, 2, 3].map((n) => retryDelay(action, n, undefined, () => 0.99))).toEqual([200, 600, 1800, 1800]);
  });

  it("jitter stays within its range and a seed fixes every delay", () => {
    const f: BackoffFormula = { strategy: "exponential", base_ms: 1000, cap_ms: 30000, jitter: "equal" };
    const draw = (seed: number) => {
      const random = seededRandom(seed);
      return [0, 1, 2, 3, 4, 5].map((n) => formulaDelay(f, n, undefined, random));
    };
    const delays = draw(7);
    delays.forEach((d, n) => {
      const full = Math.min(30000, 1000 * 2 ** n);
      expect(d).toBeGreaterThanOrEqual(full / 2);
      expect(d).toBeLessThanOrEqual(full);
    });
    expect(draw(7)).toEqual(delays);
    expect(draw(8)).not.toEqual(delays);
  });
});

describe("the virtual clock", () => {
  it("a virtual clock never waits: sleep moves time forward", async () => {
    const clock = new VirtualClock();
    await clock.sleep(60_000);
    clock.advance(5);
    expect(clock.now()).toBe(60_005);
  });
});
