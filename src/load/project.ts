/**
 * The project: the config, the registry, the playbook and the fixtures, each read once,
 * located and validated. Nothing downstream reads a file or parses YAML again.
 */
import { dirname, join, resolve } from "node:path";
import type { Config } from "failbook-runtime/model/config.js";
import { UsageError } from "failbook-runtime/model/errors.js";
import type { Finding } from "failbook-runtime/model/finding.js";
import type { Fixture } from "failbook-runtime/model/fixture.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import type { Registry } from "failbook-runtime/model/registry.js";
import type { FindingFix, PathSegment } from "failbook-runtime/model/finding.js";
import { compileUserPattern, UnsafePattern } from "./pattern.js";
import { DEFAULT_MAX_FILE_MB, FileRefused } from "../util/fs.js";
import { findConfig } from "./config.js";
import { diskReader, type FileReader } from "./files.js";
import { ConfigPaths } from "./paths.js";
import { findingAt, findingAtPosition } from "./finding.js";
import { failedEntries, withoutEntries, type PartialKind } from "./partial.js";
import { messagePatternProblems } from "./regex-safety.js";
import { validateDocument, verdictsValid, type DocumentKind } from "./schema.js";
import { FLEET_DEFAULTS } from "failbook-runtime/engine/fleet/sync.js";
import { editedYaml, parseYaml, type ParseOptions, type YamlDocument, type YamlSource } from "./yaml.js";
import { clip } from "../util/text.js";

export interface Loaded<T> {
  value: T;
  doc: YamlDocument;
}

export interface Project {
  /** Absolute directory of the config file: every path in the config is relative to it. */
  root: string;
  configFile: string;
  config: Config;
  configDoc: YamlDocument;
  /** Absent when the file could not be parsed or failed its schema. */
  registry?: Loaded<Registry>;
  playbook?: Loaded<Playbook>;
  /** Fixtures that passed their schema, in file order. */
  fixtures: Loaded<Fixture>[];
  /**
   * When the registry or the playbook failed its schema in some entries only: both as lint's
   * rules check them, without those entries (load/partial.ts), and the codes left out.
   */
  checkable?: { registry: Loaded<Registry>; playbook: Loaded<Playbook>; codes: ReadonlySet<string> };
  /** Every file read, by the path shown to the user, for source excerpts. */
  sources: Map<string, YamlSource>;
  /** Absolute paths of the registry and playbook files. */
  files: { registry: string; playbook: string; fixtures: string[] };
  /** Names of the files in the config's `adr_dir`; absent when it is unset or not a directory. */
  adrFiles?: string[];
}

export interface LoadResult {
  project: Project;
  /** yaml-syntax and schema findings. */
  findings: Finding[];
}

export interface LoadOptions {
  config?: string;
  cwd?: string;
  /** Fixture files or directories to load instead of the config's (simulate PATHS). */
  fixturePaths?: string[];
  /** Files parsed and checked by an earlier load, reused while their text is the same (failbook lsp). */
  cache?: LoadCache;
  /**
   * Many findings will lie inside the registry's verdicts (lint): its parse keeps where every
   * node starts, so they are located without parsing a verdict again (see ParseOptions.tape).
   */
  locateDeep?: boolean;
}

/** A file parsed and checked against its schema. */
interface CheckedFile {
  kind: DocumentKind;
  source: YamlSource;
  /** The documents that passed their schema (a config, registry or playbook file has at most one). */
  documents: YamlDocument[];
  /** A registry's or playbook's one document that failed its schema, with where each problem is. */
  failed?: { doc: YamlDocument; paths: PathSegment[][] };
  findings: Finding[];
}

/**
 * Parsed and checked files by absolute path, each reused while its text is unchanged: an
 * editor loads the project again after every edit, and most of its files have not changed.
 */
export class LoadCache {
  private readonly files = new Map<string, CheckedFile>();

  lookup(absolute: string, kind: DocumentKind, shown: string, text: string): CheckedFile | undefined {
    const known = this.files.get(absolute);
    return known && known.kind === kind && known.source.file === shown && known.source.text === text ? known : undefined;
  }

  /** The file as last checked, whatever its text then (its next text may be parsed as an edit of it). */
  previous(absolute: string, kind: DocumentKind, shown: string): CheckedFile | undefined {
    const known = this.files.get(absolute);
    return known && known.kind === kind && known.source.file === shown ? known : undefined;
  }

  store(absolute: string, checked: CheckedFile): void {
    this.files.set(absolute, checked);
  }
}

const KIND_NAMES: Record<DocumentKind, string> = { config: "Config", registry: "Registry", playbook: "Playbook", fixture: "Fixture" };

export function loadProject(options: LoadOptions = {}): LoadResult {
  const cwd = options.cwd ?? process.cwd();
  return loadProjectFrom(diskReader(cwd), findConfig(options.config, cwd), options);
}

/**
 * Load the project whose config is `configFile` (an absolute path), reading every file
 * through `files`: the working tree, or another source such as a git revision.
 */
export function loadProjectFrom(files: FileReader, configFile: string, options: Omit<LoadOptions, "config"> = {}): LoadResult {
  const cwd = options.cwd ?? process.cwd();
  const root = dirname(configFile);
  const reader = new SourceReader(files, options.cache, options.locateDeep === true);
  const findings: Finding[] = [];

  const configDoc = reader.single(configFile, "config", "config file", findings);
  if (!configDoc) throw new InvalidProject(findings, reader);
  const config = configDoc.value as Config;
  const paths = new ConfigPaths(files, configFile, configDoc);
  reader.maxBytes = (config.max_file_mb ?? DEFAULT_MAX_FILE_MB) * 1024 * 1024;
  checkPatterns(config, configDoc, findings);

  // Every path the config names stays inside the repository (SPEC 16), checked before any is read.
  const registryFile = paths.resolve(config.registry, ["registry"], "registry");
  const playbookFile = paths.resolve(config.playbook, ["playbook"], "playbook");
  const fixtureEntries = configFixtures(config).map(({ value, key }) => ({ file: paths.resolve(value, key, "fixtures path"), key }));
  const adrDir = config.adr_dir === undefined ? undefined : paths.resolve(config.adr_dir, ["adr_dir"], "adr_dir");
  for (const target of ["ts", "py", "jsonschema"] as const) {
    const out = config.gen?.[target];
    if (out !== undefined) paths.resolve(out, ["gen", target], `gen.${target}`);
  }

  if (!files.kind(registryFile)) throw new UsageError(`registry file not found: ${reader.display(registryFile)} (named at ${paths.where(["registry"])})`);
  if (!files.kind(playbookFile)) throw new UsageError(`playbook file not found: ${reader.display(playbookFile)} (named at ${paths.where(["playbook"])})`);

  const registryChecked = reader.checked(registryFile, "registry", "registry", paths.where(["registry"]));
  findings.push(...registryChecked.findings);
  const playbookChecked = reader.checked(playbookFile, "playbook", "playbook", paths.where(["playbook"]));
  findings.push(...playbookChecked.findings);
  const registryDoc = registryChecked.documents[0];
  const playbookDoc = playbookChecked.documents[0];
  const checkable = checkableDocuments(registryChecked, playbookChecked);

  // Paths on the command line are the user's own choice; what a walk finds inside them is not.
  const fixtureFiles = options.fixturePaths
    ? expandFixturePaths(options.fixturePaths.map((p) => ({ file: resolve(cwd, p) })), reader, paths)
    : expandFixturePaths(fixtureEntries, reader, paths);
  const fixtures: Loaded<Fixture>[] = [];
  for (const { file, key } of fixtureFiles) {
    const checked = reader.checked(file, "fixture", "fixture file", key && paths.where(key));
    findings.push(...checked.findings);
    for (const doc of checked.documents) fixtures.push({ value: doc.value as Fixture, doc });
  }

  const project: Project = {
    root,
    configFile,
    config,
    configDoc,
    registry: registryDoc ? { value: registryDoc.value as Registry, doc: registryDoc } : undefined,
    playbook: playbookDoc ? { value: playbookDoc.value as Playbook, doc: playbookDoc } : undefined,
    fixtures,
    ...(checkable ? { checkable } : {}),
    sources: reader.sources,
    files: { registry: registryFile, playbook: playbookFile, fixtures: fixtureFiles.map((f) => f.file) },
    ...adrListing(files, adrDir),
  };
  return { project, findings };
}

/**
 * The user's regular expressions must compile for the linear engine that runs them
 * (load/pattern.ts). One that cannot is a schema finding at its position: it never runs.
 */
function checkPatterns(config: Config, configDoc: YamlDocument, findings: Finding[]): void {
  const check = (source: string, flags: string, key: PathSegment[], what: string) => {
    try {
      compileUserPattern(source, flags);
    } catch (e) {
      if (!(e instanceof UnsafePattern)) throw e;
      findings.push(findingAt({ rule: "schema", severity: "error", message: `${what} ${e.message}`, doc: configDoc, path: key }));
    }
  };
  if (config.code_pattern !== undefined) check(config.code_pattern, "u", ["code_pattern"], "code_pattern");
  for (const [i, pattern] of (config.redact ?? []).entries()) check(pattern, "gu", ["redact", i], "redact pattern");
}

/** The config's fixture paths, each with its position in the config (`fixtures` may be one path or a list). */
export function configFixtures(config: Config): { value: string; key: PathSegment[] }[] {
  const fixtures = config.fixtures ?? [];
  return typeof fixtures === "string" ? [{ value: fixtures, key: ["fixtures"] }] : fixtures.map((value, i) => ({ value, key: ["fixtures", i] }));
}

/** The ADR files that `adr:` references resolve against (the adr-unresolved rule). */
function adrListing(files: FileReader, dir: string | undefined): Pick<Project, "adrFiles"> {
  if (dir === undefined || files.kind(dir) !== "directory") return {};
  try {
    return { adrFiles: files.list(dir).filter((e) => !e.directory).map((e) => e.name).sort() };
  } catch {
    return {}; // unreadable: adr-unresolved reports adr_dir itself
  }
}

/** The config itself is unusable: there is nothing more to load. */
export class InvalidProject extends Error {
  constructor(
    readonly findings: Finding[],
    private readonly reader: SourceReader,
  ) {
    super("the config file is invalid");
  }
  get sources(): Map<string, YamlSource> {
    return this.reader.sources;
  }
}

class SourceReader {
  readonly sources = new Map<string, YamlSource>();
  /** Set from the config's max_file_mb once the config is read. */
  maxBytes = DEFAULT_MAX_FILE_MB * 1024 * 1024;
  constructor(
    readonly files: FileReader,
    private readonly cache?: LoadCache,
    private readonly locateDeep = false,
  ) {}

  display(absolute: string): string {
    return this.files.display(absolute);
  }

  /** The one document of a config, registry or playbook file, when it passed its schema; findings for anything else. */
  single(absolute: string, kind: DocumentKind, what: string, findings: Finding[], where?: string): YamlDocument | undefined {
    const checked = this.checked(absolute, kind, what, where);
    findings.push(...checked.findings);
    return checked.documents[0];
  }

  /** Read, parse and check one file, or take it from the cache when its text is unchanged. */
  checked(absolute: string, kind: DocumentKind, what: string, where?: string): CheckedFile {
    const text = this.readText(absolute, what, where);
    const shown = this.display(absolute);
    let checked = this.cache?.lookup(absolute, kind, shown, text);
    if (!checked) {
      const options = parseOptions(kind, this.locateDeep);
      // An editor's edit of a file parsed without a tape (failbook lsp): only what it touched is parsed again.
      checked = (kind === "fixture" || options.tape === true ? undefined : this.edited(absolute, kind, shown, text)) ?? this.parsed(kind, parseYaml(shown, text, options));
      this.cache?.store(absolute, checked);
    }
    this.sources.set(checked.source.file, checked.source);
    return checked;
  }

  private parsed(kind: DocumentKind, source: YamlSource): CheckedFile {
    const findings: Finding[] = [];
    if (kind === "fixture") return { kind, source, documents: fixtureDocuments(source, findings), findings };
    const one = singleDocument(source, kind, findings);
    if (one === undefined || one.paths.length === 0) return { kind, source, documents: one ? [one.doc] : [], findings };
    return { kind, source, documents: [], findings, failed: one };
  }

  /**
   * An editor's edit inside one stretch of the registry's verdicts (failbook lsp): only the
   * verdicts it touched are parsed again (editedYaml), and, when the last text passed its
   * schema, only they are checked against it (the schema constrains each verdict alone, and
   * the rest of the file is as it was). Undefined when the edit is not of that kind.
   */
  private edited(absolute: string, kind: DocumentKind, shown: string, text: string): CheckedFile | undefined {
    const previous = this.cache?.previous(absolute, kind, shown);
    const edit = previous && editedYaml(previous.source, text);
    if (!previous || !edit) return undefined;
    const doc = edit.source.documents[0];
    const verdicts = edit.key === "verdicts" ? (doc.value as { verdicts?: unknown }).verdicts : undefined;
    if (kind === "registry" && previous.findings.length === 0 && previous.documents.length === 1 && Array.isArray(verdicts)) {
      const touched = verdicts.slice(edit.from, edit.to);
      if (verdictsValid(touched) && messagePatternProblems({ verdicts: touched }).length === 0) return { kind, source: edit.source, documents: [doc], findings: [] };
    }
    return this.parsed(kind, edit.source);
  }

  /** Read one file's text; `where` is the config position that named it, for messages. */
  private readText(absolute: string, what: string, where?: string): string {
    const at = where ? `${where}: ` : "";
    if (this.files.kind(absolute) === "directory") throw new UsageError(`${at}${what} is a directory, not a file: ${this.display(absolute)}`);
    let text: string;
    try {
      text = this.files.readText(absolute, this.maxBytes);
    } catch (e) {
      // A UTF-8 error is located in the file itself; other refusals point at the config entry.
      if (e instanceof FileRefused) throw new FileRefused(e.reason === "not-utf8" ? e.message : `${at}${what} ${e.message}`, e.reason);
      throw new UsageError(`${at}cannot read ${what} ${this.display(absolute)}: ${(e as Error).message}`);
    }
    return text;
  }
}

/**
 * How a file of `kind` is parsed (see ParseOptions). Fixtures are many small documents: each
 * is recorded as a whole, and where the nodes in it start is kept on the tape (simulate places
 * each fixture by its name; a frame for every key and value of 10,000 fixtures was 11 MB of
 * lint's heap). Lint, whose many findings lie inside the registry's verdicts and the
 * playbook's actions, records their top level and keeps the tape below it (a frame for each
 * of 10,000 verdicts and of 10,000 actions and their codes made 3.5 MB more); other commands,
 * which locate little, record the verdicts and actions and parse one again when a path goes
 * into it.
 */
function parseOptions(kind: DocumentKind, locateDeep: boolean): ParseOptions {
  if (kind === "fixture") return { depth: 1, tape: true };
  return locateDeep && (kind === "registry" || kind === "playbook") ? { depth: 2, tape: true } : {};
}

/** The documents of a fixture file that passed their schema; findings for the others. */
function fixtureDocuments(source: YamlSource, findings: Finding[]): YamlDocument[] {
  if (source.error) {
    findings.push(findingAtPosition("yaml-syntax", "error", source.error.message, { file: source.file, line: source.error.line, column: source.error.column }));
    return [];
  }
  // An empty document between `---` is no fixture.
  return source.documents.filter((doc) => doc.value !== null && doc.value !== undefined && checkDocument(doc, "fixture", findings)?.length === 0);
}

/**
 * The one document of a file that must hold exactly one of `kind`, with where its schema
 * problems are (none: it passed); findings for anything else.
 */
function singleDocument(source: YamlSource, kind: DocumentKind, findings: Finding[]): { doc: YamlDocument; paths: PathSegment[][] } | undefined {
  if (source.error) {
    findings.push(findingAtPosition("yaml-syntax", "error", source.error.message, { file: source.file, line: source.error.line, column: source.error.column }));
    return undefined;
  }
  const docs = source.documents.filter((d) => d.value !== null && d.value !== undefined);
  if (docs.length === 0) {
    findings.push(findingAtPosition("schema", "error", `the file is empty: expected a ${KIND_NAMES[kind]} document`, { file: source.file, line: 1, column: 1 }));
    return undefined;
  }
  if (docs.length > 1) {
    findings.push(findingAtPosition("schema", "error", `expected one ${KIND_NAMES[kind]} document, found ${docs.length}`, docs[1].locate([])));
    return undefined;
  }
  const paths = checkDocument(docs[0], kind, findings);
  return paths === undefined ? undefined : { doc: docs[0], paths };
}

/** Where the document's schema problems are (none: it passed), each a finding; undefined when it is no document of `kind` at all. */
function checkDocument(doc: YamlDocument, kind: DocumentKind, findings: Finding[]): PathSegment[][] | undefined {
  const value = doc.value;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const found = Array.isArray(value) ? "a list" : `a ${typeof value} (${clip(JSON.stringify(value) ?? String(value), 40)})`;
    findings.push(findingAt({ rule: "schema", severity: "error", message: `expected a ${KIND_NAMES[kind]} document (a mapping), found ${found}`, doc, path: [] }));
    return undefined;
  }
  const declared = (value as Record<string, unknown>).kind;
  if (kind !== "config" && typeof declared === "string" && declared !== KIND_NAMES[kind] && ["Registry", "Playbook", "Fixture"].includes(declared)) {
    findings.push(findingAt({ rule: "schema", severity: "error", message: `expected a ${KIND_NAMES[kind]} document here, found kind ${declared}`, doc, path: ["kind"] }));
    return undefined;
  }
  const problems = documentProblems(kind, value as Record<string, unknown>, doc);
  for (const p of problems) findings.push(findingAt({ rule: "schema", severity: "error", message: p.message, doc, path: p.path, target: p.target, fix: p.fix }));
  return problems.map((p) => p.path);
}

/** The schema's problems with a document of `kind`, and the checks beyond it (a retry's schedule, a registry's message patterns). */
function documentProblems(kind: DocumentKind, value: Record<string, unknown>, doc: YamlDocument): { message: string; path: PathSegment[]; target: "value" | "key"; fix?: FindingFix }[] {
  const problems: { message: string; path: PathSegment[]; target: "value" | "key"; fix?: FindingFix }[] = validateDocument(kind, doc);
  if (kind === "playbook") problems.push(...scheduleProblems(value), ...fleetProblems(value));
  if (kind === "registry" && problems.length === 0) for (const p of messagePatternProblems(value)) problems.push({ ...p, target: "value" });
  return problems;
}

/**
 * The registry and playbook as lint's rules check them when one failed its schema in some
 * entries only (load/partial.ts): both without those entries, when what is left passes.
 */
function checkableDocuments(registry: CheckedFile, playbook: CheckedFile): Project["checkable"] {
  if (registry.documents.length === 1 && playbook.documents.length === 1) return undefined;
  const sides = [registry, playbook].map((checked) => {
    const kind = checked.kind as PartialKind;
    if (checked.documents.length === 1) return { kind, doc: checked.documents[0], failed: { entries: [], codes: new Set<string>() }, valid: true };
    const failed = checked.failed && failedEntries(kind, checked.failed.doc.value as Record<string, unknown>, checked.failed.paths);
    return failed && checked.failed ? { kind, doc: checked.failed.doc, failed, valid: false } : undefined;
  });
  if (sides.some((s) => s === undefined)) return undefined;
  const codes = new Set(sides.flatMap((s) => [...s!.failed.codes]));
  const [r, p] = sides.map((s) => {
    const doc = withoutEntries(s!.kind, s!.doc, s!.failed.entries, codes);
    return s!.valid || documentProblems(s!.kind, doc.value as Record<string, unknown>, doc).length === 0 ? doc : undefined;
  });
  if (!r || !p) return undefined;
  return { registry: { value: r.value as Registry, doc: r }, playbook: { value: p.value as Playbook, doc: p }, codes };
}

/** A retry action needs exactly one delay schedule: a list or a formula. */
function scheduleProblems(playbook: Record<string, unknown>): { message: string; path: (string | number)[]; target: "value" | "key" }[] {
  const out: { message: string; path: (string | number)[]; target: "value" | "key" }[] = [];
  const verdicts = playbook.verdicts;
  if (verdicts === null || typeof verdicts !== "object") return out;
  // Key by key: entries() made a pair for each of a playbook's 10,000 actions.
  const actions = verdicts as Record<string, Record<string, unknown>>;
  for (const code in actions) {
    if (!Object.hasOwn(actions, code)) continue;
    const action = actions[code];
    if (action === null || typeof action !== "object") continue;
    if (action.action !== "retry_with_backoff" && action.action !== "retry_with_hint") continue;
    const hasList = action.backoff_ms !== undefined;
    const hasFormula = action.backoff !== undefined;
    if (!hasList && !hasFormula) out.push({ message: `${String(action.action)} for '${code}' needs a delay schedule: backoff_ms (a list) or backoff (a formula)`, path: ["verdicts", code, "action"], target: "key" });
    if (hasList && hasFormula) out.push({ message: `'${code}' gives both backoff_ms and backoff; keep one`, path: ["verdicts", code, "backoff"], target: "key" });
  }
  return out;
}

/** SPEC 23: a sync slower than the lease would declare the store down between two good syncs. */
function fleetProblems(playbook: Record<string, unknown>): { message: string; path: (string | number)[]; target: "value" | "key" }[] {
  const fleet = playbook.fleet as { sync_ms?: unknown; lease_ms?: unknown } | null | undefined;
  if (fleet === null || typeof fleet !== "object") return [];
  const sync = typeof fleet.sync_ms === "number" ? fleet.sync_ms : FLEET_DEFAULTS.sync_ms;
  const lease = typeof fleet.lease_ms === "number" ? fleet.lease_ms : FLEET_DEFAULTS.lease_ms;
  if (sync <= lease) return [];
  const where = fleet.sync_ms === undefined ? "lease_ms" : "sync_ms";
  return [{ message: `fleet sync_ms ${sync} is above lease_ms ${lease}: each process would count the store down between two syncs; make sync_ms at most lease_ms (a quarter of it leaves room for a late sync)`, path: ["fleet", where], target: "value" }];
}

interface FixturePath {
  file: string;
  /** The config entry that named it; absent for a path given on the command line. */
  key?: PathSegment[];
}

function expandFixturePaths(paths: FixturePath[], reader: SourceReader, configPaths: ConfigPaths): FixturePath[] {
  const out = new Map<string, FixturePath>();
  for (const { file: path, key } of paths) {
    const kind = reader.files.kind(path);
    if (!kind) {
      throw new UsageError(key ? `fixtures path not found: ${reader.display(path)} (named at ${configPaths.where(key)})` : `fixture path not found: ${reader.display(path)}`);
    }
    if (kind === "file") {
      out.set(path, { file: path, key });
      continue;
    }
    for (const file of walk(path, reader.files)) {
      // A link inside the directory may point anywhere: it must stay in the repository (or in the directory named).
      configPaths.requireInside(file, key, "fixture file", undefined, key ? undefined : path);
      if (!out.has(file)) out.set(file, { file, key });
    }
  }
  return [...out.values()];
}

/** The YAML files under a directory, depth first, in name order. */
export function walk(dir: string, reader: FileReader): string[] {
  const out: string[] = [];
  for (const entry of reader.list(dir).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const full = join(dir, entry.name);
    if (entry.directory) out.push(...walk(full, reader));
    else if (/\.ya?ml$/.test(entry.name)) out.push(full);
  }
  return out;
}
