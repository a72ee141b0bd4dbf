/**
 * Redaction (SPEC sections 9 and 16): secrets never reach any output. One redactor holds the
 * built-in secret families (src/engine/secrets.ts) and the project's own `redact:` patterns;
 * every output and every written file passes through it.
 *
 * The dispatcher runs it on what every call takes in (the production path), so it must cost
 * next to nothing on text that cannot hold a secret (the dispatcher remembers what it made of
 * each string).
 */

import { mapStrings } from "../model/json.js";
import { redactSecrets, REDACTED } from "./secrets.js";

export { REDACTED };

export type Redactor = (text: string) => string;

/**
 * A redactor for the built-in families and `extra` patterns. failbook passes its users'
 * patterns compiled on its linear-time engine (src/load/pattern.ts); a pattern given as text
 * runs on JavaScript's engine (Unicode mode, global), as in the generated bindings, so pass
 * text only for patterns that `failbook lint` and `gen ts` have checked (a generated
 * `PROJECT`'s). Text that is not a regular expression is left out (lint reports it).
 */
export function createRedactor(extra: readonly (string | RegExp)[] = []): Redactor {
  const own = extra.map(nativePattern).filter((re): re is RegExp => re !== undefined);
  return (text) => redactSecrets(text, own);
}

function nativePattern(pattern: string | RegExp): RegExp | undefined {
  if (typeof pattern !== "string") return pattern;
  try {
    return new RegExp(pattern, "gu");
  } catch {
    return undefined;
  }
}

/**
 * Redact every string inside a JSON-like value; keys stay (they are the caller's vocabulary).
 * Only what changed is copied: a value with no secret comes back as the very same value.
 */
export function redactValue<T>(value: T, redact: Redactor): T {
  return mapStrings(value, redact);
}
