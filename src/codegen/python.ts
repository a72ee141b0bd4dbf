/**
 * `failbook gen py`: one self-contained Python 3.9+ module (standard library only, clean
 * under `pyright --strict`) from a registry and a playbook: the verdict `Literal`s, the error
 * kinds and declared fields, the verdict facts, the playbook as `TypedDict`s, `classify()`
 * over the one classifier's compiled tables, and envelope constructors that redact secrets as
 * failbook does (its secret families translated to re, then the config's redact: patterns).
 * It prints the same tables as `gen ts` (./tables.ts); every text from YAML is an escaped,
 * pure-ASCII literal.
 */
import type { PathSegment } from "failbook-runtime/model/finding.js";
import type { MatchRule, Registry } from "failbook-runtime/model/registry.js";
import { statusOf } from "failbook-runtime/model/registry.js";
import { bucketRules } from "failbook-runtime/engine/classify.js";
import { CAUSE_DEPTH, compileClassifier, type Bucket, type ClassifierIndex, type CompiledConditions, type FieldValue, type StringBuckets } from "failbook-runtime/engine/classifier.js";
import { assignPythonNames } from "./identifiers.js";
import { inputsHash, manifestLine, manifestOf, type Manifest } from "./manifest.js";
import { pythonPattern, type PythonPattern } from "./pyregex.js";
import { PY_ACTION_TYPES, PY_CLASSIFIER_TYPES, PY_CLASSIFY, PY_ENVELOPE, PY_REDACT, PY_ERROR_TYPES, PY_ENVELOPE_OF, PYTHON_FIXED_NAMES } from "./python-runtime.js";
import { bindingTables, redactActions, redactProse, resolveInput, type BindingTables } from "./tables.js";
import { CodegenError, codegenProblems, projectData, redactPatternProblems, type CodegenInput, type CodegenProblem, type GenerateOptions } from "./typescript.js";
import { PROJECT_FORMAT } from "failbook-runtime/engine/dispatch.js";
import { FAMILIES, REDACTED, SHORTEST_SECRET, TRIGGER } from "failbook-runtime/engine/secrets.js";

export interface GeneratedPython {
  text: string;
  manifest: Manifest;
  verdicts: string[];
  reserved: string[];
  errorKinds: string[];
}

/** Generate the module. Throws CodegenError when the inputs cannot make a module that decides as failbook does. */
export function generatePython(input: CodegenInput, options: GenerateOptions = {}): GeneratedPython {
  const { registry: rawRegistry, playbook: rawPlaybook, files, redact, redactPatterns } = resolveInput(input, options);
  const registry = redactProse(rawRegistry, redact);
  const playbook = redactActions(rawPlaybook, redact);
  const problems = [
    ...codegenProblems(registry, playbook),
    ...patternProblems(registry),
    ...redactPatternProblems(redactPatterns, "the Python module's envelope constructors", (pattern) => {
      const translated = redactPattern(pattern);
      return translated.ok ? undefined : translated.reason;
    }),
  ];
  if (problems.length > 0) throw new CodegenError(problems);

  const tables = bindingTables(registry, playbook);
  const names = assignPythonNames(tables.verdicts, PYTHON_FIXED_NAMES);
  const manifest = manifestOf(rawRegistry, rawPlaybook);
  const command = options.command ?? "failbook gen py";
  const index = compileClassifier(tables.rules);
  const sections = [
    banner(rawRegistry, rawPlaybook, files, command, inputsHash(manifest)),
    vocabularySection(tables),
    PY_ERROR_TYPES,
    verdictInfoSection(tables),
    PY_ACTION_TYPES,
    `PLAYBOOK: Mapping[FailureVerdict, CompensationAction] = ${pyJsonDict(tables.actions)}\n"""The playbook ${pyDocText(JSON.stringify(tables.playbook.name))}: the one compensation action for each verdict."""`,
    `POLICIES: PlaybookPolicies = ${pyDict(tables.policies)}\n"""The playbook's shared policies: attempt timeouts, circuit breakers, rate limits, retry budget, retry throttling, hedging."""`,
    PY_CLASSIFIER_TYPES,
    rulesSection(index),
    indexSection(index),
    PY_CLASSIFY,
    redactionSection(redactPatterns),
    PY_ENVELOPE,
    constructorSection(tables, names),
    projectSection(projectData(registry, playbook, redact), redactPatterns),
    // Pure ASCII, as the rest of the module.
    manifestLine(manifest, "#").replace(/[^\x20-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`),
  ];
  const text = sections.map((s) => s.replace(/^\n+|\n+$/g, "")).join("\n\n\n") + "\n";
  return { text, manifest, verdicts: tables.verdicts, reserved: tables.reserved, errorKinds: tables.errorKinds };
}

/** Every `message_matches` of a rule that can match (reserved verdicts never do) that Python's re cannot run exactly. */
export function patternProblems(registry: Registry): CodegenProblem[] {
  const problems: CodegenProblem[] = [];
  const visit = (rule: MatchRule, path: PathSegment[], depth: number) => {
    const patterns = rule.message_matches;
    const list = patterns === undefined ? [] : Array.isArray(patterns) ? patterns.map((p, k) => [p, [...path, "message_matches", k]] as const) : [[patterns, [...path, "message_matches"]] as const];
    for (const [pattern, at] of list) {
      const translated = pythonPattern(pattern);
      if (!translated.ok) problems.push({ rule: "python-pattern", document: "registry", path: [...at], message: `message_matches ${JSON.stringify(pattern)} ${translated.reason}; gen py cannot write a module that decides as failbook does (rewrite the pattern, or use message_contains)`, generatorOnly: true });
    }
    if (rule.cause !== undefined && depth < CAUSE_DEPTH) visit(rule.cause, [...path, "cause"], depth + 1);
    if (rule.not !== undefined) visit(rule.not, [...path, "not"], depth);
  };
  registry.verdicts.forEach((v, i) => {
    if (statusOf(v) !== "reserved") (v.match ?? []).forEach((rule, r) => visit(rule, ["verdicts", i, "match", r], 0));
  });
  return problems;
}

/** A `redact:` pattern (run with the u and g flags, as failbook runs it) in Python. */
const redactPattern = (pattern: string) => pythonPattern(`/${pattern}/gu`, { backreferences: true });

/**
 * A translation the module relies on (a built-in pattern, or a redact: pattern checked before
 * generation) as a compiled Python pattern; `unicode`: the mode it must run in.
 */
function compiled(translated: PythonPattern, what: string, unicode: boolean): string {
  if (!translated.ok) throw new Error(`${what} cannot be translated: ${translated.reason}`);
  if (translated.unicode !== unicode) throw new Error(`${what} ${unicode ? "is not" : "is"} in Unicode mode`);
  return `re.compile(${pyStr(translated.source)}, re.ASCII)`;
}

/** A built-in pattern (no u flag: it runs over UTF-16 code units, as in JavaScript). */
const unitsPattern = (re: RegExp): string => compiled(pythonPattern(`/${re.source}/${re.flags}`, { backreferences: true }), `built-in pattern ${re}`, false);

/** TRIGGER's words, checked to be written in lower case, with the i flag alone, as one alternation without groups. */
function triggerWords(): string[] {
  if (TRIGGER.source !== TRIGGER.source.toLowerCase() || TRIGGER.flags !== "i") throw new Error(`the secret trigger ${TRIGGER} must be written in lower case with the i flag alone`);
  const words = TRIGGER.source.split("|");
  if (words.some((w) => /[()]/.test(w))) throw new Error(`the secret trigger ${TRIGGER} must be one alternation of words without groups`);
  return words;
}

/**
 * Words as one alternation whose words that start with the same letter share one branch
 * (`a(?:3t|kia|...)`): Python's re tries a branch per position, and whether any word is
 * found does not depend on their order.
 */
function grouped(words: readonly string[]): string {
  const byLetter = new Map<string, string[]>();
  for (const word of words) {
    // A word that starts with a class or an escape is a branch of its own.
    const head = /^[a-z0-9]/.test(word) ? word[0]! : word;
    byLetter.set(head, [...(byLetter.get(head) ?? []), head === word ? "" : word.slice(1)]);
  }
  return [...byLetter].map(([head, tails]) => (tails.length === 1 ? head + tails[0] : `${head}(?:${tails.join("|")})`)).join("|");
}

/**
 * TRIGGER without its i flag: run over a lower-cased text, it finds every word TRIGGER finds
 * (lower-casing maps each ASCII letter to its lower case, one for one, and TRIGGER matches
 * nothing beyond ASCII), and sometimes one more (a non-ASCII letter that lower-cases to
 * ASCII, such as the Kelvin sign), which the exact scan then rejects.
 */
const triggerAsWritten = (): RegExp => new RegExp(grouped(triggerWords()));

const KEY_WORDS = ["token", "secret", "passw", "api[_-]?key", "access[_-]?key"];

/**
 * The TRIGGER words each built-in family's every match holds (its literal prefix, or the key
 * word of a key-value pair, whose separator `:` or `=` follows the key word with no other `:`
 * or `=` between). gen py runs a family only over a text whose lower-cased form holds one:
 * the others cannot match there, nor after a family before them replaced a match (a
 * replacement writes [REDACTED], which holds no word and joins none).
 */
const FAMILY_WORDS: Record<string, { words: string[]; separator?: true }> = {
  "private key block": { words: ["private key"] },
  "bearer token": { words: ["bearer"] },
  "Stripe key (sk_live_, sk_test_, rk_...)": { words: ["[sr]k[_-]"] },
  "Anthropic and OpenAI key (sk-ant-, sk-proj-, sk-)": { words: ["[sr]k[_-]"] },
  "AWS access key id (AKIA, ASIA, ...)": { words: ["a3t", "akia", "asia", "agpa", "aida", "aroa", "aipa", "anpa", "anva"] },
  JWT: { words: ["eyj"] },
  "GitHub token (ghp_, gho_, ghs_, ghu_, ghr_, github_pat_)": { words: ["gh[opsur]_", "github_pat_"] },
  "Slack token (xoxa-, xoxb-, xoxo-, xoxp-, xoxr-, xoxs-, xapp-)": { words: ["xox[abopsr]-", "xapp-"] },
  "Google API key (AIza)": { words: ["aiza"] },
  "password in a URL (scheme://user:password@host)": { words: [":\\/\\/"] },
  "quoted key-value pair": { words: KEY_WORDS, separator: true },
  "key-value pair (key containing token, secret, password, passwd, api_key, apikey, access_key, client_secret)": { words: KEY_WORDS, separator: true },
};

/** Each family's words as a pattern over the lower-cased text; every TRIGGER word is some family's, and no other word. */
function familyHints(): RegExp[] {
  const trigger = new Set(triggerWords());
  const used = new Set<string>();
  const hints = FAMILIES.map((f) => {
    const entry = FAMILY_WORDS[f.name];
    if (entry === undefined) throw new Error(`the secret family ${f.name} has no words in FAMILY_WORDS (src/codegen/python.ts)`);
    for (const word of entry.words) {
      if (!trigger.has(word)) throw new Error(`the secret family ${f.name}'s word ${word} is no word of the trigger ${TRIGGER}`);
      used.add(word);
    }
    return new RegExp(entry.separator === true ? `(?:${grouped(entry.words)})[^:=]*[:=]` : grouped(entry.words));
  });
  const unused = [...trigger].filter((w) => !used.has(w));
  if (unused.length > 0) throw new Error(`the trigger's words ${unused.join(", ")} are no family's in FAMILY_WORDS (src/codegen/python.ts)`);
  return hints;
}

/**
 * The redaction the envelope constructors run: failbook's own secret families
 * (src/engine/secrets.ts) and their trigger, translated by ./pyregex.ts from the very
 * patterns failbook runs, then the project's `redact:` patterns. The families run over the
 * text's UTF-16 code units (they have no u flag), the project's patterns over its code
 * points (they run with u), as in failbook.
 */
function redactionSection(patterns: readonly string[]): string {
  const hints = familyHints();
  const families = FAMILIES.map((f, i) => `    (${unitsPattern(f.re)}, ${f.keep === true ? "True" : "False"}, ${unitsPattern(hints[i]!)}),  # ${pyComment(f.name)}`);
  const own = patterns.map((p) => `    ${compiled(redactPattern(p), `redact pattern ${p}`, true)},`);
  return [
    "# ---------------------------------------------------------------------------------------",
    "# Redaction: failbook's own secret families (src/engine/secrets.ts), translated exactly to",
    "# Python's re, then the project's redact: patterns, so the envelope constructors redact",
    "# exactly as failbook's dispatcher does.",
    "# ---------------------------------------------------------------------------------------",
    "",
    `_REDACTED: Final = ${pyStr(REDACTED)}`,
    "",
    `_SECRET_TRIGGER: Final = ${unitsPattern(TRIGGER)}`,
    '"""Every built-in family\'s match holds this: a text without it needs no family pattern."""',
    "",
    `_SECRET_HINT: Final = ${unitsPattern(triggerAsWritten())}`,
    '"""The trigger\'s words as written, in lower case: a text whose lower-cased form holds none of them holds no trigger. Python\'s re tries every case-folded word at every position; this scan costs a fifth of that, and the exact one runs only where it finds a word."""',
    "",
    `_SHORTEST_SECRET: Final = ${SHORTEST_SECRET}`,
    "",
    `_SECRET_FAMILIES: Tuple[Tuple[re.Pattern[str], bool, re.Pattern[str]], ...] = (\n${families.join("\n")}\n)`,
    '"""The built-in secret families, in order; True: group 1 (a label such as "Bearer ") survives; then the words one of which the lower-cased text must hold for the family to match."""',
    "",
    `_REDACT_PATTERNS: Tuple[re.Pattern[str], ...] = ${own.length === 0 ? "()" : `(\n${own.join("\n")}\n)`}`,
    '"""The project\'s own redact: patterns (failbook.yaml), applied after the built-in families."""',
    "",
    "",
    PY_REDACT.trim(),
  ].join("\n");
}

/**
 * The project for failbook_runtime's `create_dispatcher(PROJECT)` (SPEC 25), as `gen ts`
 * exports it (format, registry, playbook, redact: patterns, as plain data), plus this
 * module's own classify, redaction and hint readers: the Python runtime decides with the
 * very functions the differential tests hold equal to failbook's, never a second copy.
 */
function projectSection(data: { registry: object; playbook: object }, redactPatterns: readonly string[]): string {
  const fields = [
    `"format": ${pyStr(PROJECT_FORMAT)}`,
    `"registry": ${pyJsonDict(data.registry as Record<string, unknown>)}`,
    `"playbook": ${pyJsonDict(data.playbook as Record<string, unknown>)}`,
    `"redact": ${pyValue(redactPatterns)}`,
    `"classify": classify`,
    `"redact_text": _redact`,
    `"hint_value": _hint_value`,
    `"field_hint": _field_hint`,
    `"http_date": _http_date`,
  ];
  return [
    "class Project(TypedDict):",
    `    """The registry and playbook as failbook validated them, with this module's classify and redaction, for failbook_runtime."""`,
    "",
    `    format: Literal[${pyStr(PROJECT_FORMAT)}]`,
    "    registry: Mapping[str, object]",
    "    playbook: Mapping[str, object]",
    "    redact: List[str]",
    "    classify: Callable[[Optional[Mapping[str, object]], Optional[str]], str]",
    "    redact_text: Callable[[str], str]",
    "    hint_value: Callable[[str, bool, str, str], _HintValue]",
    "    field_hint: Callable[[object], _HintValue]",
    "    http_date: Callable[[str], Optional[int]]",
    "",
    "",
    `PROJECT: Project = {\n${fields.map((f) => `    ${f},`).join("\n")}\n}`,
    `"""The project for failbook_runtime (packages/runtime-py): \`create_dispatcher(PROJECT)\`."""`,
  ].join("\n");
}

// ---------------------------------------------------------------------------------------
// Python text
// ---------------------------------------------------------------------------------------

/** A double-quoted Python string literal, pure ASCII: anything else is an escape. */
export function pyStr(text: string): string {
  let out = '"';
  for (const ch of text) {
    const c = ch.codePointAt(0) as number;
    if (ch === "\\" || ch === '"') out += `\\${ch}`;
    else if (c >= 0x20 && c < 0x7f) out += ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\r") out += "\\r";
    else if (c < 0x100) out += `\\x${c.toString(16).padStart(2, "0")}`;
    else if (c <= 0xffff) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += `\\U${c.toString(16).padStart(8, "0")}`;
  }
  return `${out}"`;
}

/** Text for a docstring: the inside of a string literal, so nothing in it can end the docstring. */
const pyDocText = (text: string): string => pyStr(text).slice(1, -1);

/** Text for a `#` comment: pure ASCII on one line (anything else escaped as in a string literal). */
const pyComment = (text: string): string => text.replace(/[^\x20-\x7e]/gu, (ch) => pyStr(ch).slice(1, -1));

/** A JSON number as a Python literal. */
function pyNumber(n: number): string {
  if (Number.isNaN(n)) return 'float("nan")';
  if (!Number.isFinite(n)) return n > 0 ? 'float("inf")' : 'float("-inf")';
  return Number.isSafeInteger(n) ? String(n) : String(n).replace("e+", "e");
}

/** A float literal, for field values (JavaScript numbers are doubles). */
function pyFloat(n: number): string {
  if (!Number.isFinite(n)) return pyNumber(n);
  const text = String(n).replace("e+", "e");
  return /[.e]/.test(text) ? text : `${text}.0`;
}

/** A JSON value as a Python literal (objects as dicts, arrays as lists). */
export function pyValue(value: unknown): string {
  if (typeof value === "string") return pyStr(value);
  if (typeof value === "number") return pyNumber(value);
  if (typeof value === "boolean") return value ? "True" : "False";
  if (value === null || value === undefined) return "None";
  if (Array.isArray(value)) return `[${value.map(pyValue).join(", ")}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return `{${entries.map(([k, v]) => `${pyStr(k)}: ${pyValue(v)}`).join(", ")}}`;
}

/**
 * JSON as the inside of a raw triple-quoted string: ASCII (every other character a \u
 * escape, as Python's json reads it), and never three quotes in a row (JSON separates a
 * string's closing quote from the next opening one). Undefined when the value holds a
 * number JSON has no text for (a NaN or an infinity), which a Python literal can carry.
 */
function asciiJson(value: unknown): string | undefined {
  let finite = true;
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === "number" && !Number.isFinite(v)) finite = false;
    return v;
  });
  return finite ? text.replace(/[^\x20-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`) : undefined;
}

/**
 * A big table as data the module parses at import: `json.loads(r"""...""")`, one entry of
 * the dict a line, the same values a literal makes (json gives dicts, lists, str, int, float,
 * bool and None as the literal does). pyright reads one string token where a literal of
 * 10,000 entries cost it minutes: each key was checked against the FailureVerdict union of
 * 10,000 members. A value holding a NaN or an infinity is written as a literal.
 */
function pyJsonDict(record: Record<string, unknown>): string {
  const entries: string[] = [];
  for (const [k, v] of Object.entries(record)) {
    // pyDict writes an entry without a value as None, as JSON's null reads.
    const value = v === undefined ? "null" : asciiJson(v);
    if (value === undefined) return pyDict(record);
    entries.push(`${asciiJson(k)}:${value}`);
  }
  return `json.loads(r"""{${entries.length === 0 ? "" : `\n${entries.join(",\n")}\n`}}""")`;
}

/** A dict of one entry a line. */
function pyDict(record: Record<string, unknown>): string {
  const entries = Object.entries(record);
  if (entries.length === 0) return "{}";
  return `{\n${entries.map(([k, v]) => `    ${pyStr(k)}: ${pyValue(v)},`).join("\n")}\n}`;
}

function pyTuple(items: readonly string[]): string {
  return items.length === 1 ? `(${items[0]},)` : `(${items.join(", ")})`;
}

/** A Literal type of strings; `fallback` when there are none (a Literal needs a member). */
function pyLiteral(values: readonly string[], fallback: string): string {
  if (values.length === 0) return fallback;
  return `Literal[\n${values.map((v) => `    ${pyStr(v)},`).join("\n")}\n]`;
}

/**
 * The members of a Literal alias as a tuple, in its order (() for the `str` of an empty set).
 * Written out as a tuple of 10,000 strings, pyright --strict checked each against the
 * Literal's 10,000 members and did not finish.
 */
function stringTuple(name: string, type: string): string {
  return `${name}: Tuple[${type}, ...] = get_args(${type})`;
}

// ---------------------------------------------------------------------------------------
// Sections
// ---------------------------------------------------------------------------------------

function banner(registry: Registry, playbook: BindingTables["playbook"], files: GenerateOptions["files"], command: string, hash: string): string {
  const config = files?.config ?? "failbook.yaml";
  return [
    "# @generated by `failbook gen py`. DO NOT EDIT: changes are overwritten on the next generation.",
    `# Registry: ${pyComment(files?.registry ?? "(registry)")} (${pyComment(JSON.stringify(registry.name))}, revision ${registry.revision})`,
    `# Playbook: ${pyComment(files?.playbook ?? "(playbook)")} (${pyComment(JSON.stringify(playbook.name))})`,
    `# Paths are relative to ${pyComment(config)}. Regenerate, in its directory: ${pyComment(command)}`,
    `# Check that it is current (CI): ${pyComment(command)} --check`,
    `# Inputs: sha256:${hash} (the registry and playbook as parsed, by the manifest on the last line)`,
    '"""Failure verdicts, classify() and envelopes for one failbook registry (Python 3.9+, standard library only)."""',
    "",
    "from __future__ import annotations",
    "",
    "import json",
    "import re",
    "from typing import Any, Callable, Dict, Final, List, Literal, Mapping, NamedTuple, Optional, Sequence, Tuple, TypedDict, Union, cast, get_args",
  ].join("\n");
}

function vocabularySection(t: BindingTables): string {
  const fieldType = (type: string) => (type === "string" ? "str" : type === "integer" ? "int" : type === "number" ? "float" : "bool");
  const fields = t.errorFields.map(([name, field]) => `    ${pyStr(name)}: ${fieldType(field.type)},`);
  return [
    `REGISTRY_NAME: Final = ${pyStr(t.registry.name)}`,
    `REGISTRY_REVISION: Final = ${pyNumber(t.registry.revision)}`,
    "",
    `FailureVerdict = ${pyLiteral(t.verdicts, "str")}`,
    '"""Every verdict an adapter may report: active and deprecated. Reserved codes are apart."""',
    "",
    stringTuple("VERDICTS", "FailureVerdict"),
    "",
    `FALLBACK_VERDICT: Final[FailureVerdict] = ${pyStr(t.registry.fallback)}`,
    '"""The verdict of an error that no rule matches, and of a failure with no error object."""',
    "",
    `ReservedVerdict = ${pyLiteral(t.reserved, "str")}`,
    '"""Codes set aside for later: never classified, no envelope."""',
    "",
    stringTuple("RESERVED_VERDICTS", "ReservedVerdict"),
    "",
    "_VERDICT_SET: frozenset[str] = frozenset(VERDICTS)",
    "",
    "",
    "def is_failure_verdict(value: object) -> bool:",
    '    """Is this value a verdict of this registry (reserved codes are not)?"""',
    "    return isinstance(value, str) and value in _VERDICT_SET",
    "",
    "",
    `FailureClass = ${pyLiteral(t.classes, "str")}`,
    '"""The registry\'s closed set of routing classes."""',
    "",
    stringTuple("FAILURE_CLASSES", "FailureClass"),
    "",
    `ErrorKind = ${pyLiteral(t.errorKinds, "str")}`,
    '"""Every adapter error kind the classify rules recognise: the adapters\' vocabulary."""',
    "",
    stringTuple("ERROR_KINDS", "ErrorKind"),
    "",
    "_ERROR_KIND_SET: frozenset[str] = frozenset(ERROR_KINDS)",
    "",
    "",
    "def is_error_kind(value: object) -> bool:",
    "    return isinstance(value, str) and value in _ERROR_KIND_SET",
    "",
    "",
    `ERROR_FIELDS: Mapping[str, Literal["string", "integer", "number", "boolean"]] = ${pyDict(Object.fromEntries(t.errorFields.map(([name, field]) => [name, field.type])))}`,
    '"""The error fields the registry declares (what adapters report under "fields"), with their types."""',
    "",
    `AdapterErrorFields = TypedDict("AdapterErrorFields", {${fields.length === 0 ? "" : `\n${fields.join("\n")}\n`}}, total=False)`,
    '"""The declared error fields, each with its declared type."""',
  ].join("\n");
}

function verdictInfoSection(t: BindingTables): string {
  return [
    'VerdictInfo = TypedDict("VerdictInfo", {',
    '    "code": FailureVerdict,',
    '    "class": FailureClass,',
    '    "status": Literal["active", "deprecated"],',
    '    "retryable": bool,',
    '    "side_effect": SideEffectState,',
    '    "boundary": Optional[str],',
    '    "human_action_required": bool,',
    '    "summary": Optional[str],',
    '    "cause": Optional[str],',
    '    "recovery": Optional[str],',
    '    "safe_next_actions": Sequence[str],',
    '    "unsafe_next_actions": Sequence[str],',
    '    "replaced_by": Optional[str],',
    "})",
    '"""What the registry says about a verdict."""',
    "",
    `VERDICT_INFO: Mapping[FailureVerdict, VerdictInfo] = ${pyJsonDict(t.info as unknown as Record<string, unknown>)}`,
    '"""The registry\'s facts for every verdict: class, retryable, side effect, boundary, status, summary."""',
  ].join("\n");
}

/**
 * One rule's compiled conditions as JSON, only the fields it tests, under the names of the
 * module's _Conditions: its `_conditions` makes them tuples again. A field value is tagged
 * as the module's _field_key tags it; a number stays a JSON number, or is text where JSON has
 * none (`float()` reads "inf", "-inf" and "nan").
 */
function conditionsJson(c: CompiledConditions): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (c.kinds !== null) out.kinds = c.kinds;
  if (c.exactStatuses !== null) out.statuses = c.exactStatuses;
  if (c.statusRanges.length > 0) {
    const pairs: [number, number][] = [];
    for (let i = 0; i < c.statusRanges.length; i += 2) pairs.push([c.statusRanges[i] as number, c.statusRanges[i + 1] as number]);
    out.ranges = pairs;
  }
  if (c.providerCodes !== null) out.provider_codes = c.providerCodes;
  if (c.texts !== null) out.texts = c.texts;
  if (c.patterns !== null) {
    out.patterns = c.patterns.map((re) => {
      const translated = pythonPattern(`/${re.source}/${re.flags}`);
      // Refused patterns stopped generation (patternProblems): only a bug reaches this.
      if (!translated.ok) throw new Error(`message_matches ${re} cannot be translated: ${translated.reason}`);
      return [translated.source, translated.unicode];
    });
  }
  if (c.globs !== null) out.globs = c.globs.map((g) => [g.parts, g.star]);
  if (c.states !== null) out.states = c.states;
  if (c.headers !== null) out.headers = c.headers;
  if (c.fields !== null) out.fields = c.fields.map(([name, values]) => [name, values.map(fieldKey)]);
  if (c.cause !== null) out.cause = conditionsJson(c.cause);
  if (c.not !== null) out.not_ = conditionsJson(c.not);
  const hint = c.hint;
  if (hint !== null) out.hint = [hint.headers, hint.fields, hint.parse, hint.zeroAbsent];
  return out;
}

/** A field value tagged by its type, as the module's _field_key makes them. */
function fieldKey(v: FieldValue): [string, FieldValue] {
  if (typeof v === "boolean") return ["b", v];
  if (typeof v === "number") return ["n", Number.isFinite(v) ? v : String(v).replace("Infinity", "inf").toLowerCase()];
  return ["s", v];
}

/** A field value as a Python literal, tagged as fieldKey tags it: a key of _FIELD_INDEX. */
function fieldKeyLiteral(v: FieldValue): string {
  if (typeof v === "boolean") return `("b", ${v ? "True" : "False"})`;
  if (typeof v === "number") return `("n", ${pyFloat(v)})`;
  return `("s", ${pyStr(v)})`;
}

/**
 * The classify rules as one JSON string the module decodes at import (`_rule_table`): as
 * 20,000 constructor calls, one expression, pyright --strict did not finish in ten minutes.
 */
function rulesSection(index: ClassifierIndex): string {
  const rules = index.rules.map((r) => asciiJson([r.verdict, conditionsJson(r.test)]) as string);
  return [
    `_RULES: Tuple[_Rule, ...] = _rule_table(r"""[${rules.length === 0 ? "" : `\n${rules.join(",\n")}\n`}]""")`,
    '"""The classify rules, in registry order: the first that holds wins."""',
  ].join("\n");
}

type Positions = Bucket;

const positions = (bucket: Positions) => pyTuple(bucketRules(bucket).map(String));

function bucketDict(name: string, keyType: string, entries: [string, Positions][]): string {
  const body = entries.length === 0 ? "{}" : `{\n${entries.map(([k, list]) => `    ${k}: ${positions(list)},`).join("\n")}\n}`;
  return `${name}: Dict[${keyType}, Tuple[int, ...]] = ${body}`;
}

/**
 * Buckets keyed by strings as JSON the module decodes at import (`_buckets`), one key a line:
 * 20,000 entries of a dict literal cost pyright --strict 20 s at 10,000 codes.
 */
function stringBucketDict(name: string, entries: [string, Positions][]): string {
  const body = entries.map(([k, list]) => `${asciiJson(k) as string}:[${bucketRules(list).join(",")}]`);
  return `${name}: Dict[str, Tuple[int, ...]] = _buckets(r"""{${body.length === 0 ? "" : `\n${body.join(",\n")}\n`}}""")`;
}

function nestedDict(name: string, keyType: string, entries: [string, [string, Positions][]][]): string {
  const body =
    entries.length === 0
      ? "{}"
      : `{\n${entries.map(([k, inner]) => `    ${k}: {${inner.map(([ik, list]) => `${ik}: ${positions(list)}`).join(", ")}},`).join("\n")}\n}`;
  return `${name}: Dict[str, Dict[${keyType}, Tuple[int, ...]]] = ${body}`;
}

/**
 * The index's buckets, as the one classifier compiled them. Message texts are the one
 * exception: the index keys them by UTF-16 trigram codes, Python strings hold code points,
 * so each text rule is keyed here by its rarest three-code-point substring (any substring
 * of a text is in every message holding the text), or left residual when a text is shorter.
 */
function indexSection(index: ClassifierIndex): string {
  const strings = (buckets: StringBuckets): [string, Positions][] => [...buckets];
  const numbers = (map: Map<number, Bucket>): [string, Positions][] => [...map].map(([k, list]) => [String(k), list]);
  const textRules: number[] = [];
  index.bucketOf.forEach(([field], position) => field === "text" && textRules.push(position));
  const frequency = new Map<string, number>();
  const trigramsOf = (text: string) => {
    const points = [...text];
    const out: string[] = [];
    for (let i = 0; i + 3 <= points.length; i++) out.push(points.slice(i, i + 3).join(""));
    return out;
  };
  for (const p of textRules) for (const text of index.rules[p]?.test.texts ?? []) for (const g of trigramsOf(text)) frequency.set(g, (frequency.get(g) ?? 0) + 1);
  const text = new Map<string, number[]>();
  const residual = [...index.residual];
  for (const p of textRules) {
    const anchors = (index.rules[p]?.test.texts ?? []).map((t) => trigramsOf(t).sort((a, b) => (frequency.get(a) ?? 0) - (frequency.get(b) ?? 0) || (a < b ? -1 : a > b ? 1 : 0))[0]);
    if (anchors.some((a) => a === undefined)) {
      residual.push(p);
      continue;
    }
    for (const a of anchors as string[]) {
      const list = text.get(a) ?? [];
      if (list[list.length - 1] !== p) list.push(p);
      text.set(a, list);
    }
  }
  residual.sort((a, b) => a - b);
  const tagged = (v: FieldValue) => fieldKeyLiteral(v);
  return [
    "# The index: rules by the exact-valued field each was bucketed under, in rule order.",
    stringBucketDict("_KIND_INDEX", strings(index.kind)),
    stringBucketDict("_PROVIDER_CODE_INDEX", strings(index.providerCode)),
    bucketDict("_STATUS_INDEX", "int", numbers(index.status)),
    bucketDict("_STATUS_CLASS_INDEX", "int", numbers(index.statusClass)),
    stringBucketDict("_STATE_INDEX", strings(index.state)),
    stringBucketDict("_TOOL_INDEX", strings(index.tool)),
    nestedDict("_HEADER_INDEX", "str", [...index.header].map(([name, byValue]) => [pyStr(name), [...byValue].map(([v, list]) => [pyStr(v), list])])),
    stringBucketDict("_HEADER_ANY_INDEX", [...index.headerAny]),
    nestedDict("_FIELD_INDEX", "_FieldKey", [...index.field].map(([name, byValue]) => [pyStr(name), [...byValue].map(([v, list]) => [tagged(v), list])])),
    stringBucketDict("_TEXT_INDEX", [...text]),
    `_RESIDUAL: Tuple[int, ...] = ${positions(residual)}`,
    '"""Rules with no exact-valued field, in order: candidates for every error."""',
  ].join("\n");
}

function constructorSection(t: BindingTables, names: Map<string, { constructor: string }>): string {
  const constructors = t.usable
    .map((v) => {
      const name = (names.get(v.code) as { constructor: string }).constructor;
      const replacement = v.replaced_by === undefined ? "" : ` Deprecated: replaced by ${v.replaced_by}.`;
      const doc = `The envelope for ${v.code}.${statusOf(v) === "deprecated" ? replacement || " Deprecated." : ""}`;
      return [
        `def ${name}(error: Optional[AdapterErrorLike] = None, options: Optional[EnvelopeOptions] = None) -> FailureEnvelope:`,
        `    ${pyStr(doc)}`,
        `    return _envelope_of(${pyStr(v.code)}, error, options)`,
      ].join("\n");
    })
    .join("\n\n\n");
  return constructors === "" ? "" : `${PY_ENVELOPE_OF}\n\n\n${constructors}`;
}
