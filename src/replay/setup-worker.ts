/**
 * The thread that loads a replay's project (see ./load-setup.ts): the current registry and
 * playbook, the baseline's with `--against`, serialized into the shared setup; then it ends.
 */
import { parentPort, workerData } from "node:worker_threads";
import { loadBaseline } from "../change/baseline.js";
import { UsageError } from "../model/errors.js";
import { InvalidProject, loadProject, type Project } from "../load/project.js";
import type { SetupAnswer, SetupRequest, SourceTexts } from "./load-setup.js";
import { shareSetup, type RulesData } from "./setup.js";

function load(request: SetupRequest): SetupAnswer {
  try {
    const { project, findings } = loadProject({ config: request.config, fixturePaths: [] });
    const redact = project.config.redact ?? [];
    const current = rulesOf(project);
    if (!current) return { kind: "unloaded", findings, sources: textsOf(project.sources), redact };
    const baseline = request.against === undefined ? undefined : rulesOf(loadBaseline(request.against, { currentConfig: project.configFile }).project);
    return { kind: "loaded", setup: shareSetup({ current, baseline, seed: request.seed, shard: request.shard, examples: request.examples }), redact };
  } catch (e) {
    if (e instanceof UsageError) return { kind: "usage", message: e.message };
    if (e instanceof InvalidProject) return { kind: "invalid", findings: e.findings, sources: textsOf(e.sources) };
    return { kind: "internal", message: (e as Error)?.message ?? String(e), stack: (e as Error)?.stack };
  }
}

function rulesOf(project: Project): RulesData | undefined {
  if (!project.registry || !project.playbook) return undefined;
  return { registry: project.registry.value, playbook: project.playbook.value, redact: project.config.redact ?? [] };
}

const textsOf = (sources: ReadonlyMap<string, { text: string }>): SourceTexts => new Map([...sources].map(([file, source]) => [file, { text: source.text }]));

parentPort!.postMessage(load(workerData as SetupRequest));
