/** The playbook: one compensation action per verdict, plus run-wide budgets (SPEC section 3). */

/**
 * none, full (= 1), equal (= 0.5), a ratio r in (0, 1] (the delay is drawn from [d(1-r), d]),
 * or a range: the delay times a uniform draw from [min, max] (gRPC's 0.8 to 1.2, SPEC 18).
 */
export type Jitter = "none" | "full" | "equal" | number | JitterRange;

/** The delay times a uniform draw from [min, max]; `integer` draws whole milliseconds, both ends included (Azure). */
export interface JitterRange {
  min: number;
  max: number;
  integer?: boolean;
}
/** @deprecated The named jitters only; use `Jitter`. */
export type JitterKind = "none" | "full" | "equal";

export type BackoffFormula =
  | { strategy: "exponential"; base_ms: number; factor?: number; cap_ms?: number; jitter?: Jitter; min_ms?: number }
  | { strategy: "linear"; base_ms: number; cap_ms?: number; jitter?: Jitter; min_ms?: number }
  | { strategy: "constant"; base_ms: number; cap_ms?: number; jitter?: Jitter; min_ms?: number }
  | { strategy: "decorrelated"; base_ms: number; cap_ms?: number; min_ms?: number };

/** How a server's Retry-After hint sets a retry's delay (SPEC 12). */
/**
 * A header a Retry-After policy reads: its name (a delay in seconds, or milliseconds when it
 * ends in `-ms`, or an HTTP date), or a rate limit's reset header (SPEC 21): a Unix time
 * (`epoch`, GitHub's `x-ratelimit-reset`) or a duration (OpenAI's `x-ratelimit-reset-requests: 1m30.5s`).
 */
export type RetryAfterHeader = string | { name: string; epoch: "seconds" | "ms"; duration?: undefined } | { name: string; duration: true; epoch?: undefined };

export interface RetryAfterPolicy {
  /** Read in order, the first present wins; a name ending in `-ms` is milliseconds. */
  headers?: RetryAfterHeader[];
  /** Listed headers read as milliseconds although their names do not end in `-ms`. */
  ms_headers?: string[];
  max_ms?: number;
  above_max?: "ignore" | "cap" | "give_up";
  /** Declared numeric error fields holding a delay in milliseconds, read after the headers (SPEC 18). */
  fields?: string[];
  /** `exact`: wait the hint, neither raised to the backoff nor capped (gRPC pushback, Temporal). */
  mode?: "max" | "replace" | "exact";
  max_over_backoff_ms?: number;
  /** A negative or unparseable hint: absent (default), or the end of the dispatch (`retry_after_invalid`). */
  invalid?: "ignore" | "give_up";
  /** How a hint parses: failbook's grammar (default), JavaScript's `Number`, or `parseFloat`'s prefix. */
  parse?: "strict" | "number" | "float";
  /** Whether a 0 hint is a hint (default) or none (the OpenAI SDK). */
  zero?: "hint" | "absent";
  /** Which of two present headers wins: the first listed (default) or the first in the response. */
  order?: "listed" | "response";
  /** What an HTTP date is read against: the `date` header, else the local clock (default), or the local clock. */
  clock?: "date_header" | "local";
}

/** A token bucket of retries shared by every dispatch of a dispatcher (SPEC 12; the AWS SDK's standard mode). */
export interface RetryQuota {
  capacity: number;
  cost?: number;
  cost_by_kind?: Record<string, number>;
  cost_by_class?: Record<string, number>;
  refund?: number;
  refund_on_recovery?: "last" | "all" | "none";
  /** One token count for this process (default) or the whole fleet's (SPEC 23). */
  scope?: PolicyScope;
}

export interface RetryWithBackoff {
  action: "retry_with_backoff";
  max_retries: number;
  backoff_ms?: number[];
  backoff?: BackoffFormula;
  retry_after?: RetryAfterPolicy;
}
export interface RetryWithHint {
  action: "retry_with_hint";
  max_retries: number;
  hint: string;
  backoff_ms?: number[];
  backoff?: BackoffFormula;
  retry_after?: RetryAfterPolicy;
}
export interface RefreshEvidence {
  action: "refresh_evidence";
  then: "retry" | "abort";
}
export interface RestoreCheckpoint {
  action: "restore_checkpoint";
  then: "retry" | "abort";
}
/** Refresh the call's credentials (an expired token), then retry once or abort (SPEC 18). */
export interface RefreshCredentials {
  action: "refresh_credentials";
  then: "retry" | "abort";
}
export interface EscalateToHuman {
  action: "escalate_to_human";
  queue: string;
}
export interface IssueReversal {
  action: "issue_reversal";
  reason: string;
}
export interface DeprecateToolCall {
  action: "deprecate_tool_call";
  reason: string;
  replan: boolean;
}
export interface FallbackTool {
  action: "fallback";
  tool: string;
}
export interface Fail {
  action: "fail";
  message?: string;
}
export interface DeadLetter {
  action: "dead_letter";
  queue: string;
}

/** The closed set of compensation actions, discriminated by `action`. */
export type CompensationAction =
  | RetryWithBackoff
  | RetryWithHint
  | RefreshEvidence
  | RestoreCheckpoint
  | RefreshCredentials
  | EscalateToHuman
  | IssueReversal
  | DeprecateToolCall
  | FallbackTool
  | Fail
  | DeadLetter;

export type ActionName = CompensationAction["action"];
export type RetryAction = RetryWithBackoff | RetryWithHint;

export const ACTION_NAMES: readonly ActionName[] = [
  "retry_with_backoff",
  "retry_with_hint",
  "refresh_evidence",
  "restore_checkpoint",
  "refresh_credentials",
  "escalate_to_human",
  "issue_reversal",
  "deprecate_tool_call",
  "fallback",
  "fail",
  "dead_letter",
];

export const isRetryAction = (a: CompensationAction): a is RetryAction =>
  a.action === "retry_with_backoff" || a.action === "retry_with_hint";

/** The Retry-After policy in force for a retry action (SPEC 12): its own, else the playbook's, else the defaults. */
export const retryAfterPolicyOf = (playbook: { readonly retry_after?: RetryAfterPolicy | null }, action: RetryAction): RetryAfterPolicy => action.retry_after ?? playbook.retry_after ?? {};

/**
 * The Retry-After policy a match rule's `retry_after: present` reads (SPEC 18): the policy of
 * the action the playbook gives the rule's verdict when it is a retry with its own, else the
 * playbook's, else the defaults (also without a playbook).
 */
export function hintPolicyOf(playbook: HintPlaybook | undefined, code: string): RetryAfterPolicy {
  const action = playbook !== undefined && Object.hasOwn(playbook.verdicts, code) ? playbook.verdicts[code] : undefined;
  return (action !== undefined && isRetryAction(action) ? action.retry_after : undefined) ?? playbook?.retry_after ?? {};
}

/** What classification reads of a playbook: where `retry_after: present` finds its policy. */
export type HintPlaybook = Pick<Playbook, "retry_after" | "verdicts">;

/** Whether servers' Retry-After hints are read at all (`honor_retry_after`, default true). */
export const honorsRetryAfter = (playbook: { readonly honor_retry_after?: boolean }): boolean => playbook.honor_retry_after ?? true;

export interface Budgets {
  retries?: number;
  /** Retries of one call, whatever their verdicts (the SDKs' maxRetries); a fallback call counts afresh. */
  retries_per_call?: number;
  retry_seconds?: number;
  wall_ms?: number;
  same_verdict_ceiling?: number;
}

/** A tool glob, or a list of them. */
export type ToolGlobs = string | string[];

/** A circuit breaker (SPEC 18): counts the attempts to the tools it guards; while open, fails them at once. */
export interface CircuitBreakerPolicy {
  tools: ToolGlobs;
  /** One state for all its tools (default), or one per tool. */
  per?: "breaker" | "tool";
  failure_ratio?: number;
  minimum_throughput?: number;
  /** The sliding window. */
  sampling_ms?: number;
  /** Also hold the window to the last N counted attempts (count-based). */
  sampling_attempts?: number;
  /** Count the window in this many buckets aligned to the breaker's start (opossum, Hystrix); default exact. */
  buckets?: number;
  break_ms?: number;
  /** Each reopening doubles the break, up to this. */
  max_break_ms?: number;
  half_open_probes?: number;
  /** Failure classes that count (default: retryable verdicts and attempt timeouts). */
  counts?: string[];
  /** This process's breaker (default) or the fleet's (SPEC 23). */
  scope?: PolicyScope;
  /** With `scope: fleet`: the share of the processes with attempts in the window that must cross `failure_ratio` on their own counts. */
  quorum?: number;
}

/** A rate limit's headers (SPEC 22): a named dialect, or the headers to read. */
export type RateLimitDialect = "github" | "openai" | "anthropic" | "ietf";
export interface RateLimitHeaders {
  /** The requests left in the window. */
  remaining: string;
  /** When the window resets: a delay in seconds (a header name), a Unix time, or a duration. */
  reset?: string | { name: string; epoch: "seconds" | "ms" } | { name: string; duration: true };
  /** The window's size in requests. */
  limit?: string;
}

/** A rate limit (SPEC 22): a token bucket taken before every attempt of the tools it names. */
export interface RateLimitPolicy {
  tools: ToolGlobs;
  /** `requests` tokens every `per_ms`; the bucket holds `burst` (default `requests`). */
  limit?: { requests: number; per_ms: number };
  burst?: number;
  /** Each response's remaining-quota and reset headers correct the bucket. */
  from_headers?: RateLimitDialect | RateLimitHeaders;
  /** No token: wait for one, up to `max_wait_ms` and the dispatch's deadline (default), or fail at once. */
  when_empty?: "wait" | "fail";
  max_wait_ms?: number;
  /** The AWS SDK's adaptive retry mode (`DefaultRateLimiter`). */
  adaptive?: "aws";
  /** One bucket for this process (default) or the fleet's, shared by leases (SPEC 23; a `limit:` bucket only). */
  scope?: PolicyScope;
}

/** Where a policy's state lives (SPEC 23): this process alone (default), or the fleet's, through the `fleet:` store. */
export type PolicyScope = "process" | "fleet";

/** How a fleet's processes share the state of `scope: fleet` policies (SPEC 23). */
export interface FleetSettings {
  /** How often each process exchanges its counts with the store (default 250). */
  sync_ms?: number;
  /** A process that has not synced for this long decides alone (default 1000). */
  lease_ms?: number;
  /** With no good sync for `lease_ms`: decide as `scope: process` (local, default), or allow no retries (closed). */
  on_store_down?: "local" | "closed";
}

/** Envoy's retry budget (SPEC 18). */
export interface RetryBudgetPolicy {
  percent?: number;
  min_concurrency?: number;
  /** Count the retries and calls in progress of this process (default) or of the whole fleet (SPEC 23). */
  scope?: PolicyScope;
}

/** gRPC's retryThrottling (A6, SPEC 18). */
export interface RetryThrottlingPolicy {
  max_tokens: number;
  token_ratio: number;
  /** One token count for this process (default) or the whole fleet's (SPEC 23). */
  scope?: PolicyScope;
}

/** gRPC's hedgingPolicy (A6, SPEC 18). */
export interface HedgingPolicy {
  tools: ToolGlobs;
  max_attempts: number;
  delay_ms?: number;
  /** Classes or codes after whose failure the next hedge goes at once. */
  non_fatal?: string[];
}

/** A `tools:` entry: what the playbook declares about the tools its glob matches. */
export interface ToolDeclaration {
  idempotent?: boolean;
  /** This tool's own attempt timeout (SPEC 18). */
  attempt_timeout_ms?: number;
}

export interface Playbook {
  apiVersion: "failbook/v1";
  kind: "Playbook";
  name: string;
  honor_retry_after?: boolean;
  retry_after?: RetryAfterPolicy;
  backoff_index?: "per_verdict" | "per_call";
  retry_quota?: RetryQuota;
  /** How long one attempt may take (SPEC 18); a `tools:` entry may set its own. */
  attempt_timeout_ms?: number;
  /** How `scope: fleet` policies share state across the service's processes (SPEC 23). */
  fleet?: FleetSettings;
  circuit_breakers?: Record<string, CircuitBreakerPolicy>;
  rate_limits?: Record<string, RateLimitPolicy>;
  retry_budget?: RetryBudgetPolicy;
  retry_throttling?: RetryThrottlingPolicy;
  hedging?: HedgingPolicy;
  escalation_queue?: string;
  empty_response_is_failure?: boolean;
  budgets?: Budgets;
  on_exhausted?: { action: "escalate_to_human" | "dead_letter"; queue?: string };
  /** A retry refused as not idempotent, with the side effect unknown, escalates here (SPEC 13). */
  on_unknown_side_effect?: { queue: string };
  saga?: { compensate_on_failure?: boolean };
  throttle?: { class: string; min_failures: number; factor: number };
  tools?: Record<string, ToolDeclaration>;
  verdicts: Record<string, CompensationAction>;
}
