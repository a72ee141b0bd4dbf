/**
 * Redaction (SPEC section 9): secrets never reach any output. Built-in patterns for bearer
 * tokens, Stripe-style keys, AWS access keys, JWTs and `password=`/`token=`/`secret=`
 * values, plus the project's own `redact` patterns.
 */

import { compileUserPattern } from "./pattern.js";

export const REDACTED = "[REDACTED]";

interface Pattern {
  re: RegExp;
  /** Keep the first capture group (the label), replace the rest. */
  keepLabel: boolean;
}

const BUILT_IN: Pattern[] = [
  { re: /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{6,}/gi, keepLabel: true },
  { re: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{4,}/g, keepLabel: false },
  { re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, keepLabel: false },
  { re: /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}/g, keepLabel: false },
  { re: /\b((?:password|passwd|token|secret|api_key|apikey)\s*=\s*)[^\s&,;"'<>\\]+/gi, keepLabel: true },
];

export type Redactor = (text: string) => string;

export function createRedactor(extra: readonly string[] = []): Redactor {
  const patterns: Pattern[] = [...BUILT_IN];
  for (const source of extra) {
    try {
      patterns.push({ re: compileUserPattern(source, "gu"), keepLabel: false }); // linear time (SPEC 16)
    } catch {
      // An invalid pattern is a config finding; it cannot redact anything.
    }
  }
  return (text) => {
    let out = text;
    for (const { re, keepLabel } of patterns) {
      re.lastIndex = 0;
      out = keepLabel ? out.replace(re, (_m, label: string) => label + REDACTED) : out.replace(re, REDACTED);
    }
    return out;
  };
}

/** Redact every string inside a JSON-like value. */
export function redactValue<T>(value: T, redact: Redactor): T {
  if (typeof value === "string") return redact(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, redact)) as T;
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    // defineProperty, not assignment: a "__proto__" key (YAML allows it) stays an own key.
    for (const [k, v] of Object.entries(value)) Object.defineProperty(out, k, { value: redactValue(v, redact), enumerable: true, writable: true, configurable: true });
    return out as T;
  }
  return value;
}
