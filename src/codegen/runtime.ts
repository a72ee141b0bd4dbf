/**
 * The fixed parts of the generated module: types that do not depend on the registry, the
 * classify entry point over the embedded classifier, and the envelope runtime. Plain ES2015
 * library + TypeScript, no imports, no `any`; it must compile under the strictest flags a
 * project may set (exactOptionalPropertyTypes, noUncheckedIndexedAccess, noUnusedLocals,
 * isolatedModules, declaration emit), and stay cheap for the compiler at 10,000 codes: the
 * tables are typed by declared interfaces, never inferred from big literals.
 *
 * The matching logic itself is not here: it is src/engine/classifier.ts, embedded verbatim.
 * The parts with code (CLASSIFY_ENTRY, ENVELOPE_RUNTIME, MCP_RESULT_RUNTIME) reach the
 * emitter through runtime-source.generated.ts, which the build writes with their JavaScript
 * and declarations (scripts/embed-classifier.mjs), for `gen ts --out x.js`.
 */
import { CLASSIFIER_NAMES } from "./classifier-source.generated.js";
import { SECRETS_NAMES } from "./secrets-source.generated.js";

/** Names the fixed parts export or declare; identifiers derived from codes must avoid them. */
export const FIXED_NAMES: ReadonlySet<string> = new Set([
  "REGISTRY", "FALLBACK_VERDICT", "VERDICTS", "FailureVerdict", "RESERVED_VERDICTS", "ReservedVerdict", "isFailureVerdict",
  "FAILURE_CLASSES", "FailureClass", "ERROR_KINDS", "ErrorKind", "isErrorKind", "ErrorFields", "ERROR_FIELDS", "ErrorFieldName", "SideEffectState", "AdapterError",
  "AdapterErrorLike", "ToolCall", "VerdictInfo", "VerdictFacts", "VERDICT_INFO", "Jitter", "BackoffFormula", "CompensationAction",
  "ActionName", "ActionOf", "PLAYBOOK", "ToolGlobs", "CircuitBreakerPolicy", "RetryBudgetPolicy", "RetryThrottlingPolicy",
  "HedgingPolicy", "RateLimitPolicy", "RateLimitDialect", "RateLimitHeaders", "ToolDeclaration", "PlaybookPolicies", "MATCH_RULES", "classify", "CLASSIFIER", "VERDICT_SET", "RESERVED_SET", "ERROR_KIND_SET",
  "DetailsByVerdict", "DetailsOf", "EnvelopeInput", "FailureEnvelope", "FailureEnvelopeOf", "envelopeBrand", "makeEnvelope",
  "envelopeFor", "buildEnvelope", "EnvelopeInputFor", "REDACT_PATTERNS", "redactDetails",
  "McpToolResult", "toMcpToolResult", "EXAMPLES", "VerdictExample", "PROJECT",
  ...CLASSIFIER_NAMES,
  ...SECRETS_NAMES,
]);

export const ERROR_TYPES = String.raw`
/** What the side effect of a failed call is known to be. */
export type SideEffectState = "none" | "unknown" | "committed";

/** An adapter error from outside the type system (parsed JSON, another adapter): any kind. */
export interface AdapterErrorLike {
  readonly kind: string;
  readonly message?: string | undefined;
  readonly http_status?: number | undefined;
  readonly provider_code?: string | undefined;
  readonly side_effect_state?: SideEffectState | undefined;
  /** The upstream's Retry-After, in milliseconds. */
  readonly retry_after_ms?: number | undefined;
  /** Response headers: names in any case, values strings. */
  readonly headers?: { readonly [name: string]: string } | undefined;
  /** The registry's declared error fields. */
  readonly fields?: { readonly [name: string]: string | number | boolean | undefined } | undefined;
  /** The error this one was caused by. */
  readonly cause?: AdapterErrorLike | undefined;
}

/**
 * What an adapter reports for one failed attempt, in the registry's vocabulary: the kind is
 * one of ERROR_KINDS, so a misspelt kind is a compile error.
 */
export interface AdapterError extends AdapterErrorLike {
  readonly kind: ErrorKind;
  /** The registry's declared error fields, each with its declared type. */
  readonly fields?: ErrorFields | undefined;
}

/** The call that failed, as far as classification cares. */
export interface ToolCall {
  readonly tool?: string | undefined;
}
`;

export const VERDICT_INFO_TYPE = String.raw`
/** What the registry says about a verdict (V: that verdict, whose class and retryable flag are then literal types). */
export interface VerdictInfo<V extends FailureVerdict = FailureVerdict> {
  readonly code: V;
  readonly class: VerdictFacts[V]["class"];
  readonly status: "active" | "deprecated";
  readonly retryable: VerdictFacts[V]["retryable"];
  /** What the failure implies about the call's side effect. */
  readonly side_effect: SideEffectState;
  /** Which layer produces it. */
  readonly boundary: string | null;
  readonly human_action_required: boolean;
  readonly summary: string | null;
  readonly cause: string | null;
  readonly recovery: string | null;
  readonly safe_next_actions: readonly string[];
  readonly unsafe_next_actions: readonly string[];
  /** The verdict to use instead, when this one is deprecated. */
  readonly replaced_by: string | null;
}
`;

export const ACTION_TYPES = String.raw`
/**
 * none, full, equal, a ratio r in (0, 1] (the delay is drawn from [d(1-r), d]), or a range:
 * the delay times a uniform draw from [min, max] (whole milliseconds when integer).
 */
export type Jitter = "none" | "full" | "equal" | number | { readonly min: number; readonly max: number; readonly integer?: boolean };

/** A retry delay formula (retry number n from 0); min_ms is the least delay after jitter. */
export type BackoffFormula =
  | { readonly strategy: "exponential"; readonly base_ms: number; readonly factor?: number; readonly cap_ms?: number; readonly jitter?: Jitter; readonly min_ms?: number }
  | { readonly strategy: "linear"; readonly base_ms: number; readonly cap_ms?: number; readonly jitter?: Jitter; readonly min_ms?: number }
  | { readonly strategy: "constant"; readonly base_ms: number; readonly cap_ms?: number; readonly jitter?: Jitter; readonly min_ms?: number }
  | { readonly strategy: "decorrelated"; readonly base_ms: number; readonly cap_ms?: number; readonly min_ms?: number };

/** The closed set of compensation actions, discriminated by action. */
export type CompensationAction =
  | { readonly action: "retry_with_backoff"; readonly max_retries: number; readonly backoff_ms?: readonly number[]; readonly backoff?: BackoffFormula }
  | { readonly action: "retry_with_hint"; readonly max_retries: number; readonly hint: string; readonly backoff_ms?: readonly number[]; readonly backoff?: BackoffFormula }
  | { readonly action: "refresh_evidence"; readonly then: "retry" | "abort" }
  | { readonly action: "restore_checkpoint"; readonly then: "retry" | "abort" }
  | { readonly action: "refresh_credentials"; readonly then: "retry" | "abort" }
  | { readonly action: "escalate_to_human"; readonly queue: string }
  | { readonly action: "issue_reversal"; readonly reason: string }
  | { readonly action: "deprecate_tool_call"; readonly reason: string; readonly replan: boolean }
  | { readonly action: "fallback"; readonly tool: string }
  | { readonly action: "fail"; readonly message?: string }
  | { readonly action: "dead_letter"; readonly queue: string };

export type ActionName = CompensationAction["action"];

/** The action type of one action name. */
export type ActionOf<A extends ActionName> = Extract<CompensationAction, { readonly action: A }>;

/** A tool glob, or a list of them. */
export type ToolGlobs = string | readonly string[];

/** A circuit breaker: counts the attempts to the tools it guards; while open, fails them at once as circuit_open. */
export interface CircuitBreakerPolicy {
  readonly tools: ToolGlobs;
  /** One state for all its tools (breaker, the default), or one per tool. */
  readonly per?: "breaker" | "tool";
  readonly failure_ratio?: number;
  /** Counted attempts in the window before it may open. */
  readonly minimum_throughput?: number;
  readonly sampling_ms?: number;
  readonly sampling_attempts?: number;
  readonly buckets?: number;
  readonly break_ms?: number;
  /** Each reopening doubles the break, up to this. */
  readonly max_break_ms?: number;
  readonly half_open_probes?: number;
  /** Failure classes that count (default: retryable verdicts and attempt timeouts). */
  readonly counts?: readonly string[];
}

/** Envoy's retry budget: retries in progress below max(min_concurrency, percent % of the calls in progress). */
export interface RetryBudgetPolicy {
  readonly percent?: number;
  readonly min_concurrency?: number;
}

/** gRPC's retryThrottling: retries only while the tokens are above max_tokens / 2. */
export interface RetryThrottlingPolicy {
  readonly max_tokens: number;
  readonly token_ratio: number;
}

/** gRPC's hedgingPolicy: up to max_attempts in flight, one every delay_ms. */
export interface HedgingPolicy {
  readonly tools: ToolGlobs;
  readonly max_attempts: number;
  readonly delay_ms?: number;
  readonly non_fatal?: readonly string[];
}

/** The response headers a rate limit reads by a dialect's name: GitHub's, OpenAI's, Anthropic's, the IETF draft's. */
export type RateLimitDialect = "github" | "openai" | "anthropic" | "ietf";

/** A rate limit's own headers: requests left, when the window resets, the window's size. */
export interface RateLimitHeaders {
  readonly remaining: string;
  /** A delay in seconds (a header name), a Unix time, or a duration. */
  readonly reset?: string | { readonly name: string; readonly epoch: "seconds" | "ms" } | { readonly name: string; readonly duration: true };
  readonly limit?: string;
}

/** A rate limit: a token bucket taken before every attempt of its tools (retries included; a hedge never waits). */
export interface RateLimitPolicy {
  readonly tools: ToolGlobs;
  /** requests tokens every per_ms; the bucket holds burst (default requests). */
  readonly limit?: { readonly requests: number; readonly per_ms: number };
  readonly burst?: number;
  /** Each answer's remaining-quota and reset headers correct the bucket. */
  readonly from_headers?: RateLimitDialect | RateLimitHeaders;
  /** No token: wait for one, up to max_wait_ms and the dispatch's deadline (default), or fail at once as rate_limited. */
  readonly when_empty?: "wait" | "fail";
  readonly max_wait_ms?: number;
  /** The AWS SDK's adaptive retry mode (DefaultRateLimiter). */
  readonly adaptive?: "aws";
}

/** What the playbook declares about the tools a glob matches. */
export interface ToolDeclaration {
  readonly idempotent?: boolean;
  /** This tool's own attempt timeout. */
  readonly attempt_timeout_ms?: number;
}

/** The playbook's policies that every dispatch of a dispatcher shares, as PROJECT.playbook holds them. */
export interface PlaybookPolicies {
  /** How long one attempt may take; a tools: entry may set its own. */
  readonly attempt_timeout_ms?: number;
  readonly tools?: { readonly [glob: string]: ToolDeclaration };
  readonly circuit_breakers?: { readonly [name: string]: CircuitBreakerPolicy };
  readonly rate_limits?: { readonly [name: string]: RateLimitPolicy };
  readonly retry_budget?: RetryBudgetPolicy;
  readonly retry_throttling?: RetryThrottlingPolicy;
  readonly hedging?: HedgingPolicy;
}
`;

export const CLASSIFY_ENTRY = String.raw`
let CLASSIFIER: ClassifierIndex | undefined;

/**
 * The verdict for one failed attempt: the first rule that holds wins, in registry order;
 * no rule holding, or no error object at all, gives FALLBACK_VERDICT. Reserved verdicts
 * have no rules here, so they never match. The rules are indexed on the first call.
 */
export function classify(error: AdapterErrorLike | null | undefined, call?: ToolCall): FailureVerdict {
  if (error === null || error === undefined) return FALLBACK_VERDICT;
  if (CLASSIFIER === undefined) CLASSIFIER = compileClassifier(MATCH_RULES);
  const rule = classifyIndex(CLASSIFIER, error, call === undefined ? undefined : call.tool);
  return rule === null ? FALLBACK_VERDICT : (rule.verdict as FailureVerdict);
}
`;

export const ENVELOPE_RUNTIME = String.raw`
declare const envelopeBrand: unique symbol;

/** The details type a verdict's envelope carries (undefined when it declares no schema). */
export type DetailsOf<V extends FailureVerdict> = DetailsByVerdict[V];

/** What an adapter adds to the registry's facts when it builds an envelope. */
export interface EnvelopeInput {
  /** The adapter error: its message, side_effect_state and retry_after_ms fill the envelope. */
  readonly error?: AdapterErrorLike | undefined;
  /** Overrides the error's message. */
  readonly message?: string | undefined;
  /** Overrides the error's side_effect_state; default: the verdict's side_effect. */
  readonly side_effect_state?: SideEffectState | undefined;
  readonly retry_after_ms?: number | undefined;
  /** false when the call must not be repeated (a non-idempotent tool): the envelope is then not retryable. */
  readonly idempotent?: boolean | undefined;
  readonly trace_id?: string | undefined;
}

/**
 * What the agent is shown for one failure of verdict V: the same fields as the error of the
 * dispatcher's envelope, plus boundary, trace_id and the typed details. The brand makes the
 * constructors below the only way to build one: an object literal cannot carry it.
 */
export interface FailureEnvelopeOf<V extends FailureVerdict> {
  readonly [envelopeBrand]: V;
  readonly code: V;
  readonly class: VerdictFacts[V]["class"];
  /** May anything retry this: the verdict is retryable, nothing committed, the call idempotent. */
  readonly retryable: VerdictFacts[V]["retryable"] extends true ? boolean : false;
  readonly side_effect_state: SideEffectState;
  readonly human_action_required: boolean;
  readonly retry_after_ms: number | null;
  readonly summary: string | null;
  /** The adapter's own message. */
  readonly message: string | null;
  readonly recovery_hint: string | null;
  readonly safe_next_actions: readonly string[];
  readonly unsafe_next_actions: readonly string[];
  readonly boundary: string | null;
  readonly trace_id: string | null;
  readonly details: DetailsByVerdict[V];
}

/** An envelope of any verdict in V, discriminated by code. */
export type FailureEnvelope<V extends FailureVerdict = FailureVerdict> = { readonly [K in V]: FailureEnvelopeOf<K> }[V];

/** Secrets in an adapter's details (strings at any depth) are redacted like its message. */
function redactDetails<T>(value: T): T {
  if (typeof value === "string") return redactSecrets(value, REDACT_PATTERNS) as unknown as T;
  if (Array.isArray(value)) return value.map(redactDetails) as unknown as T;
  if (value !== null && typeof value === "object") {
    const source = value as { readonly [key: string]: unknown };
    const out: { [key: string]: unknown } = {};
    // defineProperty, not assignment: a "__proto__" key stays a key.
    for (const k of Object.keys(source)) Object.defineProperty(out, k, { value: redactDetails(source[k]), enumerable: true, writable: true, configurable: true });
    return out as T;
  }
  return value;
}

/**
 * What the dispatcher's envelope would say for this verdict: the registry's words, the
 * adapter's message and details with every secret redacted (the built-in families and the
 * project's redact: patterns, exactly as failbook redacts).
 */
function makeEnvelope<V extends FailureVerdict>(code: V, input: EnvelopeInput, rawDetails: DetailsByVerdict[V]): FailureEnvelopeOf<V> {
  return buildEnvelope(code, input, rawDetails) as FailureEnvelopeOf<V>;
}

// The body works on plain strings: narrowing a type parameter over the verdict union, or
// indexing VERDICT_INFO with it, costs the type checker time in the number of verdicts.
function buildEnvelope(code: string, input: EnvelopeInput, rawDetails: unknown): unknown {
  // Checked against the verdict set, not by looking the code up: "__proto__" is no verdict either.
  if (!VERDICT_SET.has(code)) throw new TypeError("not a verdict of this registry: " + JSON.stringify(code));
  const info = (VERDICT_INFO as unknown as { readonly [code: string]: VerdictInfo })[code]!;
  const error = input.error;
  const message = input.message ?? error?.message;
  const details = redactDetails(rawDetails);
  const state = input.side_effect_state ?? error?.side_effect_state ?? info.side_effect;
  return Object.freeze({
    code,
    class: info.class,
    retryable: info.retryable && state !== "committed" && input.idempotent !== false,
    side_effect_state: state,
    human_action_required: info.human_action_required,
    retry_after_ms: input.retry_after_ms ?? error?.retry_after_ms ?? null,
    summary: info.summary,
    message: message === undefined ? null : redactSecrets(message, REDACT_PATTERNS),
    recovery_hint: info.recovery,
    safe_next_actions: info.safe_next_actions,
    unsafe_next_actions: info.unsafe_next_actions,
    boundary: info.boundary,
    trace_id: input.trace_id === undefined ? null : redactSecrets(input.trace_id, REDACT_PATTERNS),
    details,
  });
}

/** What envelopeFor takes for verdicts V: the details are required when every verdict in V declares them. */
export type EnvelopeInputFor<V extends FailureVerdict> = EnvelopeInput &
  (undefined extends DetailsByVerdict[V] ? { readonly details?: DetailsByVerdict[V] } : { readonly details: DetailsByVerdict[V] });

/**
 * The envelope for a verdict known only at run time, such as the result of classify():
 * envelopeFor(classify(error), { error }). Throws a TypeError for a code that is not a
 * verdict of this registry (a reserved code included).
 */
export function envelopeFor<V extends FailureVerdict>(code: V, input: EnvelopeInputFor<V>): FailureEnvelope<V> {
  return makeEnvelope(code, input, input.details as DetailsByVerdict[V]) as unknown as FailureEnvelope<V>;
}
`;

export const MCP_RESULT_RUNTIME = String.raw`
/** A Model Context Protocol tool result (the shape of the SDK's CallToolResult) for one failure. */
export interface McpToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent: { [key: string]: unknown };
  isError: true;
}

/**
 * What an MCP tool returns to the agent when its call failed: isError true, the envelope as
 * structuredContent, and the same JSON as text for clients that read only text.
 */
export function toMcpToolResult(envelope: FailureEnvelope): McpToolResult {
  // Spread as a plain record: spreading the envelope union would build one type per verdict.
  const structuredContent: { [key: string]: unknown } = { ...(envelope as unknown as { readonly [key: string]: unknown }) };
  return { content: [{ type: "text", text: JSON.stringify(structuredContent, null, 2) }], structuredContent, isError: true };
}
`;
