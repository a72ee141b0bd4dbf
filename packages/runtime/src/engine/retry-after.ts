/**
 * Retry-After as servers send it (SPEC 12, 18): which headers and fields to read, how to
 * read them, and what the hint does to a retry's computed backoff. Pure: the error, the
 * policy and the time come in, a delay (or "give up") goes out. One value is read by the
 * classifier's hintValue, so a match rule's `retry_after: present` and the delay agree.
 */
import type { AdapterError } from "../model/fixture.js";
import type { RetryAfterPolicy } from "../model/playbook.js";
import { fieldHintValue, hintValue, MAX_HINT_MS, parseHttpDate, type HintForm, type HintSource, type HintValue } from "./classifier.js";

/** Read in this order when the playbook names no headers: OpenAI's and the standard one. */
export const DEFAULT_RETRY_AFTER_HEADERS: readonly string[] = ["retry-after-ms", "retry-after"];

export interface RetryAfterReading {
  /** The hint in whole milliseconds (0 for a date in the past), or undefined when there is none. */
  hintMs: number | undefined;
  /** Listed headers that were present but neither a number nor an HTTP date: counted as absent. */
  unreadable: { header: string; value: string }[];
  /** With `invalid: give_up`: the negative or unparseable hint that ends the dispatch (`retry_after_invalid`). */
  invalid?: { source: string; value: string };
}

/**
 * The server's hint: the listed headers (in the policy's order, or the response's with
 * `order: response`), then the listed `fields`, then the error's own `retry_after_ms`; the
 * first that gives a hint wins. An unparseable value is skipped and a negative one reads as
 * 0 (`invalid: ignore`), or either ends the reading as invalid (`invalid: give_up`); with
 * `zero: absent` a 0 hint is skipped. `nowMs` is the local clock, what an HTTP date is read
 * against when the error has no `date` header (or always, with `clock: local`).
 */
export function readRetryAfter(error: AdapterError | null, policy: RetryAfterPolicy | undefined, nowMs: number): RetryAfterReading {
  const unreadable: RetryAfterReading["unreadable"] = [];
  if (error === null) return { hintMs: undefined, unreadable };
  const giveUp = policy?.invalid === "give_up";
  const zeroAbsent = policy?.zero === "absent";
  const parse = policy?.parse ?? "strict";
  const headers = error.headers !== null && typeof error.headers === "object" ? error.headers : undefined;
  const now = () => (policy?.clock === "local" || headers === undefined ? undefined : dateOf(headers)) ?? nowMs;
  const sources: { name: string; hint: HintValue; value: string; header: boolean }[] = [];
  for (const [name, value, form] of headers === undefined ? [] : listedHeaders(headers, policy)) {
    sources.push({ name, hint: hintValue(value, isMillisecondHeader(name, policy), parse, form), value, header: true });
  }
  const fields = error.fields !== null && typeof error.fields === "object" ? error.fields : undefined;
  for (const name of policy?.fields ?? []) {
    const value = fields !== undefined && Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (value !== undefined) sources.push({ name, hint: fieldHintValue(value), value: String(value), header: false });
  }
  for (const { name, hint, value, header } of sources) {
    if (hint === null || hint.kind === "negative") {
      if (giveUp) return { hintMs: undefined, unreadable, invalid: { source: name, value } };
      if (hint === null) {
        if (header) unreadable.push({ header: name, value });
        continue;
      }
    }
    // A negative value (read as now) and a past date are 0 too; 0.4 ms is a hint that floors to 0.
    const ms = hint.kind === "negative" ? 0 : hint.kind === "date" ? clampHint(hint.at - now()) : hint.ms;
    const zero = hint.kind === "delay" ? hint.zero : ms === 0;
    if (zero && zeroAbsent) continue;
    return { hintMs: ms, unreadable };
  }
  const own = error.retry_after_ms;
  // The error's own hint obeys the caps a header's does: at most MAX_HINT_MS, then max_ms.
  const ownMs = typeof own === "number" && Number.isFinite(own) ? clampHint(own) : undefined;
  return { hintMs: ownMs === 0 && zeroAbsent ? undefined : ownMs, unreadable };
}

/** The policy's headers as [lower-case name, how its value reads], in its order. */
export function listedForms(policy: RetryAfterPolicy | undefined): [string, HintForm][] {
  return (policy?.headers ?? DEFAULT_RETRY_AFTER_HEADERS).map((h) => (typeof h === "string" ? [h.toLowerCase(), "delay"] : [h.name.toLowerCase(), h.duration === true ? "duration" : h.epoch === "ms" ? "epoch_ms" : "epoch_seconds"]));
}

/** The listed headers the error has, as [lower-case name, value, form]: in the policy's order, or the response's. */
function listedHeaders(headers: Record<string, unknown>, policy: RetryAfterPolicy | undefined): [string, string, HintForm][] {
  const listed = listedForms(policy);
  if (policy?.order !== "response") {
    return listed.flatMap(([name, form]): [string, string, HintForm][] => {
      const value = headerValue(headers, name);
      return value === undefined ? [] : [[name, value, form]];
    });
  }
  const out: [string, string, HintForm][] = [];
  for (const key of Object.keys(headers)) {
    const name = key.toLowerCase();
    const value = headers[key];
    const entry = listed.find(([n]) => n === name);
    if (typeof value === "string" && entry !== undefined && !out.some(([n]) => n === name)) out.push([name, value, entry[1]]);
  }
  return out;
}

/** The policy a `retry_after: present` rule reads, compiled for the classifier. */
export function hintSourceOf(policy: RetryAfterPolicy): HintSource {
  return {
    headers: listedForms(policy).map(([name, form]) => [name, isMillisecondHeader(name, policy), form] as const),
    fields: policy.fields ?? [],
    parse: policy.parse ?? "strict",
    zeroAbsent: policy.zero === "absent",
  };
}

export type RetryAfterDecision = { kind: "delay"; delayMs: number } | { kind: "give_up"; hintMs: number };

/**
 * What the hint does to the computed backoff. `mode: exact` waits the hint as it is (gRPC's
 * pushback, Temporal's next_retry_delay). Otherwise: clamp it to backoff +
 * `max_over_backoff_ms`, then hold it to `max_ms` (ignore, cap or give up), then wait the
 * longer of the two (`mode: max`) or the hint itself (`mode: replace`).
 */
export function applyRetryAfter(backoffMs: number, hintMs: number | undefined, policy: RetryAfterPolicy | undefined): RetryAfterDecision {
  if (hintMs === undefined) return { kind: "delay", delayMs: backoffMs };
  if (policy?.mode === "exact") return { kind: "delay", delayMs: hintMs };
  let hint = hintMs;
  if (policy?.max_over_backoff_ms !== undefined) hint = Math.min(hint, backoffMs + policy.max_over_backoff_ms);
  if (policy?.max_ms !== undefined && hint > policy.max_ms) {
    switch (policy.above_max ?? "cap") {
      case "ignore":
        return { kind: "delay", delayMs: backoffMs };
      case "give_up":
        return { kind: "give_up", hintMs: hint };
      case "cap":
        hint = policy.max_ms;
    }
  }
  return { kind: "delay", delayMs: (policy?.mode ?? "max") === "replace" ? hint : Math.max(backoffMs, hint) };
}

/** A header's value, its name compared in any case; a non-string value counts as absent. */
export function headerValue(headers: Record<string, unknown>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() !== wanted) continue;
    const value = headers[key];
    if (typeof value === "string") return value;
  }
  return undefined;
}

/** A header read as milliseconds: its name ends in `-ms`, or the policy lists it in `ms_headers` (AWS's x-amz-retry-after). */
export function isMillisecondHeader(name: string, policy: RetryAfterPolicy | undefined): boolean {
  const lower = name.toLowerCase();
  return lower.endsWith("-ms") || (policy?.ms_headers ?? []).some((h) => h.toLowerCase() === lower);
}

/**
 * One header's value in whole milliseconds: `*-ms` headers (and `ms_headers`) are
 * milliseconds; any other is seconds (decimals read exactly) or an HTTP date. Negative
 * values and past dates mean now.
 */
export function parseHint(name: string, value: string, now: () => number, ms = name.toLowerCase().endsWith("-ms"), parse: RetryAfterPolicy["parse"] = "strict"): number | undefined {
  const hint = hintValue(value, ms, parse);
  if (hint === null) return undefined;
  return hint.kind === "negative" ? 0 : hint.kind === "date" ? clampHint(hint.at - now()) : hint.ms;
}

const clampHint = (ms: number): number => Math.min(MAX_HINT_MS, Math.max(0, Math.floor(ms)));

/** The error's own `date` header, when it is an HTTP date. */
function dateOf(headers: Record<string, unknown>): number | undefined {
  const value = headerValue(headers, "date");
  return value === undefined ? undefined : (parseHttpDate(value) ?? undefined);
}

export { parseHttpDate };
