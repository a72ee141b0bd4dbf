/**
 * Redaction (SPEC sections 9 and 16): secrets never reach any output. One redactor holds the
 * built-in secret families (src/engine/secrets.ts) and the project's own `redact:` patterns;
 * every output and every written file passes through it.
 *
 * The dispatcher runs it on what every call takes in (the production path), so it must cost
 * next to nothing on text that cannot hold a secret (the dispatcher remembers what it made of
 * each string).
 */

import { jsonSafe, mapStrings } from "../model/json.js";
import { holdsTrigger, KEY_WORD, redactSecrets, REDACTED, SHORTEST_SECRET } from "./secrets.js";

/**
 * A key that names a secret (SPEC 16: `password`, `api_key`, `client_secret`, `x-api-key`,
 * `accessKeyId`, `reversal_token`): a string under it is a secret whatever it looks like.
 * The text families find such pairs in written text; this finds them in objects.
 */
const SECRET_KEY = new RegExp(KEY_WORD);

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
  const remembered = rememberRedactions((text) => redactSecrets(text, own));
  if (own.length > 0) return remembered;
  // Built-in families only: text without a trigger comes back as it is, and deciding so costs
  // less than looking it up would (a dispatch builds new texts, an envelope's, every call).
  const redact: Redactor = (text) => (text.length < SHORTEST_SECRET || !holdsTrigger(text) ? text : remembered(text));
  remembering.add(redact);
  return redact;
}

/** Redactors that remember what they made of each string already: rememberRedactions leaves them as they are. */
const remembering = new WeakSet<Redactor>();
/** Strings a generation of the memo holds: the memo holds two. */
const GENERATION = 4096;
/** Characters a generation holds at most (the memo two: about 8 MB of UTF-16). */
const GENERATION_CHARS = 1 << 21;
/** A longer text is redacted each time it comes, never kept: the memo serves the names and texts that recur. */
const LONGEST_REMEMBERED = 4096;

/**
 * `redact`, remembering what it made of each string: a dispatch shows the same tool names,
 * kinds, queues and registry texts again and again, and redacting a string twice must not
 * cost twice. Bounded in strings and in characters, so that a stream of distinct messages
 * (or of huge ones) cannot grow it: when a
 * generation is full it becomes the older one, and a string met in the older one moves back,
 * so strings in use outlive a run of strings seen once (a corpus of new message texts).
 */
export function rememberRedactions(redact: Redactor): Redactor {
  if (remembering.has(redact)) return redact;
  let recent = new Map<string, string>();
  let older = new Map<string, string>();
  let chars = 0;
  const remembered: Redactor = (text) => {
    if (text.length > LONGEST_REMEMBERED) return redact(text);
    let out = recent.get(text);
    if (out !== undefined) return out;
    out = older.get(text) ?? redact(text);
    if (recent.size >= GENERATION || chars >= GENERATION_CHARS) {
      older = recent;
      recent = new Map();
      chars = 0;
    }
    recent.set(text, out);
    chars += text.length + out.length;
    return out;
  };
  remembering.add(remembered);
  return remembered;
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

/**
 * A value from outside (a call's arguments, an adapter's error, a dead-letter entry) as an
 * output may show it: plain JSON data (`jsonSafe`: cycles, BigInts and class instances made
 * plain, depth bounded), every string redacted, and every string under a key that names a
 * secret (`password`, `x-api-key`, `client_secret`, `accessKeyId`) replaced whole: the text
 * families cannot know that `hunter2` is a password, its key does.
 */
export function redactDeep<T>(value: T, redact: Redactor): T {
  return mapStrings(jsonSafe(value) as T, (text, key) => (text !== "" && key !== undefined && SECRET_KEY.test(key) ? REDACTED : redact(text)));
}
