/**
 * Baselines (SPEC 6): `REF` is a path (a config file, or a directory holding one) or
 * `git:REV`, the same project as committed at REV. Either way the project goes through the
 * one loader, with the same schema validation as the working tree.
 */
import { existsSync, realpathSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { UsageError } from "failbook-runtime/model/errors.js";
import type { Finding } from "failbook-runtime/model/finding.js";
import { CONFIG_NAMES, findConfig } from "../load/config.js";
import { InvalidProject, loadProject, loadProjectFrom, type LoadResult, type Project } from "../load/project.js";
import { gitReader, openRevision } from "./git.js";
import { sideOf } from "./check.js";
import type { Side } from "./rule.js";

export interface BaselineOptions {
  cwd?: string;
  /**
   * The current project's config file (absolute). A `git:REV` baseline reads the config at
   * the same path relative to the repository root.
   */
  currentConfig: string;
}

/** Load a REF as one side of a comparison. Throws UsageError (exit 2) when it cannot be used. */
export function loadBaseline(ref: string, options: BaselineOptions): Side {
  const cwd = options.cwd ?? process.cwd();
  const loaded = guard(ref, () => (ref.startsWith("git:") ? loadAtRevision(ref.slice(4), options.currentConfig, cwd) : loadAtPath(ref, cwd)));
  return requireSide(loaded.project, ref, loaded.findings);
}

/** The config a `git:REV` baseline is read at: the current one, or where it would be. */
export function currentConfigPath(explicit: string | undefined, cwd: string = process.cwd()): string {
  try {
    return findConfig(explicit, cwd);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return resolve(cwd, explicit ?? CONFIG_NAMES[0]);
  }
}

function loadAtPath(ref: string, cwd: string): LoadResult {
  if (!existsSync(resolve(cwd, ref))) {
    throw new UsageError(`cannot compare with ${ref}: no such file or directory (give a config file, a directory holding failbook.yaml, or git:REV)`);
  }
  return loadProject({ config: ref, cwd });
}

function loadAtRevision(rev: string, currentConfig: string, cwd: string): LoadResult {
  const here = existsSync(dirname(currentConfig)) ? dirname(currentConfig) : cwd;
  const revision = openRevision(rev, here);
  const configRel = relative(revision.root, join(realpathSync(here), relative(here, currentConfig)));
  if (configRel.startsWith("..")) throw new UsageError(`the config ${currentConfig} is outside the git repository at ${revision.root}; git:${rev} can only read files of that repository`);
  const files = gitReader(revision);
  let configFile = join(revision.root, configRel);
  const kind = files.kind(configFile);
  if (kind === "directory") configFile = CONFIG_NAMES.map((n) => join(configFile, n)).find((p) => files.kind(p) === "file") ?? join(configFile, CONFIG_NAMES[0]);
  if (files.kind(configFile) !== "file") {
    throw new UsageError(`${files.display(configFile)} does not exist: the config was not committed at ${rev}, so there is no baseline there; compare with a revision that has it`);
  }
  return loadProjectFrom(files, configFile, { cwd });
}

/** An invalid baseline config is a reason the comparison cannot run, not a finding in today's files. */
function guard(ref: string, load: () => LoadResult): LoadResult {
  try {
    return load();
  } catch (e) {
    if (!(e instanceof InvalidProject)) throw e;
    throw new UsageError(`cannot compare with ${ref}: its config is invalid${firstProblem(e.findings)}`);
  }
}

/** A baseline must have loaded: without its registry and playbook there is nothing to compare with. */
function requireSide(project: Project, ref: string, findings: Finding[]): Side {
  const side = sideOf(project, ref);
  if (side) return side;
  throw new UsageError(`cannot compare with ${ref}: its registry or playbook does not pass the schema${firstProblem(findings)}; fix it there or choose another baseline`);
}

function firstProblem(findings: Finding[]): string {
  const first = findings.find((f) => f.severity === "error");
  return first ? ` (${first.file}:${first.line}:${first.column} ${first.message})` : "";
}

