/**
 * The built-in secret families (SPEC sections 9 and 16) and the one function that replaces
 * them: what every redactor of failbook runs first. This module imports nothing, because it
 * is also embedded verbatim in the generated bindings (scripts/embed-classifier.mjs), whose
 * envelope constructors redact exactly as the dispatcher does.
 *
 * It must cost next to nothing on text that cannot hold a secret: one cheap trigger scan
 * decides whether the family patterns run at all.
 *
 * Every built-in pattern runs in linear time: no pattern has an unbounded repetition that
 * must be followed by something it could also have consumed, unless its start is pinned to
 * the beginning of a run (a look-behind), so no input position is rescanned more than once.
 */

export const REDACTED = "[REDACTED]";

/** A built-in family; exported (with FAMILIES, TRIGGER, SHORTEST_SECRET) so gen py translates these very patterns. */
export interface Family {
  /** What the family is (the README lists them). */
  name: string;
  /** Global; when `keep` is set, capture group 1 (a label such as `Bearer ` or `password=`) survives. */
  re: RegExp;
  keep?: boolean;
}

/** A case-insensitive spelling of `word` for patterns that must stay case-sensitive elsewhere. */
const ci = (word: string): string => [...word].map((ch) => (/[a-z]/i.test(ch) ? `[${ch.toUpperCase()}${ch.toLowerCase()}]` : ch)).join("");

/**
 * Whitespace between a label and its secret, as it reaches the redactor: raw, or already
 * escaped by an output format (JSON's `\t`, the sanitiser's `\u{9}`, a GitHub annotation's
 * `%0A`, YAML source in an excerpt), once or more (JSON inside JSON doubles the backslashes).
 */
const SPACE = String.raw`(?:\s|\\+(?:[tnr]|u\{[0-9a-fA-F]{1,6}\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2})|%0[9AaDd])`;
/** A quote, escaped any number of times; the look-behind makes a run of backslashes start one match only. */
const QUOTE = String.raw`(?<!\\)\\*["']`;

/**
 * The words that make a key a secret's name (SPEC 16): token, secret, password, passwd,
 * api_key, apikey, access_key, client_secret. Exported for redact.ts's SECRET_KEY, which
 * lives there: generated modules embed this file and must declare nothing they never use.
 */
export const KEY_WORD = `(?:${ci("token")}|${ci("secret")}|${ci("passw")}(?:${ci("or")})?${ci("d")}|${ci("api")}[_-]?${ci("key")}|${ci("access")}[_-]?${ci("key")})`;

/**
 * A key containing a key word, its look-ahead groups numbered from `n`. The key starts where
 * a run of key characters starts (so a long run is scanned once), and its first key word and
 * the rest of the run are found inside look-aheads, which JavaScript never re-enters: no
 * retry of later key words when no separator follows.
 */
const key = (n: number): string => `(?=([\\w.-]*?${KEY_WORD}))\\${n}(?=([\\w.-]*))\\${n + 1}`;
/** `=` or `:` with spaces or tabs around, raw or escaped (YAML source shows `\u0009`); a key's value is on its line. */
const BLANK = String.raw`(?:[ \t]|\\+(?:t|x09|u0009|u\{9\})|%09)*`;
const SEPARATOR = `${BLANK}[:=]${BLANK}`;
/** A quoted value runs to its quote; an unquoted one ends at whitespace, a quote, an escape or a delimiter. */
const QUOTED_VALUE = String.raw`[^"'\\\r\n]+`;
const VALUE = String.raw`[^\s"'\\,;&<>(){}\[\]]+`;

export const FAMILIES: readonly Family[] = [
  // A private-key block, END line included; without its END line, up to where PEM text stops.
  {
    name: "private key block",
    re: /-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[A-Za-z0-9+/=\s\\:,.{}]|-(?!----END))*(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----)?/g,
  },
  { name: "bearer token", re: new RegExp(String.raw`((?<![A-Za-z])${ci("bearer")}${SPACE}+)[A-Za-z0-9._~+/=-]{6,}`, "g"), keep: true },
  { name: "Stripe key (sk_live_, sk_test_, rk_...)", re: /(?<![A-Za-z0-9])[sr]k_(?:live|test)_[A-Za-z0-9]{4,}/g },
  { name: "Anthropic and OpenAI key (sk-ant-, sk-proj-, sk-)", re: /(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{16,}/g },
  // AKIA and ASIA are access keys; scanners flag the other IAM id prefixes too.
  { name: "AWS access key id (AKIA, ASIA, ...)", re: /(?<![A-Z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[0-9A-Z]{16}(?![0-9A-Z])/g },
  { name: "JWT", re: /(?<![A-Za-z0-9-])eyJ[A-Za-z0-9_-]{4,}(?:\.[A-Za-z0-9_-]*)*/g },
  { name: "GitHub token (ghp_, gho_, ghs_, ghu_, ghr_, github_pat_)", re: /(?<![A-Za-z0-9])(?:gh[opsur]|github_pat)_[A-Za-z0-9_]{16,}/g },
  { name: "Slack token (xoxa-, xoxb-, xoxo-, xoxp-, xoxr-, xoxs-, xapp-)", re: /(?<![A-Za-z0-9])(?:xox[abopsr]|xapp)-[A-Za-z0-9-]{4,}/g },
  { name: "Google API key (AIza)", re: /(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{20,}/g },
  // The user goes too: scanners read `user:[REDACTED]@` as a credential whose password is "[REDACTED]".
  { name: "password in a URL (scheme://user:password@host)", re: /(:\/\/)[^\s:/@"'<>]*:[^\s/@"'<>]+(?=@)/g, keep: true },
  // `"api_key": "..."`, `'password': '...'`: a quoted key takes a quoted value (so `'token_expired': no` in prose stays).
  { name: "quoted key-value pair", re: new RegExp(String.raw`((${QUOTE})${key(3)}\2${SEPARATOR}\\*["'])${QUOTED_VALUE}`, "g"), keep: true },
  // `password=...`, `DB_PASSWORD: ...`, `access_token=...&`, `client_secret="..."`: the key contains the word anywhere.
  {
    name: "key-value pair (key containing token, secret, password, passwd, api_key, apikey, access_key, client_secret)",
    re: new RegExp(String.raw`((?<![\w.-])${key(2)}${SEPARATOR}(?:\\*["'](?=${QUOTED_VALUE}))?)(?:(?<=["'])${QUOTED_VALUE}|${VALUE})`, "g"),
    keep: true,
  },
];

/**
 * Every built-in family's match holds one of these (case-insensitively), so a text without
 * any of them needs no family pattern at all: the one scan most texts pay.
 */
export const TRIGGER = /bearer|[sr]k[_-]|a3t|akia|asia|agpa|aida|aroa|aipa|anpa|anva|eyj|gh[opsur]_|github_pat_|xox[abopsr]-|xapp-|aiza|private key|token|secret|passw|api[_-]?key|access[_-]?key|:\/\//i;

const TRIGGER_ANYWHERE = new RegExp(TRIGGER.source, "gi");

/**
 * Where a TRIGGER match can start, as two tables: the pairs of characters a word starts with
 * (each character folded with `| 0x20`, indexed by the two folded codes) give a pair id, and
 * the pair id and a folded third character say whether a word starts with those three. Most
 * texts hold no such three characters, and deciding so costs a table read a character where
 * the regular expression tries every word at every position.
 */
const [TRIGGER_PAIRS, TRIGGER_THIRDS] = ((): [Uint8Array, Uint8Array] => {
  const fold = (ch: string) => ch.charCodeAt(0) | 0x20;
  const pairs = new Uint8Array(128 * 128);
  const thirds: number[][] = [[]];
  for (const word of TRIGGER.source.split("|")) {
    const [first, second, third] = firstThreeAtoms(word);
    for (const a of first) {
      for (const b of second) {
        const at = (fold(a) << 7) | fold(b);
        if (pairs[at] === 0) pairs[at] = thirds.push([]) - 1;
        for (const c of third) thirds[pairs[at]!]!.push(fold(c));
      }
    }
  }
  const table = new Uint8Array(thirds.length * 128);
  thirds.forEach((codes, id) => codes.forEach((code) => (table[(id << 7) | code] = 1)));
  return [pairs, table];
})();

/** The characters each of a trigger word's first three atoms stands for: a character, an escaped one, or a class such as `[sr]` (none of them optional). */
function firstThreeAtoms(word: string): [string, string, string] {
  const atoms: string[] = [];
  for (let i = 0; atoms.length < 3; ) {
    if (word[i] === "[") {
      const end = word.indexOf("]", i);
      atoms.push(word.slice(i + 1, end));
      i = end + 1;
    } else if (word[i] === "\\") {
      atoms.push(word[i + 1]!);
      i += 2;
    } else {
      atoms.push(word[i]!);
      i += 1;
    }
    if (word[i] === "?" || word[i] === "*") throw new Error(`trigger word ${word}: its first three atoms must be required`);
  }
  return [atoms[0]!, atoms[1]!, atoms[2]!];
}

/**
 * `TRIGGER.test(text)`, at a fraction of its cost on the texts most outputs are made of: the
 * regular expression runs only from three characters that can start a match. Case folds as
 * TRIGGER's `i` does for ASCII (folding a non-letter may find a start that is not there,
 * never miss one); TRIGGER matches no character beyond ASCII.
 */
export function holdsTrigger(text: string): boolean {
  let a = text.charCodeAt(0) | 0x20;
  let b = text.charCodeAt(1) | 0x20;
  for (let i = 2; i < text.length; i++) {
    const c = text.charCodeAt(i) | 0x20;
    if ((a | b | c) < 128) {
      const pair = TRIGGER_PAIRS[(a << 7) | b]!;
      if (pair !== 0 && TRIGGER_THIRDS[(pair << 7) | c] === 1) return TRIGGER.test(text);
    }
    a = b;
    b = c;
  }
  return false;
}

/** Texts this short hold no built-in family: `token=x` is the shortest match. */
export const SHORTEST_SECRET = 7;

/**
 * Replace every secret in a text by [REDACTED]: the built-in families, then each of a
 * project's own patterns (global regular expressions). A text that holds none comes back as is.
 */
export function redactSecrets(text: string, own: readonly RegExp[] = []): string {
  let out = text.length >= SHORTEST_SECRET && holdsTrigger(text) ? redactFamilies(text) : text;
  for (const re of own) {
    re.lastIndex = 0;
    // A zero-length match would wedge [REDACTED] between every character: lint reports such a pattern.
    out = out.replace(re, (m: string) => (m === "" ? "" : REDACTED));
  }
  return out;
}

function applyFamily(text: string, { re, keep }: Family): string {
  re.lastIndex = 0;
  return keep ? text.replace(re, (_m, label: string) => label + REDACTED) : text.replace(re, REDACTED);
}

/** The families a match of which may span lines (a key block, `Bearer` then a line break); the rest never do. */
const MULTILINE = new Set(["private key block", "bearer token"]);
const MULTILINE_TRIGGER = /private key|bearer/i;
const MULTILINE_FAMILIES = FAMILIES.filter((f) => MULTILINE.has(f.name));
const SINGLE_LINE_FAMILIES = FAMILIES.filter((f) => !MULTILINE.has(f.name));
/** From this length on, a text with line breaks is redacted line by line (a big JSON report, a rendered page). */
const LINEWISE_FROM = 4096;

function redactFamilies(text: string): string {
  if (text.length < LINEWISE_FROM || text.indexOf("\n") < 0) return FAMILIES.reduce(applyFamily, text);
  // Same result, far less work on a big output: the multi-line families run on the whole
  // text when it holds their trigger, the single-line ones only on the lines that hold one
  // (found in one pass of the trigger over the whole text).
  const whole = MULTILINE_TRIGGER.test(text) ? MULTILINE_FAMILIES.reduce(applyFamily, text) : text;
  let out = "";
  let done = 0;
  TRIGGER_ANYWHERE.lastIndex = 0;
  for (let m = TRIGGER_ANYWHERE.exec(whole); m !== null; m = TRIGGER_ANYWHERE.exec(whole)) {
    const start = whole.lastIndexOf("\n", m.index) + 1;
    const next = whole.indexOf("\n", m.index);
    const end = next < 0 ? whole.length : next;
    out += whole.slice(done, start) + SINGLE_LINE_FAMILIES.reduce(applyFamily, whole.slice(start, end));
    done = end;
    TRIGGER_ANYWHERE.lastIndex = end;
  }
  return out + whole.slice(done);
}
