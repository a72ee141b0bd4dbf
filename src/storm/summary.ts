/**
 * A storm's report (SPEC 19): the buckets as data, the summary (amplification, success,
 * latency percentiles, recovery) and the verdict, and the file's `expect` checks, each
 * failure naming its bucket and figure.
 */
import type { RateLimitCost } from "./costs.js";
import { METASTABLE_SHARE, RECOVERED_SHARE, VERDICTS, type StormExpect, type StormVerdict } from "./model.js";
import { COUNTERS, type Counter, type Series } from "./series.js";

export type StormBucket = { from_ms: number } & Record<Counter, number> & {
  /** Of the calls offered in this bucket, the share that succeeded; null when none were offered. */
  success_share: number | null;
  in_progress: number;
  queued: number;
  breakers_open: number;
  breakers_half_open: number;
  outcomes: Record<string, number>;
  attempt_errors: Record<string, number>;
};

export interface StormSummary {
  calls: number;
  attempts: number;
  amplification: number;
  /** The bucket where attempts sent ÷ calls offered peaked. */
  worst_bucket: { bucket: number; from_ms: number; amplification: number } | null;
  succeeded: number;
  success_ratio: number;
  latency_ms: { p50: number; p99: number; max: number };
  mean_in_progress: number;
  /** When the last phase ends (0 without phases). */
  trigger_end_ms: number;
  /** From the trigger's end to the first bucket from which success stays at or above 95 % of calls offered. */
  recovery_ms: number | null;
  verdict: StormVerdict;
  /** Calls still running when the run stopped (the duration and as long again). */
  unfinished: number;
}

export interface ExpectCheck {
  check: keyof StormExpect;
  limit: number | string;
  actual: number | string | null;
  passed: boolean;
  /** Why it failed, naming the bucket and figure; empty when it passed. */
  message: string;
}

export function bucketsOf(series: Series): StormBucket[] {
  const out: StormBucket[] = [];
  for (let b = 0; b < series.buckets; b++) {
    const counts = Object.fromEntries(COUNTERS.map((c) => [c, series.counts[c][b]])) as Record<Counter, number>;
    out.push({
      from_ms: b * series.stepMs,
      ...counts,
      success_share: nullableRound(series.successShare(b), 4),
      in_progress: round(series.meanInProgress(b), 2),
      queued: round(series.meanQueued(b), 2),
      breakers_open: series.breakersOpen[b],
      breakers_half_open: series.breakersHalfOpen[b],
      outcomes: row(series.outcomes, b),
      attempt_errors: row(series.attemptErrors, b),
    });
  }
  return out;
}

export function summarize(series: Series, buckets: readonly StormBucket[], triggerEnd: number, unfinished: number): StormSummary {
  let worst: StormSummary["worst_bucket"] = null;
  let area = 0;
  for (const [b, bucket] of buckets.entries()) {
    area += bucket.in_progress * series.widthOf(b);
    if (bucket.offered === 0) continue;
    const amplification = bucket.sent / bucket.offered;
    if (worst === null || amplification > worst.amplification) worst = { bucket: b, from_ms: bucket.from_ms, amplification: round(amplification, 3) };
  }
  const latencies = series.sortedLatencies();
  const { verdict, recovery } = verdictOf(buckets, series.stepMs, triggerEnd, series.durationMs);
  return {
    calls: series.offered,
    attempts: series.sent,
    amplification: series.offered === 0 ? 0 : round(series.sent / series.offered, 3),
    worst_bucket: worst,
    succeeded: series.succeeded,
    success_ratio: series.offered === 0 ? 1 : round(series.succeeded / series.offered, 4),
    latency_ms: { p50: round(percentile(latencies, 0.5), 1), p99: round(percentile(latencies, 0.99), 1), max: round(latencies.length === 0 ? 0 : latencies[latencies.length - 1], 1) },
    mean_in_progress: round(area / series.durationMs, 2),
    trigger_end_ms: triggerEnd,
    recovery_ms: recovery,
    verdict,
    unfinished,
  };
}

/**
 * stable: success never fell below 95 % of calls offered. recovered: from some bucket on
 * (after the trigger), it stays at or above 95 %. metastable: the trigger ended and success
 * stayed below half of what was offered through the end of the run. degraded: neither.
 */
export function verdictOf(buckets: readonly StormBucket[], stepMs: number, triggerEnd: number, durationMs: number): { verdict: StormVerdict; recovery: number | null } {
  const low = (b: StormBucket, share: number) => b.success_share !== null && b.success_share < share;
  const lastBad = findLastIndex(buckets, (b) => low(b, RECOVERED_SHARE));
  if (lastBad === -1) return { verdict: "stable", recovery: null };
  const after = buckets.filter((b) => b.from_ms >= triggerEnd);
  // Recovery needs a judged bucket after the last bad one: buckets none of whose calls was judged within the run show nothing.
  if (buckets.some((b, i) => i > lastBad && b.success_share !== null)) {
    const from = Math.max(buckets[lastBad + 1].from_ms, Math.ceil(triggerEnd / stepMs) * stepMs);
    if (from < durationMs) return { verdict: "recovered", recovery: from - triggerEnd };
  }
  if (triggerEnd > 0 && after.some((b) => b.success_share !== null) && after.every((b) => b.success_share === null || low(b, METASTABLE_SHARE))) return { verdict: "metastable", recovery: null };
  return { verdict: "degraded", recovery: null };
}

export function checkExpect(expect: StormExpect | undefined, summary: StormSummary, buckets: readonly StormBucket[], stepMs: number, rateLimits?: RateLimitCost): ExpectCheck[] {
  if (expect === undefined) return [];
  const out: ExpectCheck[] = [];
  const at = (b: number) => `bucket ${b} (${b * stepMs}-${(b + 1) * stepMs} ms)`;
  const lastBad = findLastIndex(buckets, (b) => b.success_share !== null && b.success_share < RECOVERED_SHARE);
  const shareAt = (b: number) => `success was ${percent(buckets[b].success_share ?? 0)} of calls offered at ${at(b)}`;
  if (expect.max_amplification !== undefined) {
    const passed = summary.amplification <= expect.max_amplification;
    const worst = summary.worst_bucket;
    const where = worst === null ? "" : ` (worst ${worst.amplification} at ${at(worst.bucket)})`;
    out.push({ check: "max_amplification", limit: expect.max_amplification, actual: summary.amplification, passed, message: passed ? "" : `amplification ${summary.amplification} is above max_amplification ${expect.max_amplification}${where}` });
  }
  if (expect.min_success_ratio !== undefined) {
    const passed = summary.success_ratio >= expect.min_success_ratio;
    const worst = worstShare(buckets);
    const where = worst === -1 ? "" : ` (lowest: ${shareAt(worst)})`;
    out.push({ check: "min_success_ratio", limit: expect.min_success_ratio, actual: summary.success_ratio, passed, message: passed ? "" : `success ratio ${summary.success_ratio} is below min_success_ratio ${expect.min_success_ratio}${where}` });
  }
  if (expect.recovers_within_ms !== undefined) {
    const limit = expect.recovers_within_ms;
    const { verdict, recovery_ms: recovery } = summary;
    const passed = verdict === "stable" || (verdict === "recovered" && recovery !== null && recovery <= limit);
    const end = summary.trigger_end_ms;
    const message = passed
      ? ""
      : verdict === "recovered"
        ? `recovered ${recovery} ms after the last phase ended (at ${end} ms), later than recovers_within_ms ${limit}: ${shareAt(lastBad)}`
        : `did not recover (${verdict}) after the last phase ended (at ${end} ms); recovers_within_ms ${limit}: ${shareAt(lastBad)}`;
    out.push({ check: "recovers_within_ms", limit, actual: recovery, passed, message });
  }
  if (expect.max_p99_ms !== undefined) {
    const passed = summary.latency_ms.p99 <= expect.max_p99_ms;
    out.push({ check: "max_p99_ms", limit: expect.max_p99_ms, actual: summary.latency_ms.p99, passed, message: passed ? "" : `p99 call latency ${summary.latency_ms.p99} ms is above max_p99_ms ${expect.max_p99_ms}` });
  }
  if (expect.verdict !== undefined) {
    const passed = VERDICTS.indexOf(summary.verdict) <= VERDICTS.indexOf(expect.verdict);
    out.push({ check: "verdict", limit: expect.verdict, actual: summary.verdict, passed, message: passed ? "" : `verdict ${summary.verdict} is worse than expect verdict ${expect.verdict}: ${shareAt(lastBad)}` });
  }
  if (expect.max_upstream_429 !== undefined) {
    const limit = expect.max_upstream_429;
    const actual = rateLimits?.upstream_429 ?? 0;
    const passed = actual <= limit;
    const worst = most429(buckets);
    const where = worst === -1 ? "" : ` (most at ${at(worst)}: ${count429(buckets[worst])})`;
    out.push({ check: "max_upstream_429", limit, actual, passed, message: passed ? "" : `the upstream answered ${actual} 429s, more than max_upstream_429 ${limit}${where}` });
  }
  return out;
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
}

export function round(value: number, digits: number): number {
  const f = 10 ** digits;
  const r = Math.round(value * f) / f;
  return Object.is(r, -0) ? 0 : r;
}

const nullableRound = (value: number | null, digits: number): number | null => (value === null ? null : round(value, digits));

export const percent = (share: number): string => `${round(share * 100, 1)} %`;

function worstShare(buckets: readonly StormBucket[]): number {
  let worst = -1;
  for (const [i, b] of buckets.entries()) if (b.success_share !== null && (worst === -1 || b.success_share < buckets[worst].success_share!)) worst = i;
  return worst;
}

/** 429s the upstream answered in a bucket: its attempt errors whose label ends in the status. */
const count429 = (b: StormBucket): number => Object.entries(b.attempt_errors).reduce((n, [label, k]) => (label.endsWith(" 429") ? n + k : n), 0);

/** The bucket with the most 429s, or -1 when none has any. */
function most429(buckets: readonly StormBucket[]): number {
  let worst = -1;
  for (const [i, b] of buckets.entries()) if (count429(b) > (worst === -1 ? 0 : count429(buckets[worst]))) worst = i;
  return worst;
}

function findLastIndex<T>(list: readonly T[], test: (item: T) => boolean): number {
  for (let i = list.length - 1; i >= 0; i--) if (test(list[i])) return i;
  return -1;
}

function row(table: Map<string, Float64Array>, b: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const kind of [...table.keys()].sort()) {
    const n = table.get(kind)![b];
    if (n > 0) out[kind] = n;
  }
  return out;
}
