/**
 * Retry-After as servers send it (SPEC 12): which header to read, how to read it, and what
 * the hint does to a retry's computed backoff. Pure: the error, the policy and the time come
 * in, a delay (or "give up") goes out.
 */
import type { AdapterError } from "../model/fixture.js";
import type { RetryAfterPolicy } from "../model/playbook.js";

/** Read in this order when the playbook names no headers: OpenAI's and the standard one. */
export const DEFAULT_RETRY_AFTER_HEADERS: readonly string[] = ["retry-after-ms", "retry-after"];

export interface RetryAfterReading {
  /** The hint in whole milliseconds (0 for a date in the past), or undefined when there is none. */
  hintMs: number | undefined;
  /** Listed headers that were present but neither a number nor an HTTP date: counted as absent. */
  unreadable: { header: string; value: string }[];
}

/**
 * The server's hint: the first listed header present (and readable) wins, then the error's
 * own `retry_after_ms`. `nowMs` is the time an HTTP date is read against when the error has
 * no `date` header.
 */
export function readRetryAfter(error: AdapterError | null, policy: RetryAfterPolicy | undefined, nowMs: number): RetryAfterReading {
  const unreadable: RetryAfterReading["unreadable"] = [];
  if (error === null) return { hintMs: undefined, unreadable };
  const headers = error.headers;
  if (headers !== undefined && headers !== null && typeof headers === "object") {
    for (const name of policy?.headers ?? DEFAULT_RETRY_AFTER_HEADERS) {
      const value = headerValue(headers, name);
      if (value === undefined) continue;
      const ms = parseHint(name, value, () => dateOf(headers) ?? nowMs, isMillisecondHeader(name, policy));
      if (ms !== undefined) return { hintMs: ms, unreadable };
      unreadable.push({ header: name.toLowerCase(), value });
    }
  }
  const own = error.retry_after_ms;
  return { hintMs: typeof own === "number" && Number.isFinite(own) ? Math.max(0, Math.floor(own)) : undefined, unreadable };
}

export type RetryAfterDecision = { kind: "delay"; delayMs: number } | { kind: "give_up"; hintMs: number };

/**
 * What the hint does to the computed backoff: clamp it to backoff + `max_over_backoff_ms`,
 * then hold it to `max_ms` (ignore, cap or give up), then wait the longer of the two
 * (`mode: max`) or the hint itself (`mode: replace`).
 */
export function applyRetryAfter(backoffMs: number, hintMs: number | undefined, policy: RetryAfterPolicy | undefined): RetryAfterDecision {
  if (hintMs === undefined) return { kind: "delay", delayMs: backoffMs };
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

/** Longest hint a value may give: 30 days, the schema's ceiling on any delay. */
const MAX_HINT_MS = 2_592_000_000;

const NUMBER = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)\s*$/;

/** A header read as milliseconds: its name ends in `-ms`, or the policy lists it in `ms_headers` (AWS's x-amz-retry-after). */
export function isMillisecondHeader(name: string, policy: RetryAfterPolicy | undefined): boolean {
  const lower = name.toLowerCase();
  return lower.endsWith("-ms") || (policy?.ms_headers ?? []).some((h) => h.toLowerCase() === lower);
}

/**
 * One header's value in whole milliseconds: `*-ms` headers (and `ms_headers`) are
 * milliseconds; any other is seconds (fractions allowed) or an HTTP date. Negative values
 * and past dates mean now.
 */
export function parseHint(name: string, value: string, now: () => number, ms = name.toLowerCase().endsWith("-ms")): number | undefined {
  if (value.length > 100) return undefined;
  if (NUMBER.test(value)) {
    const n = Number(value.trim());
    return clampHint(ms ? n : n * 1000);
  }
  if (ms) return undefined;
  const date = parseHttpDate(value);
  return date === undefined ? undefined : clampHint(date - now());
}

const clampHint = (ms: number): number => Math.min(MAX_HINT_MS, Math.max(0, Math.floor(ms)));

/** The error's own `date` header, when it is an HTTP date. */
function dateOf(headers: Record<string, unknown>): number | undefined {
  const value = headerValue(headers, "date");
  return value === undefined ? undefined : parseHttpDate(value);
}

// RFC 9110 section 5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms.
const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const RFC_850 = /^(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), \d{2}-(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-\d{2} \d{2}:\d{2}:\d{2} GMT$/;
const ASCTIME = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/** Milliseconds since the epoch of an HTTP date, or undefined. */
export function parseHttpDate(value: string): number | undefined {
  const text = value.trim();
  let ms: number;
  if (IMF_FIXDATE.test(text) || RFC_850.test(text)) ms = Date.parse(text);
  else if (ASCTIME.test(text)) ms = Date.parse(`${text} GMT`);
  else return undefined;
  return Number.isFinite(ms) ? ms : undefined;
}
