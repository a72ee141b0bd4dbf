/**
 * The thread that loads a replay's project (see ./load-setup.ts): the current registry and
 * playbook, the baseline's with `--against`, serialized into the shared setup; then it ends.
 */
import { parentPort, workerData } from "node:worker_threads";
import { UsageError } from "failbook-runtime/model/errors.js";
import { loadBaseline } from "../change/baseline.js";
import { ConfigNotFound } from "../load/config.js";
import { InvalidProject, loadProject } from "../load/project.js";
import { projectVocabulary } from "../load/redaction.js";
import type { SetupAnswer, SetupRequest, SourceTexts } from "./load-setup.js";
import { rulesData, shareSetup } from "./setup.js";

function load(request: SetupRequest): SetupAnswer {
  try {
    const { project, findings } = loadProject({ config: request.config, fixturePaths: [] });
    const redaction = { patterns: project.config.redact ?? [], vocabulary: [...projectVocabulary(project)] };
    const current = rulesData(project);
    if (!current) return { kind: "unloaded", findings, sources: textsOf(project.sources), redaction };
    const baseline = request.against === undefined ? undefined : rulesData(loadBaseline(request.against, { currentConfig: project.configFile }).project);
    return { kind: "loaded", setup: shareSetup({ current, baseline, seed: request.seed, shard: request.shard, examples: request.examples }), redaction };
  } catch (e) {
    // As the CLI's loadFor says it: the flag that names a config.
    if (e instanceof ConfigNotFound) return { kind: "usage", message: new ConfigNotFound("--config PATH").message };
    if (e instanceof UsageError) return { kind: "usage", message: e.message };
    if (e instanceof InvalidProject) return { kind: "invalid", findings: e.findings, sources: textsOf(e.sources) };
    return { kind: "internal", message: (e as Error)?.message ?? String(e), stack: (e as Error)?.stack };
  }
}

const textsOf = (sources: ReadonlyMap<string, { text: string }>): SourceTexts => new Map([...sources].map(([file, source]) => [file, { text: source.text }]));

parentPort!.postMessage(load(workerData as SetupRequest));
