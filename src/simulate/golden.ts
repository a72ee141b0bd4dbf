/**
 * Goldens: a fixture's `expect` names the outcome fields that must hold. `outcome` is the
 * outcome's kind, `events` the full event list, `delays_ms` the delays of its retries, any
 * other key the outcome field of that name. Objects inside match on the keys the golden
 * gives; lists match item by item.
 */
import type { PathSegment } from "failbook-runtime/model/finding.js";
import type { DispatchEvent, Outcome } from "failbook-runtime/model/outcome.js";
import { closest } from "../util/text.js";

/** One place where the golden and the run disagree. */
export interface GoldenDiff {
  /** Where in the fixture, starting at `expect`: ["expect", "events", 2, "delay_ms"]. */
  path: PathSegment[];
  kind: "value" | "length" | "unknown_key";
  expected: unknown;
  actual: unknown;
  /** Says what is wrong when it is not a value: a list of another length, an unknown key. */
  message?: string;
}

/** The keys an `expect` block may hold. */
export const GOLDEN_KEYS = [
  "outcome",
  "verdict",
  "attempts",
  "retried",
  "elapsed_ms",
  "reason",
  "queue",
  "replan",
  "exhausted",
  "envelope",
  "packet",
  "steps",
  "compensations",
  "calls",
  "parallelism",
  "dead_letters",
  "delays_ms",
  "waits_ms",
  "events",
] as const;
export type GoldenKey = (typeof GOLDEN_KEYS)[number];

export const isGoldenKey = (key: string): key is GoldenKey => (GOLDEN_KEYS as readonly string[]).includes(key);

/** The value a golden key compares with. */
export function actualFor(key: GoldenKey, outcome: Outcome, events: readonly DispatchEvent[]): unknown {
  switch (key) {
    case "outcome":
      return outcome.kind;
    case "events":
      return events;
    case "delays_ms":
      return delaysOf(events);
    case "waits_ms":
      return waitsOf(events);
    default:
      return outcome[key] ?? null;
  }
}

export function compareGolden(expect: Record<string, unknown>, outcome: Outcome, events: readonly DispatchEvent[]): GoldenDiff[] {
  const diffs: GoldenDiff[] = [];
  for (const [key, expected] of Object.entries(expect)) {
    if (!isGoldenKey(key)) {
      const near = closest(key, GOLDEN_KEYS);
      diffs.push({
        path: ["expect", key],
        kind: "unknown_key",
        expected,
        actual: undefined,
        message: `unknown expect key '${key}'${near ? ` (did you mean '${near}'?)` : ""}; expect takes ${GOLDEN_KEYS.join(", ")}`,
      });
      continue;
    }
    const diff =
      key === "delays_ms"
        ? scheduleDifference(expected, delaysOf(events), key, ["retry", "retries"], "delay")
        : key === "waits_ms"
          ? scheduleDifference(expected, waitsOf(events), key, ["rate-limit wait", "rate-limit waits"], "wait")
          : firstDifference(expected, actualFor(key, outcome, events), ["expect", key]);
    if (diff) diffs.push(diff);
  }
  return diffs;
}

/** The delays of the run's retries, in order: what `expect.delays_ms` pins. */
const delaysOf = (events: readonly DispatchEvent[]): number[] => events.flatMap((e) => (e.type === "retry_scheduled" ? [e.delay_ms] : []));

/** The waits for a rate limit's token, in order: what `expect.waits_ms` pins (SPEC 22). */
const waitsOf = (events: readonly DispatchEvent[]): number[] => events.flatMap((e) => (e.type === "rate_limit_waited" ? [e.ms] : []));

/** A schedule (delays, waits) compares as one list, reported whole with what differs first: it reads best side by side. */
function scheduleDifference(expected: unknown, actual: readonly number[], key: "delays_ms" | "waits_ms", [one, many]: [string, string], what: string): GoldenDiff | undefined {
  const pinned: readonly unknown[] = Array.isArray(expected) ? expected : [];
  const i = actual.findIndex((d, n) => n < pinned.length && pinned[n] !== d);
  if (i === -1 && pinned.length === actual.length && Array.isArray(expected)) return undefined;
  const count = (n: number) => `${n} ${n === 1 ? one : many}`;
  const message = i === -1 ? `${count(actual.length)} ${key === "delays_ms" ? "scheduled" : "made"}, not ${pinned.length}` : `${what} ${i + 1} is ${actual[i]}ms, not ${String(pinned[i])}ms`;
  return { path: ["expect", key], kind: "value", expected, actual: [...actual], message };
}

/** The first place where `actual` does not hold what `expected` asks, depth first. */
export function firstDifference(expected: unknown, actual: unknown, path: PathSegment[]): GoldenDiff | undefined {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return { path, kind: "value", expected, actual };
    for (let i = 0; i < Math.min(expected.length, actual.length); i++) {
      const d = firstDifference(expected[i], actual[i], [...path, i]);
      if (d) return d;
    }
    if (expected.length !== actual.length) {
      const i = Math.min(expected.length, actual.length);
      return {
        path: [...path, i],
        kind: "length",
        expected: expected[i],
        actual: actual[i],
        message: `expected ${expected.length} ${expected.length === 1 ? "item" : "items"}, got ${actual.length}`,
      };
    }
    return undefined;
  }
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return { path, kind: "value", expected, actual };
    for (const [k, v] of Object.entries(expected)) {
      const d = firstDifference(v, (actual as Record<string, unknown>)[k], [...path, k]);
      if (d) return d;
    }
    return undefined;
  }
  const a = actual === undefined ? null : actual;
  return expected === a ? undefined : { path, kind: "value", expected, actual: a };
}

/** `expect.events[2].delay_ms` */
export function goldenPath(path: readonly PathSegment[]): string {
  return path.map((s, i) => (typeof s === "number" ? `[${s}]` : i === 0 ? s : `.${s}`)).join("");
}

/** The nested parts of a multi-call outcome: a golden records them in full (SPEC 13). */
const NESTED_KEYS = ["steps", "compensations", "calls", "parallelism"] as const;

/**
 * The golden a run would record: for an existing block, the same keys; else the essentials.
 * Either way a saga's steps and compensations and a wave fixture's calls are recorded in
 * full, so an --update golden checks what a hand-written one would.
 */
export function recordedGolden(
  expect: Record<string, unknown> | undefined,
  outcome: Outcome,
  events: readonly DispatchEvent[],
  options: { withDelays?: boolean } = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (expect) {
    for (const key of Object.keys(expect)) out[key] = isGoldenKey(key) ? actualFor(key, outcome, events) : expect[key];
  } else {
    for (const key of ["outcome", "verdict", "attempts", "retried"] as const) out[key] = actualFor(key, outcome, events);
    if (options.withDelays) out.delays_ms = delaysOf(events);
    if (outcome.reason !== null) out.reason = outcome.reason;
    if (outcome.queue !== null) out.queue = outcome.queue;
  }
  for (const key of NESTED_KEYS) if (outcome[key] !== undefined && !(key in out)) out[key] = outcome[key];
  // Opt-in (`--with-delays`): a block that does not pin its delays gets them at its end.
  if (options.withDelays && !("delays_ms" in out)) out.delays_ms = delaysOf(events);
  return out;
}
