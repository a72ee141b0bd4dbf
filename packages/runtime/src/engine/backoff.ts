/**
 * Backoff schedules (SPEC 3.1) as pure functions: (retry number, previous delay, random)
 * -> delay. Time and randomness come from outside, so a seed fixes every delay.
 */
import type { BackoffFormula, Jitter, JitterRange, RetryAction } from "../model/playbook.js";
import type { Random } from "./random.js";

/** The delay of retry `n` (0 for the first retry), in whole milliseconds. */
export function retryDelay(action: Pick<RetryAction, "backoff_ms" | "backoff">, n: number, previous: number | undefined, random: Random): number {
  if (action.backoff_ms) {
    const list = action.backoff_ms;
    // A schedule shorter than max_retries is a lint error; at run time its last delay repeats.
    return list.length === 0 ? 0 : list[Math.min(n, list.length - 1)];
  }
  if (action.backoff) return formulaDelay(action.backoff, n, previous, random);
  return 0;
}

/** Whole milliseconds, rounded down (SPEC 12), never below the formula's floor `min_ms`. */
export function formulaDelay(f: BackoffFormula, n: number, previous: number | undefined, random: Random): number {
  // An uncapped schedule still gives finite delays: sums of them never reach Infinity.
  const cap = f.cap_ms ?? Number.MAX_SAFE_INTEGER;
  let d: number;
  if (f.strategy === "decorrelated") {
    const prev = previous ?? f.base_ms;
    const hi = Math.max(f.base_ms, prev * 3);
    d = Math.min(cap, f.base_ms + random() * (hi - f.base_ms));
  } else {
    d = jittered(Math.min(cap, baseDelay(f, n)), f.jitter, random);
  }
  return Math.max(f.min_ms ?? 0, Math.floor(d));
}

/**
 * A delay under its jitter. A ratio r draws uniformly from [d(1-r), d] (`full` from [0, d],
 * `equal` from [d/2, d]); a range from [d·min, d·max]; an integer range adds a whole number
 * of milliseconds to its low end, both ends included (Azure's c/2 + floor(r·(c/2 + 1))).
 */
function jittered(d: number, jitter: Jitter | undefined, random: Random): number {
  if (typeof jitter === "object") {
    const lo = d * jitter.min;
    const hi = d * jitter.max;
    if (hi <= lo) return lo;
    return jitter.integer === true ? Math.min(hi, lo + Math.floor(random() * (Math.floor(hi - lo) + 1))) : lo + random() * (hi - lo);
  }
  const r = jitterRatio(jitter);
  return r === 0 ? d : d * (1 - r) + random() * r * d;
}

/** The share of the delay that jitter may take away: none 0, equal 0.5, full 1, or the ratio itself. */
export function jitterRatio(jitter: Exclude<Jitter, JitterRange> | undefined): number {
  switch (jitter) {
    case undefined:
    case "none":
      return 0;
    case "full":
      return 1;
    case "equal":
      return 0.5;
    default:
      return jitter;
  }
}

function baseDelay(f: Exclude<BackoffFormula, { strategy: "decorrelated" }>, n: number): number {
  if (f.base_ms === 0) return 0; // not 0 * Infinity (NaN) far into an exponential schedule
  switch (f.strategy) {
    case "exponential":
      return f.base_ms * Math.pow(f.factor ?? 2, n);
    case "linear":
      return f.base_ms * (n + 1);
    case "constant":
      return f.base_ms;
  }
}
