/**
 * What a replay runs under, as plain data: the current rules, the baseline's (`--against`),
 * the seed, the shard and the examples limit. The main thread serializes it once into shared
 * memory (`shareSetup`) and lets go of the loaded project; each thread that replays reads its
 * own copy out of those bytes (`readSetup`, no YAML parsed again) and builds its replayers.
 */
import { deserialize, serialize } from "node:v8";
import { createRedactor } from "../engine/redact.js";
import type { Playbook } from "../model/playbook.js";
import type { Registry } from "../model/registry.js";
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

/**
 * A setup as the threads of a replay share it: the SetupData's bytes, which every worker
 * reads (a SharedArrayBuffer crosses to a worker without a copy), and the little the main
 * thread reads itself while it hands out chunks.
 */
export interface SharedSetup {
  readonly bytes: SharedArrayBuffer;
  readonly shard: Shard | undefined;
  readonly examples: number;
  /** See `sharesQuota`. */
  readonly sharesQuota: boolean;
}

export function shareSetup(data: SetupData): SharedSetup {
  const slim = (rules: RulesData): RulesData => ({ ...rules, registry: withoutDocs(rules.registry) });
  const serialized = serialize({ ...data, current: slim(data.current), baseline: data.baseline && slim(data.baseline) });
  const bytes = new SharedArrayBuffer(serialized.length);
  new Uint8Array(bytes).set(serialized);
  return { bytes, shard: data.shard, examples: data.examples, sharesQuota: sharesQuota(data) };
}

export const readSetup = (shared: SharedSetup): SetupData => deserialize(new Uint8Array(shared.bytes)) as SetupData;

/**
 * The registry less what only documents a verdict (its examples, its details schema, its ADR):
 * no dispatch reads them, and at 10,000 codes they are megabytes in every worker.
 */
function withoutDocs(registry: Registry): Registry {
  return { ...registry, verdicts: registry.verdicts.map(({ examples: _examples, details: _details, adr: _adr, ...verdict }) => verdict) };
}

export function buildSetup(data: SetupData): ReplaySetup {
  const replayer = (rules: RulesData) => new Replayer({ registry: rules.registry, playbook: rules.playbook, redact: createRedactor(rules.redact) }, data.seed);
  return { current: replayer(data.current), baseline: data.baseline && replayer(data.baseline), shard: data.shard, examples: data.examples };
}

/** A retry quota is shared by every record in order (SPEC 12): such a replay cannot be split across threads or shards. */
export const sharesQuota = (data: SetupData): boolean => data.current.playbook.retry_quota !== undefined || data.baseline?.playbook.retry_quota !== undefined;
