/**
 * Storm files (SPEC 19): found from the config's `storms:` (globs, directories or files;
 * default `storms/`) or from the command line, read through the same file rules as every
 * project file (inside the repository, regular files, a size limit), parsed with positions
 * and validated against schemas/storm.schema.json, with the checks a schema cannot say.
 */
import { relative, resolve, sep } from "node:path";
import { globMatches } from "failbook-runtime/engine/match.js";
import { UsageError } from "failbook-runtime/model/errors.js";
import type { Finding, PathSegment } from "failbook-runtime/model/finding.js";
import { diskReader, type FileReader } from "../load/files.js";
import { findingAt, findingAtPosition } from "../load/finding.js";
import { ConfigPaths } from "../load/paths.js";
import { walk, type Loaded, type Project } from "../load/project.js";
import { problemsOf, type SchemaProblem } from "../load/schema.js";
import { parseYaml } from "../load/yaml.js";
import { DEFAULT_MAX_FILE_MB, FileRefused } from "../util/fs.js";
import type { ErrorMix, Storm } from "./model.js";
import { storm as validateStorm } from "./storm-validator.generated.js";

export const DEFAULT_STORMS = "storms/";

export interface StormLoad {
  /** Storms that passed their schema, in file order. */
  storms: Loaded<Storm>[];
  /** yaml-syntax and schema findings in storm files. */
  findings: Finding[];
  /** The files read (absolute), in order. */
  files: string[];
}

/**
 * Load the storms the command line names (`paths`, relative to `cwd`), else the config's.
 * Every file read joins `project.sources`, so findings show excerpts.
 */
export function loadStorms(project: Project, paths: readonly string[] = [], cwd: string = process.cwd()): StormLoad {
  const reader = diskReader(cwd);
  const configPaths = new ConfigPaths(reader, project.configFile, project.configDoc);
  const files = paths.length > 0 ? commandLineFiles(paths, reader, cwd) : configFiles(project, reader, configPaths);
  const maxBytes = (project.config.max_file_mb ?? DEFAULT_MAX_FILE_MB) * 1024 * 1024;
  const out: StormLoad = { storms: [], findings: [], files };
  for (const file of files) {
    let text: string;
    try {
      text = reader.readText(file, maxBytes);
    } catch (e) {
      if (e instanceof FileRefused) throw new FileRefused(`storm file ${e.message}`, e.reason);
      throw new UsageError(`cannot read storm file ${reader.display(file)}: ${(e as Error).message}`);
    }
    const source = parseYaml(reader.display(file), text);
    project.sources.set(source.file, source);
    if (source.error) {
      out.findings.push(findingAtPosition("yaml-syntax", "error", source.error.message, { file: source.file, line: source.error.line, column: source.error.column }));
      continue;
    }
    for (const doc of source.documents) {
      if (doc.value === null || doc.value === undefined) continue;
      const problems = stormProblems(doc.value);
      for (const p of problems) out.findings.push(findingAt({ rule: "schema", severity: "error", message: p.message, doc, path: p.path, target: p.target }));
      if (problems.length === 0) out.storms.push({ value: doc.value as Storm, doc });
    }
  }
  return out;
}

/** What the schema finds, then what it cannot say: one latency shape, one arrival, phases in order, error shares within 1. */
export function stormProblems(value: unknown): SchemaProblem[] {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return [{ message: `expected a Storm document (a mapping), found ${Array.isArray(value) ? "a list" : typeof value}`, path: [], target: "value" }];
  }
  const problems = problemsOf("storm", validateStorm, value);
  if (problems.length > 0) return problems;
  const storm = value as Storm;
  const out: SchemaProblem[] = [];
  const latency = storm.upstream.latency_ms;
  const shapes = [latency.base !== undefined, latency.median !== undefined || latency.p99 !== undefined, latency.mean !== undefined].filter(Boolean).length;
  if (shapes !== 1 || (latency.median === undefined) !== (latency.p99 === undefined)) {
    out.push({ message: "latency_ms takes { base }, { median, p99 } (log-normal) or { mean } (exponential), each with an optional per_concurrent", path: ["upstream", "latency_ms"], target: "value" });
  } else if (latency.median !== undefined && latency.p99! < latency.median) {
    out.push({ message: `latency_ms p99 ${latency.p99} is below its median ${latency.median}; the 99th percentile is at least the median`, path: ["upstream", "latency_ms", "p99"], target: "value" });
  }
  const arrival = storm.clients.arrival;
  if ((arrival.rate_per_s === undefined) === (arrival.serial === undefined)) {
    out.push({ message: "arrival takes one of rate_per_s (open loop: Poisson arrivals, fleet-wide) or serial: { think_ms } (closed loop)", path: ["clients", "arrival"], target: "value" });
  }
  const capacity = storm.upstream.capacity;
  if (capacity === undefined && storm.upstream.overload_error !== undefined) {
    out.push({ message: "overload_error is what a full queue turns attempts away with, and this upstream has no capacity; add capacity: { concurrency, queue }", path: ["upstream", "overload_error"], target: "key" });
  }
  const store = storm.clients.store;
  if (store !== undefined && storm.clients.shared !== "store") {
    out.push({ message: `store: is the fleet store the clients sync through with shared: store, and this storm has shared: ${storm.clients.shared ?? "client"}; set shared: store or drop store:`, path: ["clients", "store"], target: "key" });
  }
  for (const [i, w] of (store?.down ?? []).entries()) {
    if (w.to_ms <= w.from_ms) out.push({ message: `store down window ${i + 1} ends (to_ms ${w.to_ms}) before it starts (from_ms ${w.from_ms})`, path: ["clients", "store", "down", i, "to_ms"], target: "value" });
  }
  for (const [i, phase] of (storm.phases ?? []).entries()) {
    if (phase.to_ms <= phase.from_ms) out.push({ message: `phase ${i + 1} ends (to_ms ${phase.to_ms}) before it starts (from_ms ${phase.from_ms})`, path: ["phases", i, "to_ms"], target: "value" });
  }
  const overOne = (mix: readonly ErrorMix[] | undefined, factor: number, path: PathSegment[], what: string) => {
    const sum = (mix ?? []).reduce((a, m) => a + m.ratio * factor, 0);
    if (sum > 1 + 1e-9) out.push({ message: `${what} add up to ${round(sum)}, more than every attempt; the ratios are shares of attempts and must add up to at most 1`, path, target: "value" });
  };
  overOne(storm.upstream.errors, 1, ["upstream", "errors"], "the upstream's error ratios");
  for (const [i, phase] of (storm.phases ?? []).entries()) {
    overOne([...(storm.upstream.errors ?? []), ...(phase.errors ?? [])], 1, ["phases", i, phase.errors ? "errors" : "from_ms"], `during phase ${i + 1}, the error ratios`);
    if (phase.error_x !== undefined) overOne(storm.upstream.errors, phase.error_x, ["phases", i, "error_x"], `during phase ${i + 1}, the upstream's error ratios times error_x`);
  }
  return out;
}

const round = (n: number) => Math.round(n * 1000) / 1000;

function commandLineFiles(paths: readonly string[], reader: FileReader, cwd: string): string[] {
  const out = new Set<string>();
  for (const path of paths) {
    const found = expand(resolve(cwd, path), reader);
    if (found === undefined) throw new UsageError(`storm file not found: ${path}`);
    // Named on the command line, a path that finds nothing is the user's slip, not an empty project.
    if (found.length === 0) throw new UsageError(`no storm file matches ${path}${hasWildcard(path) ? "" : " (a directory with no .yaml or .yml file)"}: name storm files, a directory or a glob that holds some`);
    for (const file of found) out.add(file);
  }
  return [...out];
}

function configFiles(project: Project, reader: FileReader, configPaths: ConfigPaths): string[] {
  const setting = project.config.storms;
  const entries: { value: string; key: PathSegment[] | undefined }[] =
    setting === undefined ? [{ value: DEFAULT_STORMS, key: undefined }] : typeof setting === "string" ? [{ value: setting, key: ["storms"] }] : setting.map((value, i) => ({ value, key: ["storms", i] }));
  const out = new Set<string>();
  for (const { value, key } of entries) {
    const absolute = configPaths.resolve(value, key ?? [], "storms path");
    const found = expand(absolute, reader) ?? [];
    if (found.length === 0 && key !== undefined && !hasWildcard(value)) throw new UsageError(`storms path not found: ${reader.display(absolute)} (named at ${configPaths.where(key)})`);
    for (const file of found) {
      configPaths.requireInside(file, key, "storm file");
      out.add(file);
    }
  }
  return [...out];
}

/** A file, the YAML files under a directory, or the files a glob matches; undefined when a plain path names nothing. */
function expand(absolute: string, reader: FileReader): string[] | undefined {
  if (!hasWildcard(absolute)) {
    const kind = reader.kind(absolute);
    if (kind === "file") return [absolute];
    if (kind === "directory") return walk(absolute, reader);
    return undefined;
  }
  const parts = absolute.split(sep);
  const fixed = parts.findIndex(hasWildcard);
  const base = parts.slice(0, fixed).join(sep) || sep;
  if (reader.kind(base) !== "directory") return [];
  const pattern = parts.slice(fixed);
  return walk(base, reader).filter((f) => pathMatches(pattern, relative(base, f).split(sep)));
}

const hasWildcard = (s: string) => /[*?]/.test(s);

/** Segment by segment: `**` is any number of directories; within a segment, `*` and `?` as for tool globs. */
function pathMatches(pattern: readonly string[], path: readonly string[], p = 0, q = 0): boolean {
  if (p === pattern.length) return q === path.length;
  if (pattern[p] === "**") {
    for (let skip = q; skip <= path.length; skip++) if (pathMatches(pattern, path, p + 1, skip)) return true;
    return false;
  }
  return q < path.length && globMatches(pattern[p], path[q]) && pathMatches(pattern, path, p + 1, q + 1);
}
