/**
 * The static worst case of a verdict's action: the most attempts it can cause, the longest
 * total backoff (jitter at its maximum, Retry-After aside), and which limits cut it short.
 * Used by `explain` and by the `retry-budget` lint rule.
 */
import { isRetryAction, type ActionName, type Playbook } from "../model/playbook.js";
import type { Registry } from "../model/registry.js";
import { retryDelay } from "./backoff.js";
import { maxRandom } from "./random.js";

export type RetryLimit = "max_retries" | "class_max_retries" | "budgets.retries" | "same_verdict_ceiling";

export interface WorstCase {
  verdict: string;
  action: ActionName;
  /** Upstream attempts this verdict alone can cause (fallback tools aside). */
  attempts: number;
  retries: number;
  /** The delay before each retry, jitter at its maximum. */
  delays: number[];
  totalBackoffMs: number;
  /** The limit that sets `retries`. */
  limitedBy?: RetryLimit;
  /** Budgets that the schedule, run to its end, would exceed. */
  exceeds: { budget: "retry_seconds" | "wall_ms"; limitMs: number }[];
}

export function worstCase(registry: Registry, playbook: Playbook, code: string): WorstCase | undefined {
  const action = playbook.verdicts[code];
  if (!action) return undefined;
  const base: WorstCase = { verdict: code, action: action.action, attempts: 1, retries: 0, delays: [], totalBackoffMs: 0, exceeds: [] };
  if (action.action === "refresh_evidence" || action.action === "restore_checkpoint") {
    return { ...base, attempts: action.then === "retry" ? 2 : 1 };
  }
  if (!isRetryAction(action)) return base;

  const verdict = registry.verdicts.find((v) => v.code === code);
  const classMax = verdict ? registry.classes[verdict.class]?.max_retries : undefined;
  const budgets = playbook.budgets ?? {};
  const limits: [RetryLimit, number | undefined][] = [
    ["max_retries", action.max_retries],
    ["class_max_retries", classMax],
    ["budgets.retries", budgets.retries],
    ["same_verdict_ceiling", budgets.same_verdict_ceiling === undefined ? undefined : budgets.same_verdict_ceiling - 1],
  ];
  let retries = action.max_retries;
  let limitedBy: RetryLimit = "max_retries";
  for (const [name, limit] of limits) {
    if (limit !== undefined && limit < retries) {
      retries = limit;
      limitedBy = name;
    }
  }
  if (verdict && !verdict.retryable) retries = 0;
  const delays: number[] = [];
  let previous: number | undefined;
  for (let n = 0; n < retries; n++) {
    previous = retryDelay(action, n, previous, maxRandom);
    delays.push(previous);
  }
  const total = delays.reduce((a, b) => a + b, 0);
  const exceeds: WorstCase["exceeds"] = [];
  if (budgets.retry_seconds !== undefined && total > budgets.retry_seconds * 1000) exceeds.push({ budget: "retry_seconds", limitMs: budgets.retry_seconds * 1000 });
  if (budgets.wall_ms !== undefined && total > budgets.wall_ms) exceeds.push({ budget: "wall_ms", limitMs: budgets.wall_ms });
  return { ...base, attempts: retries + 1, retries, delays, totalBackoffMs: total, limitedBy, exceeds };
}
