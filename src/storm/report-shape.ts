/**
 * The shape of a storm report read back from JSON (`storm merge`): every field the merge and
 * the printers read, so that a tampered or foreign shard is one line naming the file and the
 * field, never a TypeError in a printer or a silently wrong total.
 */
import { boolean, either, integer, listOf, mapOf, nullable, number, object, oneOf, string, type Shape } from "../util/shape.js";
import { SHARING_MODES, VERDICTS } from "./model.js";
import { COUNTERS } from "./series.js";

const verdict = oneOf(...VERDICTS);
const seeds = object({ count: integer, verdict, agree: integer, verdicts: mapOf(integer) });

const bucket = object({
  from_ms: number,
  ...Object.fromEntries(COUNTERS.map((c) => [c, number])),
  success_share: nullable(number),
  in_progress: number,
  queued: number,
  breakers_open: number,
  breakers_half_open: number,
  outcomes: mapOf(number),
  attempt_errors: mapOf(number),
});

const summary = object({
  calls: number,
  attempts: number,
  amplification: number,
  worst_bucket: nullable(object({ bucket: integer, from_ms: number, amplification: number })),
  succeeded: number,
  success_ratio: number,
  latency_ms: object({ p50: number, p99: number, max: number }),
  mean_in_progress: number,
  trigger_end_ms: number,
  recovery_ms: nullable(number),
  verdict,
  unfinished: number,
});

const cost = object({
  outcomes: listOf(object({ kind: string, reason: nullable(string), queue: nullable(string), calls: integer })),
  escalations: mapOf(integer),
  dead_letters: mapOf(integer),
  refused_retries: object({ budget: integer, throttling: integer, quota: integer, breaker: integer }),
  short_circuited: integer,
  breakers: listOf(
    object({ breaker: string, instances: integer, open_share: number, longest_open_ms: number, reopenings: integer, open_after_trigger: integer, longest_after_trigger_ms: number }),
  ),
  rate_limits: object({ waits: integer, wait_ms: number, longest_wait_ms: number, refused: integer, upstream_429: integer }),
});

const store = object({ sync_ms: number, latency_ms: number, syncs: integer, failed_syncs: integer, down_ms: number, outages: integer, clients_fell_back: integer, fallback_ms: number });

const result = object(
  {
    storm: string,
    seed: integer,
    duration_ms: number,
    step_ms: number,
    clients: integer,
    shared: oneOf(...SHARING_MODES),
    playbook: string,
    phases: listOf(object({ from_ms: number, to_ms: number })),
    summary,
    checks: listOf(object({ check: string, limit: either(number, string), actual: nullable(either(number, string)), passed: boolean, message: string })),
    cost,
    buckets: listOf(bucket),
  },
  { seeds, store },
);

const entry = object({ index: integer, file: string, name: string, current: result, baseline: nullable(result), regressions: listOf(string) });

const cell = object(
  {
    index: integer,
    values: listOf(number),
    verdict,
    amplification: number,
    success_ratio: number,
    recovery_ms: nullable(number),
    p99_ms: number,
    failed_checks: integer,
    failed: listOf(string),
  },
  { seeds },
);

const sweep = object({
  file: string,
  name: string,
  axes: listOf(object({ name: string, from: number, to: number, step: number, values: listOf(number) })),
  operating: listOf(number),
  cells: listOf(cell),
  nearest_metastable: nullable(object({ values: listOf(number), margin: listOf(number) })),
});

export const STORM_REPORT: Shape = object(
  { files: listOf(string), sweep: listOf(string), seed: nullable(integer), seeds: integer, against: nullable(string), storms: listOf(entry), sweeps: listOf(sweep) },
  { shard: object({ index: integer, count: integer, jobs: integer }) },
);
