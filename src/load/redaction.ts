/**
 * The project's redactor (SPEC 16): the built-in secret families and the config's `redact:`
 * patterns, run on everything a command prints, and never hiding the project's own
 * vocabulary (codes, kinds, tool globs, match values) wherever it appears: in a finding, an
 * explanation, a command's own argument, the rendered registry.
 */
import { createRedactor, type Redactor } from "failbook-runtime/engine/redact.js";
import type { MatchRule } from "failbook-runtime/model/registry.js";
import { linearRedactPatterns } from "./pattern.js";
import type { Project } from "./project.js";

export function projectRedactor(project: Project): Redactor {
  return keepingVocabulary(patternRedactor(project.config.redact), () => projectVocabulary(project));
}

/**
 * The built-in families and the config's `redact:` patterns, compiled on the linear-time
 * engine (SPEC 16): the one way the CLI side turns its users' patterns into a redactor.
 * (The runtime's `createRedactor` runs text patterns on JavaScript's engine, safe only for a
 * generated `PROJECT`'s patterns, which `gen ts` has checked.)
 */
export function patternRedactor(patterns: readonly string[] = []): Redactor {
  return createRedactor(linearRedactPatterns(patterns));
}

/** A word as the vocabulary writes one: `auth.token_expired`, `409_conflict`, `payments.*`. */
const WORD = /[\p{L}\p{N}_*](?:[\p{L}\p{N}_.:/*-]*[\p{L}\p{N}_*])?/gu;

/**
 * A location as failbook writes one, `file:line` or `file:line:column`, in a file of a kind it
 * reads: `token-expired.yaml:8:1` reads like a key and its value to the key-value family, but
 * a file's own name is never a secret (SPEC 21), so a location is kept as a word is.
 */
const LOCATION = /\.(?:ya?ml|json|jsonl|ndjson|gz):\d+(?::\d+)?$/;

/**
 * `redact`, except that a whole word of the vocabulary, or a location, is kept as it is: the
 * text around it is redacted on its own. Text that `redact` leaves alone costs nothing more;
 * the vocabulary is gathered the first time a text needs it.
 */
export function keepingVocabulary(redact: Redactor, vocabulary: () => ReadonlySet<string>): Redactor {
  let words: ReadonlySet<string> | undefined;
  return (text) => {
    const redacted = redact(text);
    if (redacted === text) return text;
    words ??= vocabulary();
    let out = "";
    let last = 0;
    for (const m of text.matchAll(WORD)) {
      const word = vocabularyIn(m[0], words);
      if (word === undefined) continue;
      const start = m.index + m[0].indexOf(word);
      out += redact(text.slice(last, start)) + word;
      last = start + word.length;
    }
    return last === 0 ? redacted : out + redact(text.slice(last));
  };
}

/**
 * The word of the vocabulary that a matched word is: itself (or a location), or itself
 * without the asterisks of Markdown emphasis around it (`**auth.token_expired**`, as the editor's hover writes a
 * code), which WORD takes in because a tool glob may begin or end with one.
 */
function vocabularyIn(matched: string, words: ReadonlySet<string>): string | undefined {
  if (words.has(matched) || LOCATION.test(matched)) return matched;
  const bare = matched.replace(/^\*+|\*+$/g, "");
  return bare !== "" && bare !== matched && words.has(bare) ? bare : undefined;
}

/**
 * Every code, every string a match rule names (kinds, provider codes, tool globs, values), and
 * the playbook's tool globs; but a word the built-in secret families recognise is a secret
 * committed by mistake (lint's secret-in-project), which no output may show.
 */
export function projectVocabulary(project: Project): Set<string> {
  const words = new Set<string>();
  const registry = project.registry?.value;
  if (registry) {
    words.add(registry.fallback);
    for (const v of registry.verdicts) {
      words.add(v.code);
      for (const rule of v.match ?? []) addStrings(rule, words);
    }
  }
  for (const glob of Object.keys(project.playbook?.value.tools ?? {})) words.add(glob);
  const builtIn = createRedactor();
  for (const word of words) if (builtIn(word) !== word) words.delete(word);
  return words;
}

function addStrings(value: MatchRule | unknown, words: Set<string>): void {
  if (typeof value === "string") words.add(value);
  else if (Array.isArray(value)) for (const v of value) addStrings(v, words);
  else if (value !== null && typeof value === "object") for (const v of Object.values(value)) addStrings(v, words);
}
