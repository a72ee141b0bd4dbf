/** Storms from files, run through the library: the same loader and runner `failbook storm` uses. */
import { join } from "node:path";
import { loadProject } from "../../src/load/project.js";
import { loadStorms } from "../../src/storm/load.js";
import type { Storm } from "../../src/storm/model.js";
import { runStorm, type StormResult, type StormRules } from "../../src/storm/run.js";
import { REPO } from "./cli.js";

export const BROOKER = join(REPO, "test/storms/brooker");

/** The project of a config file, its rules and its one storm. */
export function stormProject(config: string): { rules: StormRules; storm: Storm } {
  const { project } = loadProject({ config });
  const load = loadStorms(project);
  if (load.findings.length > 0) throw new Error(`${config}: ${load.findings.map((f) => `${f.file}:${f.line}:${f.column} ${f.message}`).join("; ")}`);
  if (!project.registry || !project.playbook || load.storms.length !== 1) throw new Error(`${config}: expected a registry, a playbook and one storm`);
  return { rules: { registry: project.registry.value, playbook: project.playbook.value, redact: [] }, storm: load.storms[0].value };
}

/** Run a config's storm, with some of its figures changed. */
export function runProjectStorm(config: string, change: (storm: Storm) => Storm = (s) => s, seed?: number): Promise<StormResult> {
  const { rules, storm } = stormProject(config);
  return runStorm(change(storm), rules, seed === undefined ? {} : { seed });
}
