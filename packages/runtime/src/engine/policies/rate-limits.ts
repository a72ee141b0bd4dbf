/**
 * Rate limits (SPEC 22): pace calls before the upstream answers 429. Each limit is a token
 * bucket over the tools it names, taken before every attempt (retries included: the upstream
 * counts attempts). Tokens are reserved, so dispatches waiting at once queue in order (the
 * bucket may go below zero: the wait of the next one is how far). `from_headers` lets each
 * response's remaining-quota and reset headers correct the bucket; `adaptive: aws` is the AWS
 * SDK's own limiter (adaptive-aws.ts).
 */
import type { AdapterError } from "../../model/fixture.js";
import type { RateLimitDialect, RateLimitHeaders, RateLimitPolicy } from "../../model/playbook.js";
import { hintValue, type HintForm } from "../classifier.js";
import { globMatches } from "../match.js";
import { headerValue } from "../retry-after.js";
import { AwsAdaptiveLimiter } from "./adaptive-aws.js";

/** What an attempt that found no token fails as (SPEC 22): classified like `circuit_open`. */
export const rateLimitedError = (name: string): AdapterError => ({ kind: "rate_limited", message: `rate limit ${name} is empty`, side_effect_state: "none" });

/** The error names the AWS SDK reads as throttling (`THROTTLING_ERROR_CODES`), beside a 429 and the class `throttling`. */
export const AWS_THROTTLING_KINDS: ReadonlySet<string> = new Set([
  "BandwidthLimitExceeded",
  "EC2ThrottledException",
  "LimitExceededException",
  "PriorRequestNotComplete",
  "ProvisionedThroughputExceededException",
  "RequestLimitExceeded",
  "RequestThrottled",
  "RequestThrottledException",
  "SlowDown",
  "ThrottledException",
  "Throttling",
  "ThrottlingException",
  "TooManyRequestsException",
  "TransactionInProgressException",
]);

/** A response that slows an adaptive limiter: its verdict's class is `throttling`, a 429, or a name the AWS SDK throttles on. */
export function isThrottling(verdictClass: string | undefined, error: AdapterError | null): boolean {
  return verdictClass === "throttling" || error?.http_status === 429 || (typeof error?.kind === "string" && AWS_THROTTLING_KINDS.has(error.kind));
}

/** A header reading's parts, as one dialect names them (render and explain print them). */
export interface HeaderSpec {
  readonly remaining: string;
  readonly reset: readonly [string, HintForm] | undefined;
  readonly limit: string | undefined;
  /** The IETF draft's structured `RateLimit` field. */
  readonly ietf?: true;
}

const DIALECTS: Record<RateLimitDialect, HeaderSpec> = {
  github: { remaining: "x-ratelimit-remaining", reset: ["x-ratelimit-reset", "epoch_seconds"], limit: "x-ratelimit-limit" },
  openai: { remaining: "x-ratelimit-remaining-requests", reset: ["x-ratelimit-reset-requests", "duration"], limit: "x-ratelimit-limit-requests" },
  anthropic: { remaining: "anthropic-ratelimit-requests-remaining", reset: ["anthropic-ratelimit-requests-reset", "delay"], limit: "anthropic-ratelimit-requests-limit" },
  ietf: { remaining: "ratelimit", reset: undefined, limit: "ratelimit-policy", ietf: true },
};

export function headerSpecOf(from: RateLimitDialect | RateLimitHeaders): HeaderSpec {
  if (typeof from === "string") return DIALECTS[from];
  const reset = from.reset;
  return {
    remaining: from.remaining.toLowerCase(),
    reset: reset === undefined ? undefined : typeof reset === "string" ? [reset.toLowerCase(), "delay"] : [reset.name.toLowerCase(), "duration" in reset ? "duration" : reset.epoch === "ms" ? "epoch_ms" : "epoch_seconds"],
    limit: from.limit?.toLowerCase(),
  };
}

/** What one response's headers say of a limit: requests left, and when the window resets (ms from now). */
export interface QuotaReading {
  remaining: number;
  resetInMs: number | undefined;
}

/** A header the limit reads that held garbage, a negative or a far-future value: ignored, with an event. */
export interface QuotaIgnored {
  ignored: string;
  value: string;
}

/** A reset further off than this is not believed (SPEC 22: ignored with an event): a day. */
const FARTHEST_RESET_MS = 86_400_000;


/**
 * A response's remaining quota, or undefined when its headers do not say (absent or garbage:
 * SPEC 22 ignores a header it cannot read). `nowEpochMs` is what a Unix time is read against.
 */
export function readQuota(spec: HeaderSpec, headers: Record<string, string>, nowEpochMs: number): QuotaReading | QuotaIgnored | undefined {
  if (spec.ietf) return readIetf(headers);
  const remainingText = headerValue(headers, spec.remaining);
  if (remainingText === undefined) return undefined;
  if (!/^\s*\d{1,15}\s*$/.test(remainingText)) return { ignored: spec.remaining, value: remainingText };
  const remaining = Number(remainingText);
  let resetInMs: number | undefined;
  if (spec.reset !== undefined) {
    const text = headerValue(headers, spec.reset[0]);
    if (text !== undefined) {
      const form = spec.reset[1];
      // Anthropic's reset is an RFC 3339 time.
      const rfc3339 = form === "delay" && /^\d{4}-\d{2}-\d{2}T/.test(text.trim()) ? Date.parse(text.trim()) : NaN;
      const hint = Number.isNaN(rfc3339) ? hintValue(text, false, "strict", form) : { kind: "date" as const, at: rfc3339 };
      const ms = hint === null || hint.kind === "negative" ? undefined : hint.kind === "date" ? Math.max(0, hint.at - nowEpochMs) : hint.ms;
      if (ms === undefined || ms > FARTHEST_RESET_MS) return { ignored: spec.reset[0], value: text };
      resetInMs = ms;
    }
  }
  return { remaining, resetInMs };
}

/** The IETF httpapi draft's `RateLimit: "default";r=50;t=30` (or the older `limit=100, remaining=50, reset=30`). */
function readIetf(headers: Record<string, string>): QuotaReading | QuotaIgnored | undefined {
  const text = headerValue(headers, "ratelimit");
  if (text === undefined) return undefined;
  if (text.length > 1000) return { ignored: "ratelimit", value: text.slice(0, 100) };
  const param = (names: string[]): number | undefined => {
    for (const name of names) {
      const m = new RegExp(`(?:^|[;,\\s])${name}=(\\d{1,15})(?=$|[;,\\s])`).exec(text);
      if (m !== null) return Number(m[1]);
    }
    return undefined;
  };
  const remaining = param(["r", "remaining"]);
  if (remaining === undefined) return { ignored: "ratelimit", value: text };
  const reset = param(["t", "reset"]);
  if (reset !== undefined && reset * 1000 > FARTHEST_RESET_MS) return { ignored: "ratelimit", value: text };
  return { remaining, resetInMs: reset === undefined ? undefined : reset * 1000 };
}

/** What pacing asks of a bucket: this process's own, or its lease of a fleet's (engine/fleet/rate.ts). */
export interface RateBucket {
  readonly capacity: number;
  readonly tokens: number;
  refill(now: number): void;
  tokensAt(now: number): number;
  reserve(now: number): number;
  tryTake(now: number): boolean;
  release(): void;
  correct(reading: QuotaReading, now: number): void;
}

/** A token bucket of `capacity`, refilled at `perMs` ms a token, reservable below zero. */
class TokenBucket implements RateBucket {
  tokens: number;
  private last: number;
  /** The upstream said its window resets then (from_headers): no refill before, full at it. */
  private resetAt: number | undefined;

  constructor(
    readonly capacity: number,
    /** Tokens a millisecond. */
    private readonly rate: number,
    now: number,
  ) {
    this.tokens = capacity;
    this.last = now;
  }

  refill(now: number): void {
    if (this.resetAt !== undefined) {
      if (now < this.resetAt) return;
      // The upstream's window starts afresh: a full bucket, less what waiters reserved of it.
      this.tokens = this.capacity + Math.min(0, this.tokens);
      this.last = this.resetAt;
      this.resetAt = undefined;
    }
    if (now > this.last) this.tokens = Math.min(this.capacity, this.tokens + (now - this.last) * this.rate);
    this.last = Math.max(this.last, now);
  }

  /** The tokens at `now` (below zero: reserved by waiters), without refilling the bucket. */
  tokensAt(now: number): number {
    if (this.resetAt !== undefined) return now < this.resetAt ? this.tokens : this.capacity + Math.min(0, this.tokens) + (now - this.resetAt) * this.rate;
    return now > this.last ? Math.min(this.capacity, this.tokens + (now - this.last) * this.rate) : this.tokens;
  }

  /** Reserve one token: the wait until it is due (0 when it is there now). */
  reserve(now: number): number {
    this.refill(now);
    this.tokens -= 1;
    if (this.tokens >= 0) return 0;
    if (this.resetAt !== undefined) return Math.ceil(this.resetAt - now + Math.max(0, -this.tokens - this.capacity) / this.rate);
    return Math.ceil(-this.tokens / this.rate);
  }

  /** Take a token only if one is there now. */
  tryTake(now: number): boolean {
    this.refill(now);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Give back a reserved token (its wait was refused). */
  release(): void {
    this.tokens += 1;
  }

  /** The upstream says `remaining` are left, until a reset `resetInMs` from now. */
  correct(reading: QuotaReading, now: number): void {
    this.refill(now);
    this.tokens = Math.min(this.tokens, reading.remaining);
    if (reading.resetInMs !== undefined && reading.remaining < this.capacity) this.resetAt = now + reading.resetInMs;
  }
}

interface Limit {
  readonly name: string;
  readonly policy: RateLimitPolicy;
  readonly globs: readonly string[];
  /** This process's bucket, or with `scope: fleet` its lease of the fleet's (which falls back on this process's bucket). */
  bucket: RateBucket | undefined;
  readonly adaptive: AwsAdaptiveLimiter | undefined;
  readonly headers: HeaderSpec | undefined;
}

/** What pacing decided for one attempt: go (after `waitMs`, on `limit`), or refused by `limit`. */
export type Pacing = { kind: "go"; waitMs: number; limit: string | undefined } | { kind: "refused"; limit: string };

const GO: Pacing = Object.freeze({ kind: "go", waitMs: 0, limit: undefined });

export class RateLimits {
  private readonly limits: Limit[] = [];
  private readonly byTool = new Map<string, readonly Limit[]>();

  constructor(policies: Readonly<Record<string, RateLimitPolicy>>, now: number, seconds: () => number) {
    for (const name of Object.keys(policies)) {
      const policy = policies[name] as RateLimitPolicy;
      const limit = policy.limit;
      this.limits.push({
        name,
        policy,
        globs: typeof policy.tools === "string" ? [policy.tools] : policy.tools,
        bucket: limit === undefined ? undefined : new TokenBucket(policy.burst ?? limit.requests, limit.requests / limit.per_ms, now),
        adaptive: policy.adaptive === "aws" ? new AwsAdaptiveLimiter(seconds) : undefined,
        headers: policy.from_headers === undefined ? undefined : headerSpecOf(policy.from_headers),
      });
    }
  }

  /** Give a `scope: fleet` limit with a bucket its lease of the fleet's (engine/fleet/index.ts), made over this process's bucket. */
  lease<T extends RateBucket>(name: string, make: (own: RateBucket) => T): T | undefined {
    const limit = this.limits.find((l) => l.name === name);
    if (limit?.bucket === undefined) return undefined;
    return (limit.bucket = make(limit.bucket));
  }

  /** The limits over a tool, worked out once per tool. */
  of(tool: string): readonly Limit[] {
    let limits = this.byTool.get(tool);
    if (limits === undefined) {
      limits = this.limits.filter((l) => l.globs.some((g) => globMatches(g, tool)));
      if (this.byTool.size >= 4096) this.byTool.clear();
      this.byTool.set(tool, limits);
    }
    return limits;
  }

  /** Take a token of every limit over the tool if each has one now (nothing is taken otherwise): the dispatch's path without a wait. */
  tryTake(tool: string, now: number): boolean {
    const limits = this.of(tool);
    for (let i = 0; i < limits.length; i++) {
      const bucket = (limits[i] as Limit).bucket;
      if (bucket !== undefined && bucket.tokens < 1 && (bucket.refill(now), bucket.tokens < 1)) return false;
    }
    // An adaptive limiter takes its token as it says yes: it goes last, and only while off or holding one.
    for (let i = 0; i < limits.length; i++) {
      const adaptive = (limits[i] as Limit).adaptive;
      if (adaptive !== undefined && adaptive.active && adaptive.tokens < 1) return false;
    }
    for (let i = 0; i < limits.length; i++) {
      const l = limits[i] as Limit;
      l.bucket?.tryTake(now);
      l.adaptive?.tryAcquire();
    }
    return true;
  }

  /**
   * Pace one attempt: reserve a token of each limit over the tool; the attempt goes after the
   * longest wait, or is refused when a limit fails when empty, or its wait would pass its
   * `max_wait_ms` or `untilMs` (the dispatch's deadline), giving back what it reserved.
   * `wait: false` (a hedge) never waits.
   */
  pace(tool: string, now: number, untilMs: number | undefined, wait = true): Pacing {
    const limits = this.of(tool);
    if (limits.length === 0) return GO;
    let waitMs = 0;
    let on: string | undefined;
    const reserved: RateBucket[] = [];
    for (let i = 0; i < limits.length; i++) {
      const l = limits[i] as Limit;
      const bucket = l.bucket;
      if (bucket === undefined) continue;
      const ms = bucket.reserve(now);
      reserved.push(bucket);
      if (ms <= 0) continue;
      const bound = Math.min(l.policy.max_wait_ms ?? Number.POSITIVE_INFINITY, untilMs === undefined ? Number.POSITIVE_INFINITY : untilMs - now);
      if (!wait || l.policy.when_empty === "fail" || ms > bound) {
        for (const b of reserved) b.release();
        return { kind: "refused", limit: l.name };
      }
      if (ms > waitMs) {
        waitMs = ms;
        on = l.name;
      }
    }
    return waitMs === 0 ? GO : { kind: "go", waitMs, limit: on };
  }

  /** The adaptive limiters over a tool: each takes its token after `pace`'s wait, in its own loop. */
  adaptiveOf(tool: string): readonly { name: string; limiter: AwsAdaptiveLimiter; maxWaitMs: number | undefined; fail: boolean }[] {
    return this.of(tool).flatMap((l) => (l.adaptive === undefined ? [] : [{ name: l.name, limiter: l.adaptive, maxWaitMs: l.policy.max_wait_ms, fail: l.policy.when_empty === "fail" }]));
  }

  /**
   * An attempt answered: its headers correct the buckets that read them, and an adaptive
   * limiter hears whether it was throttled. `headers` may be absent.
   */
  answered(tool: string, headers: Record<string, string> | undefined, throttling: boolean, now: number, nowEpochMs: number, ignored: (limit: string, header: string, value: string) => void): void {
    const limits = this.of(tool);
    for (let i = 0; i < limits.length; i++) {
      const l = limits[i] as Limit;
      if (l.adaptive !== undefined) l.adaptive.update(throttling);
      const bucket = l.bucket;
      if (l.headers !== undefined && bucket !== undefined && headers !== undefined) {
        const reading = readQuota(l.headers, headers, nowEpochMs);
        if (reading === undefined) continue;
        if ("ignored" in reading) ignored(l.name, reading.ignored, reading.value);
        else bucket.correct(reading, now);
      }
    }
  }

  /** Each limit's bucket at `now` (snapshots, SPEC 24); an adaptive limiter's tokens, fill rate and capacity. Changes nothing. */
  viewAt(now: number): { name: string; bucket: { tokens: number; capacity: number } | undefined; adaptive: { active: boolean; tokens: number; fillRate: number; capacity: number } | undefined }[] {
    return this.limits.map((l) => ({
      name: l.name,
      bucket: l.bucket === undefined ? undefined : { tokens: Math.min(l.bucket.capacity, l.bucket.tokensAt(now)), capacity: l.bucket.capacity },
      adaptive: l.adaptive === undefined ? undefined : { active: l.adaptive.active, tokens: l.adaptive.tokensNow(), fillRate: l.adaptive.fillRate, capacity: l.adaptive.maxCapacity },
    }));
  }

  /** Whether any limit over the tool reads responses (headers or throttling): answers must be shown to it. */
  listens(tool: string): boolean {
    const limits = this.of(tool);
    for (let i = 0; i < limits.length; i++) if ((limits[i] as Limit).headers !== undefined || (limits[i] as Limit).adaptive !== undefined) return true;
    return false;
  }
}
