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
import { compileUserPattern } from "./pattern.js";
import { redactSecrets, REDACTED } from "./secrets.js";

export { REDACTED };

export type Redactor = (text: string) => string;

/**
 * A config `redact:` pattern, compiled as the redactor runs it (on the linear-time engine,
 * Unicode mode, global), or undefined when it cannot run (the loader reports that).
 */
export function compileRedactPattern(source: string): RegExp | undefined {
  try {
    return compileUserPattern(source, "gu");
  } catch {
    return undefined;
  }
}

export function createRedactor(extra: readonly string[] = []): Redactor {
  const own = extra.map(compileRedactPattern).filter((re): re is RegExp => re !== undefined);
  return (text) => redactSecrets(text, own);
}

/**
 * Redact every string inside a JSON-like value; keys stay (they are the caller's vocabulary).
 * Only what changed is copied: a value with no secret comes back as the very same value.
 */
export function redactValue<T>(value: T, redact: Redactor): T {
  return mapStrings(value, redact);
}
