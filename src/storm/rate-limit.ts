/**
 * The upstream's own rate limit (SPEC 22, in a storm): at most `requests` attempts in each
 * fixed window of `per_ms`, the windows counted from the storm's time 0. Every attempt that
 * reaches the upstream counts, the ones it refuses included; past the limit it answers 429
 * at once. Its answers speak a dialect's quota headers (remaining, reset), so a client whose
 * playbook reads them (`from_headers`) is corrected by them as by the real API.
 *
 * A fixed window, not a sliding one: every dialect publishes a reset, the time the quota is
 * whole again (GitHub's hour, OpenAI's and the IETF draft's seconds to go), which a fixed
 * window has and a sliding one does not (there, requests come back one at a time). The
 * storm's virtual clock is its epoch: time 0 is the Unix epoch, as the client's clock reads
 * a Unix time there.
 */
import type { AdapterError, Response } from "failbook-runtime/model/fixture.js";
import type { RateLimitDialect } from "failbook-runtime/model/playbook.js";
import { headerSpecOf } from "failbook-runtime/engine/policies/rate-limits.js";
import type { HintForm } from "failbook-runtime/engine/classifier.js";
import type { UpstreamRateLimit } from "./model.js";

export class UpstreamLimiter {
  private window = -1;
  private count = 0;
  private readonly dialect: RateLimitDialect | undefined;

  constructor(private readonly limit: UpstreamRateLimit) {
    this.dialect = limit.headers;
  }

  /** The window in force at `t` ends then (ms). */
  windowEnd(t: number): number {
    return (Math.floor(t / this.limit.per_ms) + 1) * this.limit.per_ms;
  }

  /**
   * An attempt reaches the upstream at `now`: counted. Its quota left (0 or more) when it is
   * within the limit, else the 429 it gets at once.
   */
  admit(now: number): number | Response {
    const window = Math.floor(now / this.limit.per_ms);
    if (window !== this.window) {
      this.window = window;
      this.count = 0;
    }
    this.count++;
    if (this.count <= this.limit.requests) return this.limit.requests - this.count;
    return { status: "error", error: refusal(this.limit, this.windowEnd(now), now) };
  }

  /** A successful answer, at `now`, to an attempt admitted with `remaining` left in the window ending `resetAt`: the dialect's headers. */
  ok(remaining: number, resetAt: number, now: number): Response {
    if (this.dialect === undefined) return OK;
    return { status: "ok", value: true, headers: quotaHeaders(this.dialect, this.limit, remaining, resetAt, now) };
  }
}

const OK: Response = Object.freeze({ status: "ok", value: true }) as Response;

/**
 * Whether the real API's 429 carries `retry-after` besides its quota headers: Anthropic's
 * does (its docs), the IETF draft's pairs with one (RFC 6585); GitHub's primary limit says
 * only `x-ratelimit-reset` (retry-after is its secondary limits'), and OpenAI documents only
 * its `x-ratelimit-*` headers.
 */
const RETRY_AFTER_ON_429: Record<RateLimitDialect, boolean> = { github: false, openai: false, anthropic: true, ietf: true };

/** The 429 an upstream past its limit answers at `now`, its window ending `resetAt`: remaining 0 and the reset, and retry-after where the real API sends it. */
export function refusal(limit: UpstreamRateLimit, resetAt: number, now: number): AdapterError {
  const headers = quotaHeaders(limit.headers, limit, 0, resetAt, now);
  if (limit.headers === undefined || RETRY_AFTER_ON_429[limit.headers]) headers["retry-after"] = String(Math.ceil(Math.max(0, resetAt - now) / 1000));
  return { kind: "http", http_status: 429, message: "rate limit exceeded", headers };
}

/**
 * A dialect's quota headers: `remaining` requests left until `resetAt` (ms on the storm's
 * clock, its epoch), as answered at `now`. The names and the reset's form are the ones the
 * runtime reads (`headerSpecOf`), so a storm's upstream and the client agree by construction;
 * each form is written as the real API writes it (GitHub a Unix time in seconds, OpenAI a Go
 * duration, Anthropic an RFC 3339 time, the IETF draft its structured fields).
 */
export function quotaHeaders(dialect: RateLimitDialect | undefined, limit: UpstreamRateLimit, remaining: number, resetAt: number, now: number): Record<string, string> {
  if (dialect === undefined) return {};
  const spec = headerSpecOf(dialect);
  const toGo = Math.max(0, resetAt - now);
  if (spec.ietf === true) {
    return { [spec.limit!]: `"default";q=${limit.requests};w=${Math.ceil(limit.per_ms / 1000)}`, [spec.remaining]: `"default";r=${remaining};t=${Math.ceil(toGo / 1000)}` };
  }
  const headers: Record<string, string> = {};
  if (spec.limit !== undefined) headers[spec.limit] = String(limit.requests);
  headers[spec.remaining] = String(remaining);
  if (spec.reset !== undefined) headers[spec.reset[0]] = resetValue(spec.reset[1], resetAt, toGo);
  return headers;
}

function resetValue(form: HintForm, resetAt: number, toGo: number): string {
  switch (form) {
    case "epoch_seconds":
      return String(Math.ceil(resetAt / 1000));
    case "epoch_ms":
      return String(Math.ceil(resetAt));
    case "duration":
      return goDuration(toGo);
    default:
      return new Date(Math.ceil(resetAt / 1000) * 1000).toISOString().replace(".000Z", "Z");
  }
}

/** A duration as Go writes one, which OpenAI's reset headers use: `20ms`, `1.5s`, `6m0s`, `1h0m0s` (whole ms, rounded up). */
export function goDuration(ms: number): string {
  const total = Math.ceil(ms);
  if (total < 1000) return `${total}ms`;
  const h = Math.floor(total / 3_600_000);
  const m = Math.floor((total % 3_600_000) / 60_000);
  const s = String((total % 60_000) / 1000);
  return h > 0 ? `${h}h${m}m${s}s` : m > 0 ? `${m}m${s}s` : `${s}s`;
}
