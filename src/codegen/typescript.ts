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
import type { Project } from "../load/project.js";
import { refusal } from "../load/regex-safety.js";
import { CLASSIFIER_SOURCE } from "./classifier-source.generated.js";
import { SECRETS_SOURCE } from "./secrets-source.generated.js";
import { bindingTables, byText, redactActions, redactProse, resolveInput, type BindingTables } from "./tables.js";
import { schemaToType } from "./details.js";
import { commentSafe, jsDoc, jsonData, lineCommentText, propertyKey, tsString, tsValue } from "./escape.js";
import { assignVerdictNames, type VerdictNames } from "./identifiers.js";
import { inputsHash, manifestLine, manifestOf, type Manifest } from "./manifest.js";
import { ACTION_TYPES, CLASSIFY_ENTRY, ENVELOPE_RUNTIME, ERROR_TYPES, FIXED_NAMES, MCP_RESULT_RUNTIME, VERDICT_INFO_TYPE } from "./runtime.js";

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
}

export interface GeneratedTypeScript {
  text: string;
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
  const sections = [
    banner(rawRegistry, rawPlaybook, files, options.command ?? "failbook gen ts", manifest),
    registrySection(registry),
    verdictSection(verdicts, reserved, registry),
    kindSection(errorKinds),
    fieldSection(registry),
    ERROR_TYPES,
    VERDICT_INFO_TYPE,
    factsSection(sortedUsable, ctx),
    verdictInfoSection(tables),
    ACTION_TYPES,
    playbookSection(tables, ctx),
    classifierSection(),
    matchRulesSection(tables),
    CLASSIFY_ENTRY,
    examplesSection(sortedUsable),
    detailsSection(sortedUsable, ctx),
    redactionSection(redactPatterns),
    ENVELOPE_RUNTIME,
    constructorSection(sortedUsable, ctx),
    MCP_RESULT_RUNTIME,
    projectSection(projectData(registry, playbook, redact), redactPatterns),
    `${manifestLine(manifest)}\n`,
  ];
  const text = sections.map(trimToOneNewline).join("\n");
  return { text, manifest, verdicts, reserved, errorKinds };
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
  const lines = [
    "// @generated by `failbook gen ts`. DO NOT EDIT: changes are overwritten on the next generation.",
    `// Registry: ${lineCommentText(files?.registry ?? "(registry)")} (${lineCommentText(JSON.stringify(registry.name))}, revision ${registry.revision})`,
    `// Playbook: ${lineCommentText(files?.playbook ?? "(playbook)")} (${lineCommentText(JSON.stringify(playbook.name))})`,
    `// Paths are relative to ${lineCommentText(config)}. Regenerate, in its directory: ${lineCommentText(command)}`,
    `// Check that it is current (CI): ${lineCommentText(command)} --check`,
    `// Inputs: sha256:${inputsHash(manifest)} (the registry and playbook as parsed, by the manifest on the last line)`,
    "/* eslint-disable */",
  ];
  return lines.join("\n");
}

function registrySection(registry: Registry): string {
  return [
    "/** The registry these bindings were generated from. */",
    `export const REGISTRY = { name: ${tsString(registry.name)}, revision: ${tsValue(registry.revision)} } as const;`,
    "",
    "/** The verdict of an error that no rule matches, and of a failure with no error object. */",
    `export const FALLBACK_VERDICT = ${tsString(registry.fallback)} satisfies FailureVerdict;`,
  ].join("\n");
}

/**
 * A closed set of strings: a constant tuple and the union of its members. `as const` over
 * a list of strings stays cheap for the compiler at 10,000 entries (a list typed by a
 * declared union would be checked element against union, quadratically).
 */
function stringSet(constName: string, typeName: string, values: readonly string[]): string {
  const items = values.length === 0 ? "[]" : `[\n${values.map((v) => `  ${tsString(v)},`).join("\n")}\n]`;
  return `export const ${constName} = ${items} as const;\nexport type ${typeName} = (typeof ${constName})[number];`;
}

function verdictSection(verdicts: string[], reserved: string[], registry: Registry): string {
  const classes = Object.keys(registry.classes).sort(byText);
  return [
    "/** Every verdict an adapter may report: active and deprecated. Reserved codes are apart. */",
    stringSet("VERDICTS", "FailureVerdict", verdicts),
    "",
    "/** Codes set aside for later: never classified, no envelope. */",
    stringSet("RESERVED_VERDICTS", "ReservedVerdict", reserved),
    "",
    "const VERDICT_SET: ReadonlySet<string> = new Set<string>(VERDICTS);",
    "",
    "/** Is this value a verdict of this registry (reserved codes are not)? */",
    "export function isFailureVerdict(value: unknown): value is FailureVerdict {",
    "  return typeof value === \"string\" && VERDICT_SET.has(value);",
    "}",
    "",
    "/** The registry's closed set of routing classes. */",
    stringSet("FAILURE_CLASSES", "FailureClass", classes),
  ].join("\n");
}

function kindSection(kinds: string[]): string {
  return [
    "/** Every adapter error kind the classify rules recognise: the adapters' vocabulary. */",
    stringSet("ERROR_KINDS", "ErrorKind", kinds),
    "",
    "const ERROR_KIND_SET: ReadonlySet<string> = new Set<string>(ERROR_KINDS);",
    "",
    "export function isErrorKind(value: unknown): value is ErrorKind {",
    "  return typeof value === \"string\" && ERROR_KIND_SET.has(value);",
    "}",
  ].join("\n");
}

const FIELD_TYPES = { string: "string", integer: "number", number: "number", boolean: "boolean" } as const;

/**
 * The registry's declared error fields (SPEC 12): AdapterError.fields is typed by them, and
 * ERROR_FIELDS lists their names as ERROR_KINDS lists the kinds.
 */
function fieldSection(registry: Registry): string {
  const fields = Object.entries(registry.error_fields ?? {}).sort(([a], [b]) => byText(a, b));
  const members = fields.map(([name, f]) => {
    const doc = jsDoc([f.description ?? "", `Declared ${f.type}.`].filter((p) => p !== ""), "  ");
    return `${doc}\n  readonly ${propertyKey(name)}?: ${FIELD_TYPES[f.type]} | undefined;`;
  });
  const body = members.length === 0 ? "{ readonly [name: string]: never }" : `{\n${members.join("\n")}\n}`;
  return [
    "/** The error fields the registry declares: what an adapter reports under `fields`, each with its type. */",
    `export type ErrorFields = ${body};`,
    "",
    "/** The names of the declared error fields. */",
    stringSet("ERROR_FIELDS", "ErrorFieldName", fields.map(([name]) => name)),
  ].join("\n");
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
function factsSection(verdicts: Verdict[], ctx: EmitContext): string {
  const entries = verdicts.map(
    (v) =>
      `${verdictDoc(v, ctx, "  ")}  readonly ${propertyKey(v.code)}: { readonly class: ${tsString(v.class)}; readonly retryable: ${v.retryable}; readonly action: ${tsString(ctx.playbook.verdicts[v.code].action)} };`,
  );
  return ["/** Each verdict's class, retryable flag and playbook action, as types. */", `export interface VerdictFacts {\n${entries.join("\n")}\n}`].join("\n");
}

function verdictInfoSection(tables: BindingTables): string {
  const table = tables.info;
  return [
    "/** The registry's facts for every verdict: class, retryable, side effect, boundary, status, summary. */",
    `export const VERDICT_INFO: { readonly [V in keyof VerdictFacts]: VerdictInfo<V> } = ${jsonData(table)};`,
  ].join("\n");
}

function playbookSection(tables: BindingTables, ctx: EmitContext): string {
  const table = tables.actions;
  return [
    `/** The playbook ${lineCommentText(JSON.stringify(ctx.playbook.name))}: the one compensation action for each verdict. */`,
    `export const PLAYBOOK: { readonly [V in keyof VerdictFacts]: ActionOf<VerdictFacts[V]["action"]> } = ${jsonData(table)};`,
  ].join("\n");
}

/**
 * The project as data for failbook-runtime's `createDispatcher({ project: PROJECT })` (SPEC
 * 17): the registry and playbook as failbook validated them and the redact: patterns lint
 * checked. Typed by its shape (the playbook's shared policies by PlaybookPolicies) and
 * nothing more, so the module compiles without failbook-runtime installed.
 */
function projectSection(data: { registry: object; playbook: object }, redactPatterns: readonly string[]): string {
  return [
    "/** The registry and playbook as failbook validated them, for failbook-runtime: `createDispatcher({ project: PROJECT })`. */",
    `export const PROJECT: { readonly format: ${tsString(PROJECT_FORMAT)}; readonly registry: object; readonly playbook: PlaybookPolicies & { readonly [key: string]: unknown }; readonly redact: readonly string[] } = ${jsonData({ format: PROJECT_FORMAT, ...data, redact: redactPatterns })};`,
  ].join("\n");
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

function classifierSection(): string {
  // Its functions and constants stay private to the module; its types stay exported, since
  // the exported tables are typed by them.
  const body = CLASSIFIER_SOURCE.replace(/^\/\*\*[\s\S]*?\*\/\n/, "").replace(/^export (function|const) /gm, "$1 ");
  return [
    "// ---------------------------------------------------------------------------------------",
    "// The classifier: failbook's own (src/engine/classifier.ts), embedded verbatim, so these",
    "// bindings decide exactly as `failbook classify` does.",
    "// ---------------------------------------------------------------------------------------",
    body,
  ].join("\n");
}

/**
 * The redaction the envelope constructors run: failbook's own secret families
 * (src/engine/secrets.ts), embedded verbatim, then the project's `redact:` patterns. Those
 * run on JavaScript's engine in the bindings (failbook runs them on a linear-time one), so
 * each must be one that recheck proves free of ReDoS, as for `message_matches`.
 */
function redactionSection(patterns: readonly string[]): string {
  const body = SECRETS_SOURCE.replace(/^\/\*\*[\s\S]*?\*\/\n/, "").replace(/^export (function|const|interface) /gm, "$1 ");
  const list = patterns.length === 0 ? "[]" : `[\n${patterns.map((p) => `  new RegExp(${tsString(p)}, "gu"),`).join("\n")}\n]`;
  return [
    "// ---------------------------------------------------------------------------------------",
    "// Redaction: failbook's own secret families (src/engine/secrets.ts), embedded verbatim, so",
    "// the envelope constructors redact exactly as failbook's dispatcher does.",
    "// ---------------------------------------------------------------------------------------",
    body,
    "/** The project's own redact: patterns (failbook.yaml), applied after the built-in families. */",
    `const REDACT_PATTERNS: readonly RegExp[] = ${list};`,
  ].join("\n");
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
function examplesSection(verdicts: readonly Verdict[]): string {
  const rows = verdicts.flatMap((v) =>
    (v.examples ?? []).map(({ tool, ...error }) => ({ verdict: v.code, ...(tool === undefined ? {} : { tool }), error })),
  );
  return [
    "/** An example from the registry: an adapter error (and the call's tool) that classifies to `verdict`. */",
    "export interface VerdictExample {",
    "  readonly verdict: FailureVerdict;",
    "  readonly tool?: string;",
    "  readonly error: AdapterErrorLike;",
    "}",
    "",
    "/** Every verdict's examples, verdicts in code order: a test table for adapters. */",
    `export const EXAMPLES: readonly VerdictExample[] = ${jsonData(rows)};`,
  ].join("\n");
}

/** The classify rules, in registry order, as the classifier takes them: one line a rule. */
function matchRulesSection(tables: BindingTables): string {
  const rules = tables.rules;
  return [
    "/** The classify rules, in registry order: the first that holds wins. */",
    `export const MATCH_RULES: readonly ClassifierRule[] = ${jsonData(rules)};`,
  ].join("\n");
}

function detailsSection(verdicts: Verdict[], ctx: EmitContext): string {
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
  return [
    ...out.map((s) => `${s}\n`),
    "/** Each verdict's details type; undefined where the registry declares no details schema. */",
    `export interface DetailsByVerdict {\n${map.join("\n")}\n}`,
  ].join("\n");
}

function constructorSection(verdicts: Verdict[], ctx: EmitContext): string {
  return verdicts
    .map((v) => {
      const names = ctx.names.get(v.code) as VerdictNames;
      const code = tsString(v.code);
      const doc = verdictDoc(v, ctx, "", `The envelope for ${JSON.stringify(v.code)}.`);
      if (v.details === undefined) {
        return `${doc}export function ${names.constructor}(input: EnvelopeInput = {}): FailureEnvelopeOf<${code}> {\n  return makeEnvelope(${code}, input, undefined);\n}\n`;
      }
      return `${doc}export function ${names.constructor}(input: EnvelopeInput & { readonly details: ${names.detailsType} }): FailureEnvelopeOf<${code}> {\n  return makeEnvelope(${code}, input, input.details);\n}\n`;
    })
    .join("\n");
}
