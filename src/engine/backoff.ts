/**
 * Backoff schedules (SPEC 3.1) as pure functions: (retry number, previous delay, random)
 * -> delay. Time and randomness come from outside, so a seed fixes every delay.
 */
import type { BackoffFormula, RetryAction } from "../model/playbook.js";
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

export function formulaDelay(f: BackoffFormula, n: number, previous: number | undefined, random: Random): number {
  // An uncapped schedule still gives finite delays: sums of them never reach Infinity.
  const cap = f.cap_ms ?? Number.MAX_SAFE_INTEGER;
  if (f.strategy === "decorrelated") {
    const prev = previous ?? f.base_ms;
    const hi = Math.max(f.base_ms, prev * 3);
    return Math.round(Math.min(cap, f.base_ms + random() * (hi - f.base_ms)));
  }
  const d = Math.min(cap, baseDelay(f, n));
  switch (f.jitter ?? "none") {
    case "none":
      return Math.round(d);
    case "full":
      return Math.round(random() * d);
    case "equal":
      return Math.round(d / 2 + random() * (d / 2));
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
