/** What every command shares: the global options, the Io, and one way to end with an exit code. */
import type { Command } from "commander";
import { readFileSync } from "node:fs";
import { UsageError } from "failbook-runtime/model/errors.js";
import type { Finding } from "failbook-runtime/model/finding.js";
import { InvalidProject, loadProject, type LoadOptions, type LoadResult } from "../load/project.js";
import { ConfigNotFound } from "../load/config.js";
import { projectRedactor } from "../load/redaction.js";
import { formatText } from "../lint/report/text.js";
import { runRules } from "../lint/lint.js";
import { secretInProject } from "../lint/rules/secret-in-project.js";
import type { Project } from "../load/project.js";
import type { YamlDocument } from "../load/yaml.js";
import { plural } from "../util/text.js";
import type { Io } from "./io.js";

export interface Globals {
  config?: string;
  color: boolean;
}

/** A command body: returns the exit status (0 clean, 1 found something, 2 could not run). */
export type CommandBody<A extends unknown[]> = (io: Io, globals: Globals, ...args: A) => Promise<number> | number;

/** Registers one command on the program; `run` wraps its body with the shared error handling. */
export type CommandRegistrar = (program: Command, run: <A extends unknown[]>(body: CommandBody<A>) => (...args: A) => Promise<void>) => void;

export function reportError(e: unknown, io: Io): number {
  if (e instanceof UsageError) {
    io.fail(e.message);
    return 2;
  }
  if (e instanceof InvalidProject) {
    io.err(findingsText(io, e.findings, e.sources));
    return 1;
  }
  const err = e as Error;
  io.fail(`internal error: ${err?.message ?? String(e)}`);
  if (process.env.FAILBOOK_DEBUG) io.err(`${err?.stack ?? ""}\n`);
  else io.err("(this is a bug in failbook; set FAILBOOK_DEBUG=1 to see the stack trace)\n");
  return 2;
}

/** Findings as compiler-style text, with excerpts from the files they point into. */
export function findingsText(io: Io, findings: Finding[], sources: ReadonlyMap<string, { text: string }>): string {
  return formatText(findings, { c: io.c, sourceText: (f) => sources.get(f)?.text });
}

/**
 * SPEC 21: gen and render write no string that `secret-in-project` flags (the rule itself
 * runs, at the config's severity; `off` flags nothing). Each such string of `documents`, the
 * ones the command writes from, is one located line naming the family, never the value, then
 * one line saying `target` was not written. True when any was found: the command exits 1.
 */
export function refusesSecrets(io: Io, project: Project, documents: readonly YamlDocument[], target: string): boolean {
  const files = new Set(documents.map((d) => d.file));
  const found = runRules({ ...project, fixtures: [] }, [secretInProject]).filter((f) => files.has(f.file)).map((f) => ({ ...f, severity: "error" as const }));
  if (found.length === 0) return false;
  // Lint's lines without its count: the line below says what it comes to.
  io.err(formatText(found, { c: io.c }).replace(/[^\n]*\n$/, ""));
  const them = found.length === 1 ? "it" : "them";
  io.err(`failbook: nothing written to ${target}: ${plural(found.length, "string")} of the project would carry a secret into it; move ${them} out of the project (failbook lint shows ${them} too)\n`);
  return true;
}

/** Load the project and switch on its redaction patterns. */
export function loadFor(io: Io, globals: Globals, options: Omit<LoadOptions, "config"> = {}): LoadResult {
  let result: LoadResult;
  try {
    result = loadProject({ ...options, config: globals.config });
  } catch (e) {
    throw e instanceof ConfigNotFound ? new ConfigNotFound("--config PATH") : e;
  }
  io.useRedactor(projectRedactor(result.project));
  return result;
}

/**
 * A subcommand's flags (`storm merge`, whose parent enables positional options): each of
 * `shared` where the user typed it (the subcommand's own first, then the parent's, typed
 * before the subcommand), else the subcommand's default; the parent's other flags are refused.
 */
export function subcommandFlags<T extends object>(sub: Command, shared: readonly string[]): T {
  const parent = sub.parent!;
  const typed = (command: Command, key: string) => command.getOptionValueSource(key) === "cli";
  for (const option of parent.options) {
    const key = option.attributeName();
    if (typed(parent, key) && !shared.includes(key)) {
      throw new UsageError(`${option.long} is a flag of ${parent.name()}, not of ${parent.name()} ${sub.name()} (which takes ${shared.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(" and ")}); drop it`);
    }
  }
  const flags: Record<string, unknown> = { ...sub.opts() };
  for (const key of shared) if (!typed(sub, key) && typed(parent, key)) flags[key] = parent.opts()[key];
  return flags as T;
}

/** Parse a non-negative integer flag, or fail with a usage error naming the flag. */
export function intFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`${name} takes a whole number, not '${value}'`);
  return Number(value);
}

/** Check an enumerated flag's value, or fail with a usage error listing the choices. */
export function choiceFlag<T extends string>(name: string, value: string | undefined, choices: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`${name} must be one of ${choices.join(", ")}, not '${value}'`);
}

/** The JSON reports of a sharded run's shards, for `replay merge` and `storm merge`: each read and parsed, or a usage error naming it. */
export function readShardReports<T>(files: readonly string[], command: "replay" | "storm", parse: (text: string, file: string) => T): { file: string; report: T }[] {
  return files.map((file) => {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      throw new UsageError(`${file}: cannot read it (no such file?); give the JSON reports of failbook ${command} --shard I/N --format json`);
    }
    return { file, report: parse(text, file) };
  });
}
