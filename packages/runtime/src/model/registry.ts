/** The registry: the closed, versioned taxonomy of failure verdicts (SPEC section 2). */
import type { AdapterError } from "./fixture.js";

export type SideEffectState = "none" | "unknown" | "committed";
export type VerdictStatus = "active" | "reserved" | "deprecated";

export interface FailureClass {
  description?: string;
  max_retries?: number;
  adr?: string;
  /** Every verdict of the class must escalate to a person; default true for a class named `policy`. */
  requires_human?: boolean;
}

/** The class whose verdicts a person must decide unless it says otherwise (SPEC Part III amendments). */
export const POLICY_CLASS = "policy";

/** Must the verdicts of class `name` escalate to a person? Its `requires_human`, else whether it is the policy class. */
export function requiresHuman(registry: Registry, name: string): boolean {
  const cls = Object.hasOwn(registry.classes, name) ? registry.classes[name] : undefined;
  return cls?.requires_human ?? name === POLICY_CLASS;
}

/** A status matcher: an integer, a class such as "5xx", or a range such as "500-599". */
export type StatusMatcher = number | string;

/** A declared error field's value (SPEC 12). */
export type FieldValue = string | number | boolean;

/** One match rule: every field present must hold (AND); a list means any of its values. */
export interface MatchRule {
  kind?: string | string[];
  http_status?: StatusMatcher | StatusMatcher[];
  provider_code?: string | string[];
  message_contains?: string | string[];
  /** A regular expression over the message; `/…/i` ignores case. */
  message_matches?: string | string[];
  tool?: string | string[];
  side_effect_state?: SideEffectState | SideEffectState[];
  /** Header name (any case) -> a value, a list of values, or "*" (present with any value). */
  headers?: Record<string, string | string[]>;
  /** Declared error field -> a value or a list of values. */
  fields?: Record<string, FieldValue | FieldValue[]>;
  /** Holds when the error's cause, or its cause, and so on, satisfies this rule. */
  cause?: MatchRule;
  /** Holds when this inner rule does not (SPEC 18). */
  not?: MatchRule;
  /** `present`: a header or field the retry_after policy lists yields a valid hint (SPEC 18). */
  retry_after?: "present";
}

export interface Verdict {
  code: string;
  class: string;
  retryable: boolean;
  side_effect?: SideEffectState;
  boundary?: string;
  /** What its failure is evidence about (SPEC 23): a `scope: fleet` breaker counts a `process` one only in this process's own view. */
  evidence?: "upstream" | "process";
  status?: VerdictStatus;
  since?: number;
  adr?: string;
  replaced_by?: string;
  human_action_required?: boolean;
  summary?: string;
  cause?: string;
  recovery?: string;
  safe_next_actions?: string[];
  unsafe_next_actions?: string[];
  details?: Record<string, unknown>;
  match?: MatchRule[];
  /** Adapter errors that must classify to this verdict (SPEC 13): documentation and tests. */
  examples?: VerdictExample[];
}

/** An example on a verdict: an adapter error, plus the call's tool when a rule tests it. */
export interface VerdictExample extends AdapterError {
  tool?: string;
}

/** An extra field the adapters report under an error's `fields` (SPEC 12). */
export interface ErrorField {
  type: "string" | "integer" | "number" | "boolean";
  description?: string;
}

export interface Registry {
  apiVersion: "failbook/v1";
  kind: "Registry";
  name: string;
  revision: number;
  classes: Record<string, FailureClass>;
  error_fields?: Record<string, ErrorField>;
  verdicts: Verdict[];
  fallback: string;
}

/** Does a value have the declared type? `integer` wants a whole number, `number` any number. */
export function hasFieldType(value: unknown, type: ErrorField["type"]): value is FieldValue {
  switch (type) {
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "number":
      return typeof value === "number";
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
  }
}

export const statusOf = (v: Verdict): VerdictStatus => v.status ?? "active";
export const sideEffectOf = (v: Verdict): SideEffectState => v.side_effect ?? "unknown";
