/**
 * The fixed parts of the generated module: types that do not depend on the registry and
 * the classify/envelope runtime. Plain ES2015 + TypeScript, no imports, no `any`; it must
 * compile under the strictest flags a project may set (exactOptionalPropertyTypes,
 * noUncheckedIndexedAccess, noUnusedLocals, isolatedModules, declaration emit).
 *
 * The classifier here mirrors src/engine/classify.ts and src/engine/match.ts exactly; the
 * differential test in test/codegen-classify.test.ts holds the two together.
 */

/** Names the fixed parts export or declare; identifiers derived from codes must avoid them. */
export const FIXED_NAMES: ReadonlySet<string> = new Set([
  "REGISTRY", "FALLBACK_VERDICT", "VERDICTS", "FailureVerdict", "RESERVED_VERDICTS", "ReservedVerdict", "isFailureVerdict",
  "FAILURE_CLASSES", "FailureClass", "ERROR_KINDS", "ErrorKind", "isErrorKind", "SideEffectState", "AdapterError",
  "AdapterErrorLike", "ToolCall", "VerdictInfo", "VERDICT_INFO", "Jitter", "BackoffFormula", "CompensationAction",
  "ActionName", "PLAYBOOK", "MatchRule", "MATCH_RULES", "classify", "statusHolds", "globHolds", "globCache", "ruleHolds",
  "DetailsByVerdict", "DetailsOf", "EnvelopeInput", "FailureEnvelope", "FailureEnvelopeOf", "envelopeBrand", "makeEnvelope",
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
}

/**
 * What an adapter reports for one failed attempt, in the registry's vocabulary: the kind is
 * one of ERROR_KINDS, so a misspelt kind is a compile error.
 */
export interface AdapterError extends AdapterErrorLike {
  readonly kind: ErrorKind;
}

/** The call that failed, as far as classification cares. */
export interface ToolCall {
  readonly tool?: string | undefined;
}
`;

export const VERDICT_INFO_TYPE = String.raw`
/** What the registry says about a verdict. */
export interface VerdictInfo {
  readonly code: FailureVerdict;
  readonly class: FailureClass;
  readonly status: "active" | "deprecated";
  readonly retryable: boolean;
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
export type Jitter = "none" | "full" | "equal";

/** A retry delay formula (retry number n from 0). */
export type BackoffFormula =
  | { readonly strategy: "exponential"; readonly base_ms: number; readonly factor?: number; readonly cap_ms?: number; readonly jitter?: Jitter }
  | { readonly strategy: "linear"; readonly base_ms: number; readonly cap_ms?: number; readonly jitter?: Jitter }
  | { readonly strategy: "constant"; readonly base_ms: number; readonly cap_ms?: number; readonly jitter?: Jitter }
  | { readonly strategy: "decorrelated"; readonly base_ms: number; readonly cap_ms?: number };

/** The closed set of compensation actions, discriminated by action. */
export type CompensationAction =
  | { readonly action: "retry_with_backoff"; readonly max_retries: number; readonly backoff_ms?: readonly number[]; readonly backoff?: BackoffFormula }
  | { readonly action: "retry_with_hint"; readonly max_retries: number; readonly hint: string; readonly backoff_ms?: readonly number[]; readonly backoff?: BackoffFormula }
  | { readonly action: "refresh_evidence"; readonly then: "retry" | "abort" }
  | { readonly action: "restore_checkpoint"; readonly then: "retry" | "abort" }
  | { readonly action: "escalate_to_human"; readonly queue: string }
  | { readonly action: "issue_reversal"; readonly reason: string }
  | { readonly action: "deprecate_tool_call"; readonly reason: string; readonly replan: boolean }
  | { readonly action: "fallback"; readonly tool: string }
  | { readonly action: "fail"; readonly message?: string }
  | { readonly action: "dead_letter"; readonly queue: string };

export type ActionName = CompensationAction["action"];
`;

export const MATCH_RULE_TYPE = String.raw`
/** One match rule: every field present must hold; a list holds when any of its items does. */
export interface MatchRule {
  readonly verdict: FailureVerdict;
  readonly kind?: readonly string[];
  readonly http_status?: readonly (number | string)[];
  readonly provider_code?: readonly string[];
  readonly message_contains?: readonly string[];
  readonly tool?: readonly string[];
  readonly side_effect_state?: readonly SideEffectState[];
}
`;

export const CLASSIFY_RUNTIME = String.raw`
/**
 * The verdict for one failed attempt: the first rule that holds wins, in registry order;
 * no rule holding, or no error object at all, gives FALLBACK_VERDICT. Reserved verdicts
 * have no rules here, so they never match.
 */
export function classify(error: AdapterErrorLike | null | undefined, call?: ToolCall): FailureVerdict {
  if (error) {
    const tool = call === undefined ? undefined : call.tool;
    for (const rule of MATCH_RULES) {
      if (ruleHolds(rule, error, tool)) return rule.verdict;
    }
  }
  return FALLBACK_VERDICT;
}

function ruleHolds(rule: MatchRule, error: AdapterErrorLike, tool: string | undefined): boolean {
  if (rule.kind !== undefined && rule.kind.indexOf(error.kind) < 0) return false;
  if (rule.http_status !== undefined && !rule.http_status.some((m) => statusHolds(m, error.http_status))) return false;
  const providerCode = error.provider_code;
  if (rule.provider_code !== undefined && (providerCode === undefined || rule.provider_code.indexOf(providerCode) < 0)) return false;
  if (rule.message_contains !== undefined) {
    const message = (error.message === undefined || error.message === null ? "" : error.message).toLowerCase();
    if (!rule.message_contains.some((text) => message.indexOf(text.toLowerCase()) >= 0)) return false;
  }
  if (rule.tool !== undefined && (tool === undefined || !rule.tool.some((glob) => globHolds(glob, tool)))) return false;
  const state = error.side_effect_state;
  if (rule.side_effect_state !== undefined && (state === undefined || rule.side_effect_state.indexOf(state) < 0)) return false;
  return true;
}

/** 503; a class such as "5xx"; a range such as "500-599"; or "503". Statuses are integers. */
function statusHolds(matcher: number | string, status: number | undefined): boolean {
  if (status === undefined || !Number.isInteger(status)) return false;
  if (typeof matcher === "number") return status === matcher;
  if (/^[1-5]xx$/.test(matcher)) return Math.floor(status / 100) === Number(matcher.charAt(0));
  if (/^\d{3}-\d{3}$/.test(matcher)) return status >= Number(matcher.slice(0, 3)) && status <= Number(matcher.slice(4));
  return /^\d{3}$/.test(matcher) && status === Number(matcher);
}

const globCache = new Map<string, RegExp>();

/** A tool glob: * is any run of characters (dots included), ? one character. */
function globHolds(glob: string, text: string): boolean {
  let pattern = globCache.get(glob);
  if (pattern === undefined) {
    let source = "^";
    for (let i = 0; i < glob.length; i++) {
      const ch = glob.charAt(i);
      source += ch === "*" ? "[\\s\\S]*" : ch === "?" ? "[\\s\\S]" : /[.+^$(){}|[\]\\]/.test(ch) ? "\\" + ch : ch;
    }
    pattern = new RegExp(source + "$");
    globCache.set(glob, pattern);
  }
  return pattern.test(text);
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
  readonly class: (typeof VERDICT_INFO)[V]["class"];
  /** May anything retry this: the verdict is retryable, nothing committed, the call idempotent. */
  readonly retryable: (typeof VERDICT_INFO)[V]["retryable"] extends true ? boolean : false;
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
export type FailureEnvelope<V extends FailureVerdict = FailureVerdict> = V extends FailureVerdict ? FailureEnvelopeOf<V> : never;

function makeEnvelope<V extends FailureVerdict>(code: V, input: EnvelopeInput, details: DetailsByVerdict[V]): FailureEnvelope<V> {
  const table: { readonly [K in FailureVerdict]: VerdictInfo } = VERDICT_INFO;
  const info = table[code];
  const error = input.error;
  const state = input.side_effect_state ?? error?.side_effect_state ?? info.side_effect;
  const envelope = {
    code,
    class: info.class,
    retryable: info.retryable && state !== "committed" && input.idempotent !== false,
    side_effect_state: state,
    human_action_required: info.human_action_required,
    retry_after_ms: input.retry_after_ms ?? error?.retry_after_ms ?? null,
    summary: info.summary,
    message: input.message ?? error?.message ?? null,
    recovery_hint: info.recovery,
    safe_next_actions: info.safe_next_actions,
    unsafe_next_actions: info.unsafe_next_actions,
    boundary: info.boundary,
    trace_id: input.trace_id ?? null,
    details,
  };
  return Object.freeze(envelope) as unknown as FailureEnvelope<V>;
}
`;
