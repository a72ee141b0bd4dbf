/**
 * What a replay runs under, as plain data: the current rules, the baseline's (`--against`),
 * the seed, the shard and the examples limit. The main thread serializes it once into shared
 * memory (`shareSetup`) and lets go of the loaded project; each thread that replays reads its
 * own copy out of those bytes (`readSetup`, no YAML parsed again) and builds its replayers.
 */
import { deserialize, serialize } from "node:v8";
import type { Project } from "../load/project.js";
import { patternRedactor } from "../load/redaction.js";
import { withoutMatchRules } from "failbook-runtime/engine/classify.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import type { Registry } from "failbook-runtime/model/registry.js";
import type { ReplaySetup } from "./chunk.js";
import { Replayer } from "./replayer.js";
import type { Shard } from "./shard.js";

export interface RulesData {
  registry: Registry;
  playbook: Playbook;
  /** The config's `redact:` patterns. */
  redact: readonly string[];
}

export interface SetupData {
  current: RulesData;
  baseline: RulesData | undefined;
  seed: number;
  shard: Shard | undefined;
  examples: number;
}

/** The rules a replay or a storm runs under, as plain data (it crosses into worker threads); undefined until both files load. */
export function rulesData(project: Project): RulesData | undefined {
  if (!project.registry || !project.playbook) return undefined;
  return { registry: project.registry.value, playbook: project.playbook.value, redact: project.config.redact ?? [] };
}

/**
 * A setup as the threads of a replay share it: the SetupData's bytes, which every worker
 * reads (a SharedArrayBuffer crosses to a worker without a copy), and the little the main
 * thread reads itself while it hands out chunks. The bytes go with `handOff`: a thread that
 * replays reads its copy out of them and lets go, and once all have, their memory is freed.
 */
export interface SharedSetup {
  /** Undefined once handed off. */
  bytes: SharedArrayBuffer | undefined;
  readonly shard: Shard | undefined;
  readonly examples: number;
  /** See `sharedPolicy`. */
  readonly sharedPolicy: SharedPolicy | undefined;
}

export function shareSetup(data: SetupData): SharedSetup {
  const slim = (rules: RulesData): RulesData => ({ ...rules, registry: withoutDocs(rules.registry) });
  const serialized = serialize({ ...data, current: slim(data.current), baseline: data.baseline && slim(data.baseline) });
  const bytes = new SharedArrayBuffer(serialized.length);
  new Uint8Array(bytes).set(serialized);
  return { bytes, shard: data.shard, examples: data.examples, sharedPolicy: sharedPolicy(data) };
}

/** The setup's bytes, for the threads that replay: the main thread keeps no reference to them (a replay hands them off once). */
export function handOff(shared: SharedSetup): SharedArrayBuffer {
  const bytes = shared.bytes;
  if (bytes === undefined) throw new Error("this replay setup was handed off already");
  shared.bytes = undefined;
  return bytes;
}

export const readSetup = (bytes: SharedArrayBuffer): SetupData => deserialize(new Uint8Array(bytes)) as SetupData;

/**
 * The registry less what only documents a verdict (its examples, its details schema, its ADR):
 * no dispatch reads them, and at 10,000 codes they are megabytes in every worker.
 */
function withoutDocs(registry: Registry): Registry {
  return { ...registry, verdicts: registry.verdicts.map(({ examples: _examples, details: _details, adr: _adr, ...verdict }) => verdict) };
}

/** The replayers of a setup; each registry is compiled for classification and kept without its match rules (see withoutMatchRules). */
export function buildSetup(data: SetupData): ReplaySetup {
  const replayer = (rules: RulesData) => new Replayer({ registry: withoutMatchRules(rules.registry, rules.playbook), playbook: rules.playbook, redact: patternRedactor(rules.redact) }, data.seed);
  return { current: replayer(data.current), baseline: data.baseline && replayer(data.baseline), shard: data.shard, examples: data.examples };
}

/**
 * The playbook key whose state every record shares in order (SPEC 12's retry quota, SPEC
 * 18's breakers and retry throttling), if any: such a replay cannot be split across threads
 * or shards. (A retry budget counts calls in progress: one at a time in a replay, it never binds.)
 */
export type SharedPolicy = "retry_quota" | "circuit_breakers" | "retry_throttling";

export function sharedPolicy(data: SetupData): SharedPolicy | undefined {
  for (const key of ["retry_quota", "circuit_breakers", "retry_throttling"] as const) {
    if (data.current.playbook[key] !== undefined || data.baseline?.playbook[key] !== undefined) return key;
  }
  return undefined;
}
