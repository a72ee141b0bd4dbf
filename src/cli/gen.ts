/** `failbook gen ts|py|jsonschema|alerts`: write, or check, the bindings adapters import, the registry's JSON Schema, and Prometheus rules for the dispatcher's metrics. */
import { existsSync, statSync } from "node:fs";
import { basename, isAbsolute, join, relative, resolve, sep } from "node:path";
import { UsageError } from "failbook-runtime/model/errors.js";
import type { Finding } from "failbook-runtime/model/finding.js";
import { findConfig } from "../load/config.js";
import { moduleOutput } from "../load/module-kind.js";
import { findingAt } from "../load/finding.js";
import type { Project } from "../load/project.js";
import { compareManifests, readManifest, type Manifest, type Staleness } from "../codegen/manifest.js";
import { CodegenError, generateTypeScript } from "../codegen/typescript.js";
import { generatePython } from "../codegen/python.js";
import { generateJsonSchema } from "../codegen/jsonschema.js";
import { generateAlerts, REFUSED_SHARE } from "../codegen/alerts.js";
import type { Redactor } from "failbook-runtime/engine/redact.js";
import { decodeUtf8, FileRefused, readBytesIfExists, writeFileAtomic } from "../util/fs.js";
import { plural } from "../util/text.js";
import { type CommandRegistrar, findingsText, type Globals, loadFor, refusesSecrets } from "./command.js";
import type { Io } from "./io.js";

interface GenFlags {
  out?: string;
  check?: boolean;
}

/** What one `gen` subcommand writes. */
interface Generated {
  text: string;
  /** What the file was made from (its last line), when the format has comments. */
  manifest?: Manifest;
  /** e.g. "12 verdicts, 18 error kinds". */
  summary: string;
  /** A JavaScript module's declarations, and the file they go to beside it. */
  declarations?: { path: string; text: string };
}

interface Target {
  name: "ts" | "py" | "jsonschema" | "alerts";
  /** What is generated, in messages. */
  noun: string;
  /** The line-comment token the manifest line starts with; none for JSON. */
  comment?: string;
  /** The example output path in messages, and the file name suggested in a directory. */
  example: string;
  fileName: string;
  generate(project: Project, command: string, redact: Redactor, out: string, shown: string): Generated;
}

const counts = (g: { verdicts: string[]; errorKinds: string[] }) => `${plural(g.verdicts.length, "verdict")}, ${plural(g.errorKinds.length, "error kind")}`;

const TARGETS: Record<Target["name"], Target> = {
  ts: {
    name: "ts",
    noun: "bindings",
    comment: "//",
    example: "src/generated/failbook.ts",
    fileName: "failbook.generated.ts",
    generate: (project, command, redact, out, shown) => {
      const { module, declarations } = moduleOutput(out, shown);
      const g = generateTypeScript(project, { command, redact, module });
      const beside = declarations === undefined || g.declarations === undefined ? {} : { declarations: { path: declarations, text: g.declarations } };
      return { text: g.text, manifest: g.manifest, summary: counts(g), ...beside };
    },
  },
  py: {
    name: "py",
    noun: "the Python module",
    comment: "#",
    example: "adapters/failbook_generated.py",
    fileName: "failbook_generated.py",
    generate: (project, command, redact) => {
      const g = generatePython(project, { command, redact });
      return { text: g.text, manifest: g.manifest, summary: counts(g) };
    },
  },
  jsonschema: {
    name: "jsonschema",
    noun: "the JSON Schema",
    example: "schemas/failbook.schema.json",
    fileName: "failbook.schema.json",
    generate: (project, command, redact) => {
      const g = generateJsonSchema(project, { command, redact });
      return { text: g.text, summary: counts(g) };
    },
  },
  alerts: {
    name: "alerts",
    noun: "the Prometheus rules",
    example: "prometheus/failbook.rules.yml",
    fileName: "failbook.rules.yml",
    generate: (project, command, redact) => generateAlerts(project, { command, redact }),
  },
};

const HELP = `
The module is self-contained (no runtime import of failbook) and compiles under tsc --strict.
It exports:
  VERDICTS, type FailureVerdict        every active and deprecated verdict (a closed union)
  RESERVED_VERDICTS, type ReservedVerdict   reserved codes, kept apart
  FALLBACK_VERDICT, REGISTRY           the fallback verdict; the registry's name and revision
  PROJECT                              the validated registry and playbook as plain data, for
                                       failbook-runtime's createDispatcher({ project: PROJECT })
  FAILURE_CLASSES, type FailureClass   the registry's classes
  ERROR_KINDS, type ErrorKind          every adapter error kind the match rules recognise
  ERROR_FIELDS, type ErrorFieldName, type ErrorFields   the declared error_fields and their types
  type AdapterError, AdapterErrorLike  what an adapter reports (kind: ErrorKind, or any string)
  type SideEffectState, type ToolCall  the error's side-effect state; the call classify is given
  VERDICT_INFO, type VerdictInfo, type VerdictFacts   per verdict: class, retryable, side effect,
                                       boundary, status, summary...
  PLAYBOOK, type CompensationAction    the playbook's action per verdict (a discriminated union),
    type ActionName, ActionOf, BackoffFormula, Jitter
  type PlaybookPolicies                the playbook's shared policies, as PROJECT.playbook holds them:
    type CircuitBreakerPolicy, RetryBudgetPolicy, RetryThrottlingPolicy, HedgingPolicy,
    type RateLimitPolicy, RateLimitDialect, RateLimitHeaders, ToolDeclaration, ToolGlobs
  MATCH_RULES, classify(error, call?)  the registry's classifier (first matching rule in file order
                                       wins), with the types of its tables: ClassifierRule,
                                       ClassifierInput, ClassifierIndex, RuleConditions, FieldValue,
                                       CompiledRule, CompiledConditions, CompiledGlob, Bucket,
                                       BucketField, StringBuckets, HintSource, HintParse, HintValue, HintForm
  EXAMPLES, type VerdictExample        the registry's examples as a test table: { verdict, tool?, error }
  <Code>Details, DetailsByVerdict, DetailsOf   a details type per verdict that declares a details schema
  <code>Envelope(input)                one constructor per verdict: the only way to build a FailureEnvelope
  envelopeFor(verdict, input)          the envelope of a verdict known only at run time
  type FailureEnvelope, FailureEnvelopeOf, EnvelopeInput, EnvelopeInputFor
  toMcpToolResult(envelope), type McpToolResult   an envelope as an MCP tool's error result
  isFailureVerdict, isErrorKind        type guards
  PROJECT                              the registry and playbook as data: failbook-runtime's
                                       createDispatcher({ project: PROJECT }) runs on it (no YAML)
Deprecated verdicts carry @deprecated naming their replacement. Identifiers come from codes
(net.timeout -> NetTimeoutDetails, netTimeoutEnvelope); codes that would share one get a hash suffix.

The output file is --out, else the path failbook.yaml gives under gen: ts: (relative to
failbook.yaml):
  gen:
    ts: src/generated/failbook.ts

The file's name says what is written: .ts, .mts, .cts TypeScript; .js JavaScript for its
package's module type (the "type" of the nearest package.json above it, CommonJS when there
is none), .mjs an ES module, .cjs CommonJS. JavaScript comes with its declarations beside it
(failbook.d.ts, .d.mts, .d.cts), so it needs no TypeScript to run or to type-check against.

The output is deterministic (no timestamps) and is rewritten only when it changes.

Exit status: 0 written or up to date; 1 --check found the file stale or missing, a string
of the project holds a secret (secret-in-project: one located line each, its family, never
its value; nothing is written), or the registry/playbook cannot make a module (the problems
are listed); 2 no output file given, a missing file, a bad flag.

Examples:
  failbook gen ts
  failbook gen ts --out src/failbook.generated.ts
  failbook gen ts --out lib/failbook.js     # JavaScript, and lib/failbook.d.ts
  failbook gen ts --check        # in CI: fails, naming the changed verdicts, when the file is stale`;

const PY_HELP = `
The module is self-contained: Python 3.9+, standard library only, clean under pyright --strict.
It exports:
  FailureVerdict (a Literal), VERDICTS   every active and deprecated verdict
  ReservedVerdict, RESERVED_VERDICTS     reserved codes, kept apart
  ErrorKind, ERROR_KINDS                 every adapter error kind the match rules recognise
  ERROR_FIELDS, AdapterErrorFields       the registry's declared error_fields and their types
  AdapterError, AdapterErrorLike         what an adapter reports (TypedDicts)
  VERDICT_INFO, VerdictInfo              per verdict: class, retryable, side effect, status, summary...
  PLAYBOOK, CompensationAction           the playbook's action per verdict (TypedDicts by action)
  POLICIES, PlaybookPolicies             the playbook's shared policies: CircuitBreakerPolicy,
    RateLimitPolicy (RateLimitDialect, RateLimitHeaders), RetryBudgetPolicy,
    RetryThrottlingPolicy, HedgingPolicy, ToolDeclaration, ToolGlobs
  classify(error, tool=None)             the same verdict as failbook classify, from the same
                                         compiled tables (first matching rule in file order wins)
  make_envelope, <code>_envelope         an envelope per verdict (FailureEnvelope)
  Envelope, RecoveryPacket               what failbook's dispatcher shows agents and people
  is_failure_verdict, is_error_kind
Names come from codes (net.timeout -> net_timeout_envelope); codes that would share one get a
hash suffix. message_matches patterns are translated to Python's re so that they decide as
JavaScript does; one that cannot be translated exactly (a backreference, a look-behind of
varying width, \\p{...}, a non-ASCII letter under the i flag) stops generation, at its position.
The envelope constructors redact the message, trace_id and strings in details as failbook
does: its secret families (translated from failbook's own patterns), then the config's
redact: patterns; one that re cannot run exactly stops generation, at its position.

The output file is --out, else the path failbook.yaml gives under gen: py: (relative to
failbook.yaml):
  gen:
    py: adapters/failbook_generated.py

Exit status: 0 written or up to date; 1 --check found the file stale or missing, a string
of the project holds a secret (secret-in-project: one located line each, its family, never
its value; nothing is written), or the registry/playbook cannot make a module (the problems
are listed); 2 no output file given, a missing file, a bad flag.

Examples:
  failbook gen py --out adapters/failbook_generated.py
  failbook gen py --check        # in CI: fails, naming the changed verdicts, when the file is stale`;

const JSONSCHEMA_HELP = `
One JSON Schema (draft 2020-12) with these $defs: FailureVerdict, ReservedVerdict, FailureClass
and ErrorKind (enums of this registry's codes, classes and kinds), SideEffectState,
OutcomeKind, AdapterErrorFields (the declared error_fields), AdapterError, EnvelopeError,
Envelope and RecoveryPacket (what failbook's dispatcher returns: simulate --format json shows
them). Refer to one, e.g. "failbook.schema.json#/$defs/Envelope" as an MCP tool's outputSchema.

The output file is --out, else the path failbook.yaml gives under gen: jsonschema: (relative
to failbook.yaml).

Exit status: 0 written or up to date; 1 --check found the file stale or missing, a string
of the project holds a secret (secret-in-project: one located line each, nothing is
written), or the registry/playbook is invalid; 2 no output file given, a bad flag.

Examples:
  failbook gen jsonschema --out schemas/failbook.schema.json
  failbook gen jsonschema --check`;

const ALERTS_HELP = `
Prometheus recording and alerting rules for the metrics the dispatcher records through
OpenTelemetry (docs/telemetry.md), under the names the OpenTelemetry Prometheus exporter
writes (failbook_attempts_total, failbook_breaker_state, ...). From the playbook:
  FailbookBreakerOpen       per breaker: not closed for longer than twice its longest break
                            (max_break_ms, else break_ms)
  FailbookRetriesRefused    with a retry budget or retry throttling: more than ${REFUSED_SHARE * 100} % of retries
                            refused by them, for 5 minutes
  FailbookFallbackVerdict   attempts failing with the registry's fallback verdict, for 15 minutes
  FailbookEscalations       per queue the playbook escalates to: a dispatch landed there
  FailbookFleetStoreUnavailable  with a scope: fleet policy: a process not synced with the
                            fleet's store for twice lease_ms (at least a minute)
and recording rules failbook:attempts:rate5m, failbook:retries_refused:rate5m,
failbook:dispatches:rate5m, failbook:escalations:rate5m. Check them with
promtool check rules FILE; load them with rule_files: in prometheus.yml.

Without --out the rules go to standard output.

Exit status: 0 written, printed or up to date; 1 --check found the file stale or missing, a
string of the project holds a secret (nothing is written), or the registry/playbook is
invalid; 2 a bad flag.

Examples:
  failbook gen alerts > failbook.rules.yml
  failbook gen alerts --out prometheus/failbook.rules.yml
  failbook gen alerts --out prometheus/failbook.rules.yml --check`;

export const registerGen: CommandRegistrar = (program, run) => {
  const gen = program
    .command("gen")
    .description("generate code from the registry and playbook: ts, py, jsonschema, alerts (see: failbook gen ts --help)");
  gen
    .command("ts")
    .description("write the typed TypeScript bindings adapters import: verdicts, error kinds, classify, playbook, envelopes")
    .option("--out <file>", "where to write the module (default: the path under gen: { ts: ... } in failbook.yaml)")
    .option("--check", "write nothing; exit 1, naming what changed, when the file is missing or stale")
    .addHelpText("after", HELP)
    .action(run((io, globals, flags: GenFlags) => generate(io, globals, flags, TARGETS.ts)));
  gen
    .command("py")
    .description("write a typed, self-contained Python module: verdicts, error kinds, classify, playbook, envelopes")
    .option("--out <file>", "where to write the module (default: the path under gen: { py: ... } in failbook.yaml)")
    .option("--check", "write nothing; exit 1, naming what changed, when the file is missing or stale")
    .addHelpText("after", PY_HELP)
    .action(run((io, globals, flags: GenFlags) => generate(io, globals, flags, TARGETS.py)));
  gen
    .command("jsonschema")
    .description("write a JSON Schema (2020-12) of this registry's adapter error, envelope and recovery packet")
    .option("--out <file>", "where to write the schema (default: the path under gen: { jsonschema: ... } in failbook.yaml)")
    .option("--check", "write nothing; exit 1 when the file is missing or stale")
    .addHelpText("after", JSONSCHEMA_HELP)
    .action(run((io, globals, flags: GenFlags) => generate(io, globals, flags, TARGETS.jsonschema)));
  gen
    .command("alerts")
    .description("write Prometheus alerting and recording rules from the playbook, for the dispatcher's OpenTelemetry metrics")
    .option("--out <file>", "where to write the rules (default: standard output)")
    .option("--check", "write nothing; exit 1 when the file is missing or stale")
    .addHelpText("after", ALERTS_HELP)
    .action(run((io, globals, flags: GenFlags) => generate(io, globals, flags, TARGETS.alerts)));
};

async function generate(io: Io, globals: Globals, flags: GenFlags, target: Target): Promise<number> {
  const cwd = process.cwd();
  // Bindings come from the registry and the playbook: the fixtures are not read.
  const { project, findings } = loadFor(io, globals, { fixturePaths: [] });
  // Rules without --out go to standard output (there is no gen: entry for them in failbook.yaml).
  const toStdout = target.name === "alerts" && flags.out === undefined && flags.check !== true;
  const out = toStdout ? "-" : outputPath(project, flags.out, cwd, target);
  // An --out is echoed as the user typed it; the config's path, relative to where they are.
  const shown = toStdout ? "standard output" : (flags.out ?? display(out, cwd));
  const userCommand = commandLine(["failbook", ...(globals.config ? ["--config", globals.config] : []), "gen", target.name, ...(flags.out ? ["--out", flags.out] : [])]);

  if (!project.registry || !project.playbook) {
    return problems(io, project, findings.filter((f) => f.severity === "error"), target, "the registry or playbook is invalid", true);
  }
  if (refusesSecrets(io, project, [project.configDoc, project.registry.doc, project.playbook.doc], shown)) return 1;
  let generated: Generated;
  try {
    generated = target.generate(project, bannerCommand(project, out, target), (t) => io.redact(t), out, shown);
  } catch (e) {
    if (!(e instanceof CodegenError)) throw e;
    const located = e.problems.map((p) =>
      findingAt({ rule: p.rule, severity: "error", message: p.message, doc: p.document === "config" ? project.configDoc : (p.document === "registry" ? project.registry : project.playbook)!.doc, path: p.path }),
    );
    return problems(io, project, located, target, "the registry and playbook cannot make a valid module", e.problems.every((p) => p.generatorOnly !== true));
  }

  if (toStdout) {
    io.out(generated.text);
    return 0;
  }
  const files = [{ path: out, shown, text: generated.text }];
  const beside = generated.declarations;
  if (beside) files.push({ path: beside.path, shown: shown.slice(0, shown.length - basename(out).length) + basename(beside.path), text: beside.text });
  const outputs = files.map(onDisk);
  if (flags.check) return Math.max(...outputs.map((o) => check(io, o, generated, target, userCommand)));
  for (const o of outputs) write(io, o, generated, target);
  return 0;
}

/** One file gen writes: what it is to hold, and what it holds now. */
interface Output {
  path: string;
  shown: string;
  text: string;
  existing: string | undefined;
  /** It holds the text already (line endings aside). */
  current: boolean;
}

function onDisk(file: { path: string; shown: string; text: string }): Output {
  // Most runs find the file as it would be written (CI's --check, a rebuild): compared as
  // bytes, a module of megabytes need not be decoded. Otherwise it is read as text (its line
  // endings may be CRLF, and its manifest says what changed).
  const bytes = readBytesIfExists(file.path, { shown: file.shown });
  const same = bytes !== undefined && Buffer.from(file.text, "utf8").equals(bytes);
  const existing = bytes === undefined ? undefined : same ? file.text : decodeUtf8(bytes, file.shown);
  const current = same || (existing !== undefined && existing.replace(/\r\n/g, "\n") === file.text);
  return { ...file, existing, current };
}

function check(io: Io, { shown, existing, current }: Output, generated: Generated, target: Target, userCommand: string): number {
  if (existing === undefined) {
    io.out(`${shown} does not exist; generate it with: ${userCommand}\n`);
    return 1;
  }
  if (current) {
    io.out(`${shown} is up to date\n`);
    return 0;
  }
  io.out(`${shown} is stale:\n${describeStaleness(existing, generated, target).map((l) => `  ${l}\n`).join("")}regenerate it with: ${userCommand}\n`);
  return 1;
}

/** Write atomically, and only when the content changes. */
function write(io: Io, { path, shown, text, existing, current }: Output, generated: Generated, target: Target): void {
  if (current) {
    io.out(`${shown} is up to date (${generated.summary})\n`);
    return;
  }
  try {
    writeFileAtomic(path, text, { shown, current: existing });
  } catch (e) {
    if (e instanceof FileRefused) throw e; // a file failbook will not replace: its own located line
    throw new UsageError(`cannot write ${shown}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}; pass a writable file path with --out`);
  }
  const before = existing === undefined || target.comment === undefined ? undefined : readManifest(existing, target.comment);
  const changes = before && generated.manifest ? changeLines(compareManifests(before, generated.manifest)) : [];
  io.out(`wrote ${shown} (${generated.summary})\n${changes.map((l) => `  ${l}\n`).join("")}`);
}

/** `lintShows`: lint reports every one of them (not so the generators' own, CodegenProblem.generatorOnly). */
function problems(io: Io, project: Project, findings: Finding[], target: Target, what: string, lintShows: boolean): number {
  io.out(findingsText(io, findings, project.sources));
  io.out(`cannot generate ${target.noun}: ${what}; fix the problems above${lintShows ? " (failbook lint shows them all)" : ""}\n`);
  return 1;
}

function outputPath(project: Project, flag: string | undefined, cwd: string, target: Target): string {
  if (flag !== undefined) {
    if (flag.trim() === "") throw new UsageError("--out needs a file path");
    const path = resolve(cwd, flag);
    if (isDirectory(path)) throw new UsageError(`--out ${flag} is a directory; name the file to write, e.g. --out ${posix(join(flag, target.fileName))}`);
    return path;
  }
  const configured = configuredOut(project, target);
  if (configured) {
    const path = resolve(project.root, configured);
    if (isDirectory(path)) {
      const at = project.configDoc.locate(["gen", target.name]);
      throw new UsageError(`${at.file}:${at.line}:${at.column}: gen: { ${target.name}: ${configured} } names a directory; name the file to write`);
    }
    return path;
  }
  const where = project.configDoc.file;
  if (target.name === "alerts") throw new UsageError("gen alerts --check needs the file to check: pass --out FILE");
  throw new UsageError(`no output file: pass --out FILE, or set gen: { ${target.name}: ${target.example} } in ${where}`);
}

/** What differs between a file on disk and what would be generated now, one line each. */
export function describeStaleness(existing: string, generated: Generated, target: Target): string[] {
  if (target.comment === undefined || generated.manifest === undefined) return [`the file differs from what failbook gen ${target.name} writes now (the registry changed, or the file was edited)`];
  const before = readManifest(existing, target.comment);
  if (!before) return [`the file has no failbook manifest: it was not written by failbook gen ${target.name}, or was edited by hand`];
  const lines = changeLines(compareManifests(before, generated.manifest));
  if (lines.length === 0) return ["the registry and playbook are unchanged, but the file differs from what this failbook generates (edited by hand, or made by another version)"];
  return lines;
}

function changeLines(s: Staleness): string[] {
  return [
    s.added.length > 0 ? `verdicts added: ${s.added.join(", ")}` : "",
    s.removed.length > 0 ? `verdicts removed: ${s.removed.join(", ")}` : "",
    s.changed.length > 0 ? `verdicts changed: ${s.changed.join(", ")}` : "",
    s.settings.length > 0 ? `settings changed: ${s.settings.join(", ")}` : "",
  ].filter((l) => l !== "");
}

/** The command that regenerates the file, as run from the config's directory (stable wherever it is run). */
function bannerCommand(project: Project, out: string, target: Target): string {
  const args = ["failbook"];
  let discovered: string | undefined;
  try {
    discovered = findConfig(undefined, project.root);
  } catch {
    discovered = undefined;
  }
  if (discovered !== project.configFile) args.push("--config", basename(project.configFile));
  args.push("gen", target.name);
  const configured = configuredOut(project, target);
  if (out !== "-" && (!configured || resolve(project.root, configured) !== out)) args.push("--out", posix(relative(project.root, out)));
  return commandLine(args);
}

/** The output path failbook.yaml's `gen:` gives a target (Prometheus rules have none). */
const configuredOut = (project: Project, target: Target): string | undefined => (target.name === "alerts" ? undefined : project.config.gen?.[target.name]);

const posix = (p: string) => p.split(sep).join("/");
const isDirectory = (p: string) => existsSync(p) && statSync(p).isDirectory();

function display(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel === "" || isAbsolute(rel) || rel.split(sep).filter((s) => s === "..").length > 2 ? path : posix(rel);
}

function commandLine(args: string[]): string {
  return args.map((a) => (/^[A-Za-z0-9_./:@%+=,-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(" ");
}
