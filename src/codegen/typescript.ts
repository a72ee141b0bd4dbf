/**
 * `failbook gen ts`: one self-contained TypeScript module from a registry and a playbook.
 * Adapters import it to get the closed verdict union, the error-kind vocabulary, the
 * classifier, the playbook constant, per-verdict details types and branded envelope
 * constructors. The output is a pure function of the inputs: sorted where order means
 * nothing (the classify rule order means something and is kept), no timestamps.
 */
import { PROJECT_FORMAT } from "failbook-runtime/engine/dispatch.js";
import { setOwn } from "failbook-runtime/model/json.js";
import type { PathSegment } from "failbook-runtime/model/finding.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import { statusOf, type Registry, type Verdict } from "failbook-runtime/model/registry.js";
import type { ModuleKind } from "../load/module-kind.js";
import type { Project } from "../load/project.js";
import { refusal } from "../load/regex-safety.js";
import { CLASSIFIER_MODULE } from "./classifier-source.generated.js";
import { SECRETS_MODULE } from "./secrets-source.generated.js";
import { CLASSIFY_ENTRY_MODULE, ENVELOPE_RUNTIME_MODULE, MCP_RESULT_RUNTIME_MODULE } from "./runtime-source.generated.js";
import { bindingTables, byText, redactActions, redactProse, resolveInput, type BindingTables } from "./tables.js";
import { schemaToType } from "./details.js";
import { commentSafe, jsDoc, jsonData, lineCommentText, propertyKey, tsString, tsValue } from "./escape.js";
import { assignVerdictNames, type VerdictNames } from "./identifiers.js";
import { inputsHash, manifestLine, manifestOf, type Manifest } from "./manifest.js";
import { ACTION_TYPES, ERROR_TYPES, FIXED_NAMES, VERDICT_INFO_TYPE } from "./runtime.js";
import { BLANK, comment, constant, func, lines, types, type Form, type Part } from "./parts.js";

export interface GenerateOptions {
  /** Paths named in the banner, relative to the config file. */
  files?: { config: string; registry: string; playbook: string };
  /** The command the banner gives for regenerating the file. Default `failbook gen ts`. */
  command?: string;
  /**
   * Applied to every string taken from YAML, so secrets never reach the file. Default: the
   * built-in patterns, plus the config's `redact` patterns when given a Project.
   */
  redact?: (text: string) => string;
  /**
   * The project's own `redact:` patterns, which the envelope constructors apply after the
   * built-in secret families. Default: the config's, when given a Project, else none.
   */
  redactPatterns?: readonly string[];
  /** What to write: TypeScript (the default), or JavaScript as an ES module or CommonJS, with its declarations. */
  module?: ModuleKind;
}

export interface GeneratedTypeScript {
  /** The module: TypeScript, or JavaScript as asked. */
  text: string;
  /** For JavaScript, its declarations (a .d.ts for it); undefined for TypeScript. */
  declarations?: string;
  manifest: Manifest;
  /** Active and deprecated verdicts (the FailureVerdict union). */
  verdicts: string[];
  reserved: string[];
  errorKinds: string[];
}

/** Something in the inputs that no module can be generated from, at a node of one document. */
export interface CodegenProblem {
  rule: string;
  message: string;
  document: "registry" | "playbook" | "config";
  path: PathSegment[];
  /** A limit of the generated code, not a fault of the project: `failbook lint` does not report it. */
  generatorOnly?: true;
}

export class CodegenError extends Error {
  constructor(readonly problems: CodegenProblem[]) {
    super(problems.map((p) => p.message).join("; "));
    this.name = "CodegenError";
  }
}

export type CodegenInput = Project | { registry: Registry; playbook: Playbook };

/** Generate the bindings. Throws CodegenError when the inputs cannot make a module that compiles. */
export function generateTypeScript(input: CodegenInput, options: GenerateOptions = {}): GeneratedTypeScript {
  const { registry: rawRegistry, playbook: rawPlaybook, files, redact, redactPatterns } = resolveInput(input, options);
  const registry = redactProse(rawRegistry, redact);
  const playbook = redactActions(rawPlaybook, redact);
  const problems = [...codegenProblems(registry, playbook), ...redactPatternProblems(redactPatterns)];
  if (problems.length > 0) throw new CodegenError(problems);

  const tables = bindingTables(registry, playbook);
  const { verdicts, reserved, errorKinds, usable: sortedUsable } = tables;
  const names = assignVerdictNames(verdicts, FIXED_NAMES);
  const manifest = manifestOf(rawRegistry, rawPlaybook);

  const ctx: EmitContext = { registry, playbook, names, byCode: new Map(sortedUsable.map((v) => [v.code, v])) };
  const sections: Part[] = [
    registrySection(registry),
    verdictSection(verdicts, reserved, registry),
    kindSection(errorKinds),
    fieldSection(registry),
    types(ERROR_TYPES),
    types(VERDICT_INFO_TYPE),
    factsSection(sortedUsable, ctx),
    verdictInfoSection(tables),
    types(ACTION_TYPES),
    playbookSection(tables, ctx),
    classifierSection(),
    matchRulesSection(tables),
    CLASSIFY_ENTRY_MODULE,
    examplesSection(sortedUsable),
    detailsSection(sortedUsable, ctx),
    redactionSection(redactPatterns),
    ENVELOPE_RUNTIME_MODULE,
    constructorSection(sortedUsable, ctx),
    MCP_RESULT_RUNTIME_MODULE,
    projectSection(projectData(registry, playbook, redact), redactPatterns),
  ];
  const head = banner(rawRegistry, rawPlaybook, files, options.command ?? "failbook gen ts", manifest);
  const tail = `${manifestLine(manifest)}\n`;
  const kind = options.module ?? "ts";
  if (kind === "ts") return { text: printed([head, ...textsOf(sections, "ts"), tail]), manifest, verdicts, reserved, errorKinds };
  const js = textsOf(sections, "js");
  const text = kind === "esm" ? printed([head, ...js, tail]) : printed([head, '"use strict";', ...commonJs(js), tail]);
  const declarations = printed([head, ...textsOf(sections, "dts"), "export {};", tail]);
  return { text, declarations, manifest, verdicts, reserved, errorKinds };
}

/** The sections' text in one form, the sections that have none left out. */
const textsOf = (sections: readonly Part[], form: Form): string[] => sections.map((s) => s[form]).filter((t) => t !== "");

/** Sections one after another, a blank line between two. */
const printed = (sections: readonly string[]): string => sections.map(trimToOneNewline).join("\n");

/**
 * An ES module's sections as CommonJS: each `export` becomes `exports.name = name` at the
 * end (which Node's CommonJS lexer reads, so an ES module may import the names too). Only a
 * line that starts with `export ` is one: nested code is indented, data never starts a line so.
 */
function commonJs(sections: readonly string[]): string[] {
  const names: string[] = [];
  const EXPORT = /^export ((?:function|const|let|class) ([A-Za-z_$][\w$]*))/gm;
  const body = sections.map((s) => s.replace(EXPORT, (_, declaration: string, name: string) => (names.push(name), declaration)));
  return [...body, names.map((n) => `exports.${n} = ${n};`).join("\n")];
}

/** A section without blank lines before it and with exactly one line end after it (no regex over megabytes). */
function trimToOneNewline(section: string): string {
  let start = 0;
  let end = section.length;
  while (start < end && section.charCodeAt(start) === 10) start++;
  while (end > start && section.charCodeAt(end - 1) === 10) end--;
  return section.slice(start, end) + "\n";
}

/** What would make the module invalid TypeScript or a lie: each at the node to fix. */
export function codegenProblems(registry: Registry, playbook: Playbook): CodegenProblem[] {
  const problems: CodegenProblem[] = [];
  const seen = new Map<string, number>();
  for (const [i, v] of registry.verdicts.entries()) {
    const path = ["verdicts", i, "code"];
    const first = seen.get(v.code);
    if (first !== undefined) problems.push({ rule: "duplicate-code", document: "registry", path, message: `duplicate code '${v.code}' (also verdict #${first + 1}); codes must be unique before bindings can be generated` });
    else seen.set(v.code, i);
    if (!Object.hasOwn(registry.classes, v.class)) problems.push({ rule: "class-unknown", document: "registry", path: ["verdicts", i, "class"], message: `verdict '${v.code}' has class '${v.class}', which is not declared under classes:; declare it or use one of ${Object.keys(registry.classes).sort(byText).join(", ")}` });
    if (statusOf(v) !== "reserved" && !Object.hasOwn(playbook.verdicts, v.code)) problems.push({ rule: "playbook-exhaustive", document: "registry", path, message: `verdict '${v.code}' has no playbook action, so PLAYBOOK cannot cover every verdict; add an entry for it under verdicts: in the playbook` });
  }
  const fallback = registry.verdicts.find((v) => v.code === registry.fallback);
  if (!fallback || statusOf(fallback) === "reserved") {
    const why = fallback ? "is reserved" : "is not a verdict of this registry";
    problems.push({ rule: "fallback-undefined", document: "registry", path: ["fallback"], message: `fallback '${registry.fallback}' ${why}; classify() needs an active verdict for errors no rule matches` });
  }
  return problems;
}

interface EmitContext {
  registry: Registry;
  playbook: Playbook;
  names: Map<string, VerdictNames>;
  byCode: Map<string, Verdict>;
}

function banner(registry: Registry, playbook: Playbook, files: GenerateOptions["files"], command: string, manifest: Manifest): string {
  const config = files?.config ?? "failbook.yaml";
  const head = [
    "// @generated by `failbook gen ts`. DO NOT EDIT: changes are overwritten on the next generation.",
    `// Registry: ${lineCommentText(files?.registry ?? "(registry)")} (${lineCommentText(JSON.stringify(registry.name))}, revision ${registry.revision})`,
    `// Playbook: ${lineCommentText(files?.playbook ?? "(playbook)")} (${lineCommentText(JSON.stringify(playbook.name))})`,
    `// Paths are relative to ${lineCommentText(config)}. Regenerate, in its directory: ${lineCommentText(command)}`,
    `// Check that it is current (CI): ${lineCommentText(command)} --check`,
    `// Inputs: sha256:${inputsHash(manifest)} (the registry and playbook as parsed, by the manifest on the last line)`,
    "/* eslint-disable */",
  ];
  return head.join("\n");
}

function registrySection(registry: Registry): Part {
  const [name, revision, fallback] = [tsString(registry.name), tsValue(registry.revision), tsString(registry.fallback)];
  return lines(
    constant({
      doc: "/** The registry these bindings were generated from. */\n",
      exported: true,
      name: "REGISTRY",
      value: `{ name: ${name}, revision: ${revision} }`,
      tsValue: `{ name: ${name}, revision: ${revision} } as const`,
      declared: `{ readonly name: ${name}; readonly revision: ${revision} }`,
    }),
    BLANK,
    constant({
      doc: "/** The verdict of an error that no rule matches, and of a failure with no error object. */\n",
      exported: true,
      name: "FALLBACK_VERDICT",
      value: fallback,
      tsValue: `${fallback} satisfies FailureVerdict`,
      declared: fallback,
    }),
  );
}

/**
 * A closed set of strings: a constant tuple and the union of its members. `as const` over
 * a list of strings stays cheap for the compiler at 10,000 entries (a list typed by a
 * declared union would be checked element against union, quadratically).
 */
function stringSet(doc: string, constName: string, typeName: string, values: readonly string[]): Part {
  const items = values.length === 0 ? "[]" : `[\n${values.map((v) => `  ${tsString(v)},`).join("\n")}\n]`;
  return lines(
    constant({ doc: `${doc}\n`, exported: true, name: constName, value: items, tsValue: `${items} as const`, declared: `readonly ${items}` }),
    types(`export type ${typeName} = (typeof ${constName})[number];`),
  );
}

/** The set of a string set's members, and the type guard `is<Type>(value)` over it. */
function memberTest(setName: string, constName: string, guard: string, typeName: string, doc: string): Part {
  return lines(
    constant({ exported: false, name: setName, type: "ReadonlySet<string>", value: `new Set(${constName})`, tsValue: `new Set<string>(${constName})` }),
    BLANK,
    func({ doc, exported: true, name: guard, params: [{ name: "value", type: "unknown" }], returns: `value is ${typeName}`, body: `  return typeof value === "string" && ${setName}.has(value);` }),
  );
}

function verdictSection(verdicts: string[], reserved: string[], registry: Registry): Part {
  const classes = Object.keys(registry.classes).sort(byText);
  return lines(
    stringSet("/** Every verdict an adapter may report: active and deprecated. Reserved codes are apart. */", "VERDICTS", "FailureVerdict", verdicts),
    BLANK,
    stringSet("/** Codes set aside for later: never classified, no envelope. */", "RESERVED_VERDICTS", "ReservedVerdict", reserved),
    BLANK,
    memberTest("VERDICT_SET", "VERDICTS", "isFailureVerdict", "FailureVerdict", "/** Is this value a verdict of this registry (reserved codes are not)? */\n"),
    BLANK,
    stringSet("/** The registry's closed set of routing classes. */", "FAILURE_CLASSES", "FailureClass", classes),
  );
}

function kindSection(kinds: string[]): Part {
  return lines(
    stringSet("/** Every adapter error kind the classify rules recognise: the adapters' vocabulary. */", "ERROR_KINDS", "ErrorKind", kinds),
    BLANK,
    memberTest("ERROR_KIND_SET", "ERROR_KINDS", "isErrorKind", "ErrorKind", ""),
  );
}

const FIELD_TYPES = { string: "string", integer: "number", number: "number", boolean: "boolean" } as const;

/**
 * The registry's declared error fields (SPEC 12): AdapterError.fields is typed by them, and
 * ERROR_FIELDS lists their names as ERROR_KINDS lists the kinds.
 */
function fieldSection(registry: Registry): Part {
  const fields = Object.entries(registry.error_fields ?? {}).sort(([a], [b]) => byText(a, b));
  const members = fields.map(([name, f]) => {
    const doc = jsDoc([f.description ?? "", `Declared ${f.type}.`].filter((p) => p !== ""), "  ");
    return `${doc}\n  readonly ${propertyKey(name)}?: ${FIELD_TYPES[f.type]} | undefined;`;
  });
  const body = members.length === 0 ? "{ readonly [name: string]: never }" : `{\n${members.join("\n")}\n}`;
  return lines(
    types(`/** The error fields the registry declares: what an adapter reports under \`fields\`, each with its type. */\nexport type ErrorFields = ${body};`),
    BLANK,
    stringSet("/** The names of the declared error fields. */", "ERROR_FIELDS", "ErrorFieldName", fields.map(([name]) => name)),
  );
}

/** Each verdict's member doc (indent "  ", no lead): VerdictFacts and DetailsByVerdict both show it. */
const memberDocs = new WeakMap<Verdict, string>();

/** The JSDoc for a verdict-keyed declaration: its summary, and @deprecated naming the replacement. */
function verdictDoc(v: Verdict, ctx: EmitContext, indent: string, lead?: string): string {
  const member = indent === "  " && lead === undefined;
  const known = member ? memberDocs.get(v) : undefined;
  if (known !== undefined) return known;
  const paragraphs = [lead ?? "", v.summary ?? ""].filter((p) => p !== "");
  const doc = jsDoc(paragraphs, indent, deprecatedTag(v, ctx));
  if (member) memberDocs.set(v, doc);
  return doc;
}

function deprecatedTag(v: Verdict, ctx: EmitContext): string[] {
  if (statusOf(v) !== "deprecated") return [];
  const replacement = v.replaced_by;
  if (replacement === undefined) return ["@deprecated This verdict is deprecated."];
  const shown = commentSafe(JSON.stringify(replacement));
  const names = ctx.names.get(replacement);
  return [names ? `@deprecated Replaced by ${shown}: use {@link ${names.constructor}} instead.` : `@deprecated Replaced by ${shown}.`];
}

/**
 * Per verdict, what the types need as literals (class, retryable, action name) and its
 * documentation: VERDICT_INFO and PLAYBOOK map over these keys, so each of their entries
 * shows this summary and, when deprecated, its replacement.
 */
function factsSection(verdicts: Verdict[], ctx: EmitContext): Part {
  const entries = verdicts.map(
    (v) =>
      `${verdictDoc(v, ctx, "  ")}  readonly ${propertyKey(v.code)}: { readonly class: ${tsString(v.class)}; readonly retryable: ${v.retryable}; readonly action: ${tsString(ctx.playbook.verdicts[v.code].action)} };`,
  );
  return types(`/** Each verdict's class, retryable flag and playbook action, as types. */\nexport interface VerdictFacts {\n${entries.join("\n")}\n}`);
}

function verdictInfoSection(tables: BindingTables): Part {
  return constant({
    doc: "/** The registry's facts for every verdict: class, retryable, side effect, boundary, status, summary. */\n",
    exported: true,
    name: "VERDICT_INFO",
    type: "{ readonly [V in keyof VerdictFacts]: VerdictInfo<V> }",
    value: jsonData(tables.info),
  });
}

function playbookSection(tables: BindingTables, ctx: EmitContext): Part {
  return constant({
    doc: `/** The playbook ${lineCommentText(JSON.stringify(ctx.playbook.name))}: the one compensation action for each verdict. */\n`,
    exported: true,
    name: "PLAYBOOK",
    type: `{ readonly [V in keyof VerdictFacts]: ActionOf<VerdictFacts[V]["action"]> }`,
    value: jsonData(tables.actions),
  });
}

/**
 * The project as data for failbook-runtime's `createDispatcher({ project: PROJECT })` (SPEC
 * 17): the registry and playbook as failbook validated them and the redact: patterns lint
 * checked. Typed by its shape (the playbook's shared policies by PlaybookPolicies) and
 * nothing more, so the module compiles without failbook-runtime installed.
 */
function projectSection(data: { registry: object; playbook: object }, redactPatterns: readonly string[]): Part {
  return constant({
    doc: "/** The registry and playbook as failbook validated them, for failbook-runtime: `createDispatcher({ project: PROJECT })`. */\n",
    exported: true,
    name: "PROJECT",
    type: `{ readonly format: ${tsString(PROJECT_FORMAT)}; readonly registry: object; readonly playbook: PlaybookPolicies & { readonly [key: string]: unknown }; readonly redact: readonly string[] }`,
    value: jsonData({ format: PROJECT_FORMAT, ...data, redact: redactPatterns }),
  });
}

/**
 * What PROJECT carries, redacted like the rest of the module: the verdicts' prose already is;
 * the descriptions of the registry, its classes and the playbook are here. Of the playbook's
 * entries only those of the registry's verdicts (another is a lint error, and never runs).
 */
export function projectData(registry: Registry, playbook: Playbook, redact: (text: string) => string): { registry: object; playbook: object } {
  const classes: Registry["classes"] = {};
  for (const [name, c] of Object.entries(registry.classes)) setOwn(classes, name, c.description === undefined ? c : { ...c, description: redact(c.description) });
  const codes = new Set(registry.verdicts.map((v) => v.code));
  const verdicts: Playbook["verdicts"] = {};
  for (const [code, action] of Object.entries(playbook.verdicts)) if (codes.has(code)) setOwn(verdicts, code, action);
  return { registry: { ...withDescription(registry, redact), classes }, playbook: { ...withDescription(playbook, redact), verdicts } };
}

function withDescription<T extends object>(document: T, redact: (text: string) => string): T {
  const { description } = document as { description?: unknown };
  return typeof description === "string" ? { ...document, description: redact(description) } : document;
}

/** Its functions and constants private to the module (scripts/embed-classifier.mjs); its types stay exported, since the exported tables are typed by them. */
function classifierSection(): Part {
  return lines(
    comment(
      [
        "// ---------------------------------------------------------------------------------------",
        "// The classifier: failbook's own (src/engine/classifier.ts), embedded verbatim, so these",
        "// bindings decide exactly as `failbook classify` does.",
        "// ---------------------------------------------------------------------------------------",
      ].join("\n"),
    ),
    CLASSIFIER_MODULE,
  );
}

/**
 * The redaction the envelope constructors run: failbook's own secret families
 * (src/engine/secrets.ts), embedded verbatim, then the project's `redact:` patterns. Those
 * run on JavaScript's engine in the bindings (failbook runs them on a linear-time one), so
 * each must be one that recheck proves free of ReDoS, as for `message_matches`.
 */
function redactionSection(patterns: readonly string[]): Part {
  const list = patterns.length === 0 ? "[]" : `[\n${patterns.map((p) => `  new RegExp(${tsString(p)}, "gu"),`).join("\n")}\n]`;
  return lines(
    comment(
      [
        "// ---------------------------------------------------------------------------------------",
        "// Redaction: failbook's own secret families (src/engine/secrets.ts), embedded verbatim, so",
        "// the envelope constructors redact exactly as failbook's dispatcher does.",
        "// ---------------------------------------------------------------------------------------",
      ].join("\n"),
    ),
    SECRETS_MODULE,
    constant({ doc: "/** The project's own redact: patterns (failbook.yaml), applied after the built-in families. */\n", exported: false, name: "REDACT_PATTERNS", type: "readonly RegExp[]", value: list }),
  );
}

/**
 * A `redact:` pattern that cannot run safely on a backtracking engine in the bindings
 * (JavaScript's, Python's); `translate` adds a target's own refusal (gen py's translator).
 */
export function redactPatternProblems(patterns: readonly string[], where = "the bindings' envelope constructors", translate?: (pattern: string) => string | undefined): CodegenProblem[] {
  const problems: CodegenProblem[] = [];
  for (const [i, pattern] of patterns.entries()) {
    let why: string | undefined;
    try {
      new RegExp(pattern, "gu");
      why = refusal(pattern) ?? translate?.(pattern);
    } catch (e) {
      why = `is not a valid regular expression with the u flag: ${(e as Error).message.replace(/^.*: /, "")}`;
    }
    if (why !== undefined) {
      problems.push({ rule: "redact-pattern-invalid", document: "config", path: ["redact", i], message: `redact pattern ${JSON.stringify(pattern)} cannot be embedded in ${where}: it ${why.replace(/, or use message_contains$/, "")}`, generatorOnly: true });
    }
  }
  return problems;
}

/**
 * The registry's examples (SPEC 13) as a typed table: adapter errors that classify to each
 * verdict, for an adapter's own tests (`classify(e.error, { tool: e.tool })` must give
 * `e.verdict`). Their text was redacted with the rest of the verdict's prose.
 */
function examplesSection(verdicts: readonly Verdict[]): Part {
  const rows = verdicts.flatMap((v) =>
    (v.examples ?? []).map(({ tool, ...error }) => ({ verdict: v.code, ...(tool === undefined ? {} : { tool }), error })),
  );
  return lines(
    types(
      [
        "/** An example from the registry: an adapter error (and the call's tool) that classifies to `verdict`. */",
        "export interface VerdictExample {",
        "  readonly verdict: FailureVerdict;",
        "  readonly tool?: string;",
        "  readonly error: AdapterErrorLike;",
        "}",
      ].join("\n"),
    ),
    BLANK,
    constant({ doc: "/** Every verdict's examples, verdicts in code order: a test table for adapters. */\n", exported: true, name: "EXAMPLES", type: "readonly VerdictExample[]", value: jsonData(rows) }),
  );
}

/** The classify rules, in registry order, as the classifier takes them: one line a rule. */
function matchRulesSection(tables: BindingTables): Part {
  return constant({ doc: "/** The classify rules, in registry order: the first that holds wins. */\n", exported: true, name: "MATCH_RULES", type: "readonly ClassifierRule[]", value: jsonData(tables.rules) });
}

function detailsSection(verdicts: Verdict[], ctx: EmitContext): Part {
  const out: string[] = [];
  const map: string[] = [];
  for (const v of verdicts) {
    const names = ctx.names.get(v.code) as VerdictNames;
    const doc = verdictDoc(v, ctx, "  ");
    if (v.details === undefined) {
      map.push(`${doc}  readonly ${propertyKey(v.code)}: undefined;`);
      continue;
    }
    out.push(`${verdictDoc(v, ctx, "", `The details of ${JSON.stringify(v.code)}.`)}export type ${names.detailsType} = ${schemaToType(v.details)};`);
    map.push(`${doc}  readonly ${propertyKey(v.code)}: ${names.detailsType};`);
  }
  return types(
    [
      ...out.map((s) => `${s}\n`),
      "/** Each verdict's details type; undefined where the registry declares no details schema. */",
      `export interface DetailsByVerdict {\n${map.join("\n")}\n}`,
    ].join("\n"),
  );
}

function constructorSection(verdicts: Verdict[], ctx: EmitContext): Part {
  const constructors = verdicts.map((v) => {
    const names = ctx.names.get(v.code) as VerdictNames;
    const code = tsString(v.code);
    const doc = verdictDoc(v, ctx, "", `The envelope for ${JSON.stringify(v.code)}.`);
    const input = v.details === undefined ? { name: "input", type: "EnvelopeInput", init: "{}" } : { name: "input", type: `EnvelopeInput & { readonly details: ${names.detailsType} }` };
    const details = v.details === undefined ? "undefined" : "input.details";
    return func({ doc, exported: true, name: names.constructor, params: [input], returns: `FailureEnvelopeOf<${code}>`, body: `  return makeEnvelope(${code}, input, ${details});` });
  });
  return lines(...constructors.flatMap((c, i): (Part | typeof BLANK)[] => (i === 0 ? [c] : [BLANK, c])));
}
