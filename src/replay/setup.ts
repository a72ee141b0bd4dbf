/**
 * What a replay runs under, as plain data that crosses into a worker thread: the current
 * rules, the baseline's (`--against`), the seed, the shard and the examples limit. Each
 * thread builds its own replayers from it.
 */
import { createRedactor } from "failbook-runtime/engine/redact.js";
import { linearRedactPatterns } from "../load/pattern.js";
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

export function buildSetup(data: SetupData): ReplaySetup {
  const replayer = (rules: RulesData) => new Replayer({ registry: rules.registry, playbook: rules.playbook, redact: createRedactor(linearRedactPatterns(rules.redact)) }, data.seed);
  return { current: replayer(data.current), baseline: data.baseline && replayer(data.baseline), shard: data.shard, examples: data.examples };
}

/**
 * The playbook key whose state every record shares in order (SPEC 12's retry quota, SPEC
 * 18's breakers and retry throttling), if any: such a replay cannot be split across threads
 * or shards. (A retry budget counts calls in progress: one at a time in a replay, it never binds.)
 */
export function sharedPolicy(data: SetupData): "retry_quota" | "circuit_breakers" | "retry_throttling" | undefined {
  for (const key of ["retry_quota", "circuit_breakers", "retry_throttling"] as const) {
    if (data.current.playbook[key] !== undefined || data.baseline?.playbook[key] !== undefined) return key;
  }
  return undefined;
}
