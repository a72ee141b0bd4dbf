/**
 * The static worst case of a verdict's action: the most attempts it can cause, the longest
 * total backoff (jitter at its maximum, Retry-After aside), and which limits cut it short.
 * Used by `explain` and by the `retry-budget` lint rule.
 */
import { honorsRetryAfter, isRetryAction, retryAfterPolicyOf, type ActionName, type Playbook, type RetryAction, type RetryQuota } from "../model/playbook.js";
import type { Registry, Verdict } from "../model/registry.js";
import { verdictByCode } from "./classify.js";
import { DEFAULT_RETRY_COST } from "./quota.js";
import { retryDelay } from "./backoff.js";
import { maxRandom } from "./random.js";
import { AttemptTimeouts } from "./policies/attempt-timeout.js";
import { Hedging } from "./policies/hedging.js";
import { globMatches } from "./match.js";

export type RetryLimit = "max_retries" | "class_max_retries" | "budgets.retries" | "budgets.retries_per_call" | "same_verdict_ceiling" | "retry_quota";

/** How far a server's Retry-After hint can stretch one wait (SPEC 12). */
export interface RetryAfterBound {
  /** False when the playbook sets honor_retry_after: false (hints are ignored). */
  honored: boolean;
  /** The longest one wait can become because of a hint; null when nothing bounds it. */
  maxWaitMs: number | null;
  mode: "max" | "replace" | "exact";
  aboveMax: "ignore" | "cap" | "give_up";
  /** `max_over_backoff_ms`: the hint is first clamped to the backoff plus this. */
  overBackoffMs: number | null;
}

/** What a full retry quota allows this verdict (SPEC 12). */
export interface QuotaBound {
  capacity: number;
  /** The cheapest a retry of this verdict can cost (its class's cost, else its kinds', else `cost`). */
  cost: number;
  /** Retries a full bucket pays for, when nothing refills it. */
  retries: number;
}

/** How long the verdict's attempts can take under the attempt timeouts in force (SPEC 18). */
export interface TimeBound {
  /** The longest attempt timeout an attempt of this verdict can be held to. */
  attemptTimeoutMs: number;
  /** False when some tool the verdict can come from has no timeout: its attempts are unbounded. */
  everyTool: boolean;
  /** attempts × attemptTimeoutMs + the total backoff. */
  worstMs: number;
}

export interface WorstCase {
  verdict: string;
  action: ActionName;
  /** Upstream attempts this verdict alone can cause (fallback tools aside). */
  attempts: number;
  retries: number;
  /** The delay before each retry, jitter at its maximum (the first SPELLED_RETRIES of them). */
  delays: number[];
  totalBackoffMs: number;
  /** The limit that sets `retries`. */
  limitedBy?: RetryLimit;
  /** Budgets that the schedule, run to its end, would exceed. */
  exceeds: { budget: "retry_seconds" | "wall_ms"; limitMs: number }[];
  /** For a retry action: what Retry-After can do to each wait. */
  retryAfter?: RetryAfterBound;
  /** For a retry action under a playbook retry_quota. */
  quota?: QuotaBound;
  /** When the playbook sets attempt timeouts that apply to this verdict. */
  time?: TimeBound;
  /** When the playbook hedges (SPEC 18): what a hedged call can send before this verdict ends it. */
  hedged?: HedgedBound;
  /** When rate limits pace the tools this verdict can come from (SPEC 22): how long its attempts may wait for a token. */
  paced?: PacedBound;
}

/** How long one rate limit can hold an attempt before it is sent (SPEC 22). */
export interface PacedLimit {
  name: string;
  /** The longest one attempt waits for this limit's token: 0 when it fails at once, null when nothing bounds the wait. */
  waitMs: number | null;
  /** Why: its max_wait_ms, when_empty: fail, a bucket without max_wait_ms (only the caller's deadline), or the AWS SDK's adaptive loop without max_wait_ms. */
  bound: "max_wait_ms" | "fail" | "deadline" | "adaptive";
}

/**
 * The waits for a token of a verdict's attempts. A token is taken before every attempt (a
 * hedge never waits: it is not sent without one), so each attempt that can wait may wait the
 * longest of its buckets (they are reserved together), then each adaptive limiter in turn.
 */
export interface PacedBound {
  limits: PacedLimit[];
  /** The attempts that can wait (a hedged call's first attempt of each race; every attempt otherwise). */
  waitingAttempts: number;
  /** The longest one attempt waits before it is sent; null when nothing bounds it. */
  attemptWaitMs: number | null;
  /** waitingAttempts × attemptWaitMs; null when nothing bounds it. */
  totalWaitMs: number | null;
}

/** A hedged call's worst case: every hedge sent (a rebuild that retries runs a second race), and no retry. */
export interface HedgedBound {
  tools: string[];
  maxAttempts: number;
  /** Upstream attempts of one hedged call with this verdict's action. */
  attempts: number;
}

export function worstCase(registry: Registry, playbook: Playbook, code: string): WorstCase | undefined {
  const unhedged = unhedgedWorstCase(registry, playbook, code);
  if (unhedged === undefined) return undefined;
  const worst = hedgedWorstCase(registry, playbook, code, unhedged);
  if (playbook.rate_limits === undefined) return worst;
  // Every attempt of a call that is not hedged may wait for a token; a hedge never does (it is sent with one or not at all).
  const paced = pacedBound(playbook, verdictByCode(registry, code), unhedged.attempts);
  if (paced === undefined) return worst;
  const time = worst.time === undefined || paced.totalWaitMs === null ? worst.time : { ...worst.time, worstMs: saturating(worst.time.worstMs + paced.totalWaitMs) };
  return { ...worst, paced, ...(time === undefined ? {} : { time }) };
}

/** The rate limits over the tools a verdict can come from (any limit, when its rules name no literal tool), and their waits. */
function pacedBound(playbook: Playbook, verdict: Verdict | undefined, waitingAttempts: number): PacedBound | undefined {
  const policies = playbook.rate_limits ?? {};
  const named = toolsOf(verdict);
  const over = (name: string): boolean => {
    const tools = policies[name].tools;
    const globs = typeof tools === "string" ? [tools] : tools;
    return named === null || named.some((tool) => globs.some((g) => globMatches(g, tool)));
  };
  const names = Object.keys(policies).filter(over);
  if (names.length === 0) return undefined;
  const limits = names.map((name): PacedLimit => {
    const p = policies[name];
    if (p.when_empty === "fail") return { name, waitMs: 0, bound: "fail" };
    // A wait past max_wait_ms is refused before it starts, a bucket's or the AWS SDK's loop's; without it only the caller's deadline ends one.
    if (p.max_wait_ms !== undefined) return { name, waitMs: p.max_wait_ms, bound: "max_wait_ms" };
    return { name, waitMs: null, bound: p.adaptive !== undefined ? "adaptive" : "deadline" };
  });
  // Buckets are reserved together (the longest wait counts); an adaptive limiter waits after them, in turn.
  const adaptive = new Set(names.filter((name) => policies[name].adaptive !== undefined));
  const bucketWait = Math.max(0, ...limits.filter((l) => !adaptive.has(l.name)).map((l) => l.waitMs ?? 0));
  const adaptiveWait = limits.filter((l) => adaptive.has(l.name)).reduce((sum, l) => sum + (l.waitMs ?? 0), 0);
  const attemptWaitMs = limits.some((l) => l.waitMs === null) ? null : bucketWait + adaptiveWait;
  return { limits, waitingAttempts, attemptWaitMs, totalWaitMs: attemptWaitMs === null ? null : saturating(waitingAttempts * attemptWaitMs) };
}

/** The worse of a hedged call and another, when the playbook hedges a tool the verdict can come from. */
function hedgedWorstCase(registry: Registry, playbook: Playbook, code: string, worst: WorstCase): WorstCase {
  const hedging = playbook.hedging;
  if (hedging === undefined) return worst;
  // Only a verdict that can come from a hedged tool: one whose rules name only other tools never does.
  const verdict = verdictByCode(registry, code);
  const from = toolsOf(verdict);
  if (from !== null && !from.some((tool) => new Hedging(hedging).hedges(tool))) return worst;
  // A hedged call's retries are its hedges; the worst case is the worse of a hedged call and another.
  const action = playbook.verdicts[code];
  const races = "then" in action && action.then === "retry" ? 2 : 1;
  const hedged: HedgedBound = { tools: typeof hedging.tools === "string" ? [hedging.tools] : hedging.tools, maxAttempts: hedging.max_attempts, attempts: races * hedging.max_attempts };
  const attempts = Math.max(worst.attempts, hedged.attempts);
  if (attempts === worst.attempts || worst.time === undefined) return { ...worst, attempts, hedged };
  // More attempts, each under its timeout: the time bound counts them all (hedges overlap, so it is an upper bound).
  const time = timeBound(playbook, verdict, attempts, worst.totalBackoffMs);
  return { ...worst, attempts, hedged, ...(time === undefined ? {} : { time }) };
}

function unhedgedWorstCase(registry: Registry, playbook: Playbook, code: string): WorstCase | undefined {
  const action = playbook.verdicts[code];
  if (!action) return undefined;
  const verdict = verdictByCode(registry, code);
  const timed = (worst: WorstCase): WorstCase => {
    const time = timeBound(playbook, verdict, worst.attempts, worst.totalBackoffMs);
    return time === undefined ? worst : { ...worst, time };
  };
  const base: WorstCase = { verdict: code, action: action.action, attempts: 1, retries: 0, delays: [], totalBackoffMs: 0, exceeds: [] };
  if (action.action === "refresh_evidence" || action.action === "restore_checkpoint" || action.action === "refresh_credentials") {
    return timed({ ...base, attempts: action.then === "retry" ? 2 : 1 });
  }
  if (!isRetryAction(action)) return timed(base);

  const classMax = verdict ? registry.classes[verdict.class]?.max_retries : undefined;
  const budgets = playbook.budgets ?? {};
  const limits: [RetryLimit, number | undefined][] = [
    ["max_retries", action.max_retries],
    ["class_max_retries", classMax],
    ["budgets.retries", budgets.retries],
    ["budgets.retries_per_call", budgets.retries_per_call],
    ["same_verdict_ceiling", budgets.same_verdict_ceiling === undefined ? undefined : budgets.same_verdict_ceiling - 1],
  ];
  let retries = action.max_retries;
  let limitedBy: RetryLimit = "max_retries";
  for (let i = 0; i < limits.length; i++) {
    const name = limits[i]![0];
    const limit = limits[i]![1];
    if (limit !== undefined && limit < retries) {
      retries = limit;
      limitedBy = name;
    }
  }
  const quota = playbook.retry_quota === undefined ? undefined : quotaBound(playbook.retry_quota, verdict);
  if (quota !== undefined && quota.retries < retries) {
    retries = quota.retries;
    limitedBy = "retry_quota";
  }
  if (verdict && !verdict.retryable) retries = 0;
  const { delays, totalBackoffMs } = schedule(action, retries);
  const exceeds: WorstCase["exceeds"] = [];
  if (budgets.retry_seconds !== undefined && totalBackoffMs > budgets.retry_seconds * 1000) exceeds.push({ budget: "retry_seconds", limitMs: budgets.retry_seconds * 1000 });
  if (budgets.wall_ms !== undefined && totalBackoffMs > budgets.wall_ms) exceeds.push({ budget: "wall_ms", limitMs: budgets.wall_ms });
  const retryAfter = retryAfterBound(playbook, action, delays);
  return timed({ ...base, attempts: retries + 1, retries, delays, totalBackoffMs, limitedBy, exceeds, retryAfter, ...(quota ? { quota } : {}) });
}

/**
 * The attempt timeout the verdict's attempts can be held to: for the tools its rules name
 * when every rule names literal tools, else the longest the playbook sets for any tool.
 */
function timeBound(playbook: Playbook, verdict: Verdict | undefined, attempts: number, totalBackoffMs: number): TimeBound | undefined {
  const timeouts = AttemptTimeouts.of(playbook);
  if (timeouts === undefined) return undefined;
  const named = toolsOf(verdict);
  let candidates: (number | undefined)[];
  if (named !== null) candidates = named.map((t) => timeouts.forTool(t));
  else candidates = [playbook.attempt_timeout_ms, ...Object.values(playbook.tools ?? {}).map((t) => t.attempt_timeout_ms).filter((ms) => ms !== undefined)];
  const set = candidates.filter((ms): ms is number => ms !== undefined);
  if (set.length === 0) return undefined;
  const attemptTimeoutMs = Math.max(...set);
  return { attemptTimeoutMs, everyTool: set.length === candidates.length, worstMs: saturating(attempts * attemptTimeoutMs + totalBackoffMs) };
}

/** The tools a verdict can come from, when each of its rules names tools and none is a glob; null: any tool. */
function toolsOf(verdict: Verdict | undefined): string[] | null {
  const rules = verdict?.match ?? [];
  if (rules.length === 0 || !rules.every((r) => r.tool !== undefined)) return null;
  const named = rules.flatMap((r) => (Array.isArray(r.tool) ? r.tool : [r.tool as string]));
  return named.every((t) => !t.includes("*") && !t.includes("?")) ? named : null;
}

/** The cheapest cost a retry of the verdict can take, and what a full bucket pays for. */
function quotaBound(policy: RetryQuota, verdict: Verdict | undefined): QuotaBound {
  const byClass = policy.cost_by_class ?? {};
  let cost: number;
  if (verdict !== undefined && Object.hasOwn(byClass, verdict.class)) cost = byClass[verdict.class];
  else {
    // The error's kind decides: one of the kinds every rule of the verdict names, or any kind.
    const byKind = policy.cost_by_kind ?? {};
    const fallback = policy.cost ?? DEFAULT_RETRY_COST;
    const rules = verdict?.match ?? [];
    const kinds = rules.length > 0 && rules.every((r) => r.kind !== undefined) ? rules.flatMap((r) => (Array.isArray(r.kind) ? r.kind : [r.kind as string])) : null;
    const costs = kinds === null ? [fallback, ...Object.values(byKind)] : kinds.map((k) => (Object.hasOwn(byKind, k) ? byKind[k] : fallback));
    cost = Math.min(...costs);
  }
  const retries = cost <= 0 ? Number.MAX_SAFE_INTEGER : Math.floor(policy.capacity / cost);
  return { capacity: policy.capacity, cost, retries };
}

/** The longest wait a Retry-After hint can cause, given the policy in force for this action. */
function retryAfterBound(playbook: Playbook, action: RetryAction, delays: readonly number[]): RetryAfterBound {
  const policy = retryAfterPolicyOf(playbook, action);
  const longest = delays.reduce((a, b) => Math.max(a, b), 0);
  const over = policy.max_over_backoff_ms ?? null;
  let maxWaitMs: number | null = over === null ? null : longest + over;
  if (policy.max_ms !== undefined) maxWaitMs = maxWaitMs === null ? policy.max_ms : Math.min(maxWaitMs, policy.max_ms);
  if (maxWaitMs !== null) maxWaitMs = Math.max(maxWaitMs, longest);
  return { honored: honorsRetryAfter(playbook), maxWaitMs, mode: policy.mode ?? "max", aboveMax: policy.above_max ?? "cap", overBackoffMs: over };
}

/**
 * The schema allows at most this many retries, so a valid playbook's schedule is spelled out
 * in full. Past it (a playbook that skipped validation), the work stays bounded: the rest of
 * the retries are counted at the schedule's ceiling, an upper bound, never one by one.
 */
export const SPELLED_RETRIES = 1000;

/** The delays of the first retries, and the total of all of them, never past MAX_SAFE_INTEGER. */
function schedule(action: RetryAction, retries: number): { delays: number[]; totalBackoffMs: number } {
  const delays: number[] = [];
  let previous: number | undefined;
  let total = 0;
  for (let n = 0; n < Math.min(retries, SPELLED_RETRIES); n++) {
    previous = retryDelay(action, n, previous, maxRandom);
    delays.push(previous);
    total = saturating(total + previous);
  }
  const rest = retries - delays.length;
  if (rest > 0) total = saturating(total + rest * ceilingDelay(action, previous ?? 0));
  return { delays, totalBackoffMs: total };
}

/** The longest delay the schedule can reach: its last listed delay, its cap, or no bound at all. */
function ceilingDelay(action: RetryAction, last: number): number {
  if (action.backoff_ms) return action.backoff_ms.length === 0 ? 0 : Math.max(last, action.backoff_ms[action.backoff_ms.length - 1]);
  const formula = action.backoff;
  if (!formula) return 0;
  if (formula.strategy === "constant" || (formula.strategy === "exponential" && (formula.factor ?? 2) === 1)) return formula.base_ms;
  return formula.cap_ms ?? Number.MAX_SAFE_INTEGER;
}

const saturating = (n: number): number => (n > Number.MAX_SAFE_INTEGER || Number.isNaN(n) ? Number.MAX_SAFE_INTEGER : n);
