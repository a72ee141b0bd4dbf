/**
 * A storm (SPEC 19): many clients, each running the playbook's dispatcher, against one
 * upstream whose latency and errors depend on the load they put on it. These are the storm
 * file's types, as schemas/storm.schema.json validates them.
 */
import type { AdapterError } from "failbook-runtime/model/fixture.js";
import type { RateLimitDialect } from "failbook-runtime/model/playbook.js";

export interface Storm {
  apiVersion: "failbook/v1";
  kind: "Storm";
  name: string;
  description?: string;
  seed?: number;
  duration_ms: number;
  step_ms?: number;
  clients: StormClients;
  upstream: Upstream;
  phases?: Phase[];
  expect?: StormExpect;
}

export interface StormClients {
  count: number;
  /**
   * client: each client its own dispatcher (breakers, quota, budget, throttling); store: each
   * its own, the playbook's `scope: fleet` policies synced through a simulated store (SPEC 23);
   * fleet: one dispatcher for all (ideal sharing).
   */
  shared?: SharingMode;
  /** With `shared: store`: the simulated fleet store. */
  store?: StormStore;
  arrival: Arrival;
  calls: StormCall[];
}

export const SHARING_MODES = ["client", "store", "fleet"] as const;
export type SharingMode = (typeof SHARING_MODES)[number];

/** The fleet store the clients sync through with `shared: store` (SPEC 23), on the storm's clock. */
export interface StormStore {
  /** Default: the playbook's `fleet.sync_ms`, else 250. */
  sync_ms?: number;
  /** A sync's round trip (default 1). */
  latency_ms?: number;
  /** Times the store is unreachable. */
  down?: { from_ms: number; to_ms: number }[];
}

export const DEFAULT_STORE_LATENCY_MS = 1;

/** Open loop (Poisson, fleet-wide) or closed loop (each client one call at a time). */
export type Arrival = { rate_per_s: number; serial?: undefined } | { serial: { think_ms: number; calls?: number }; rate_per_s?: undefined };

export interface StormCall {
  tool: string;
  weight?: number;
  idempotent?: boolean;
  args?: Record<string, unknown>;
}

export interface LatencyModel {
  base?: number;
  median?: number;
  p99?: number;
  mean?: number;
  per_concurrent?: number;
}

export interface Upstream {
  latency_ms: LatencyModel;
  capacity?: { concurrency: number; queue?: number };
  overload_error?: AdapterError;
  gateway?: { timeout_ms: number; error?: AdapterError };
  errors?: ErrorMix[];
  rate_limit?: UpstreamRateLimit;
}

/**
 * The upstream's own rate limit (SPEC 22): at most `requests` attempts in each fixed window
 * of `per_ms` (windows from the storm's time 0); past it, 429 with the dialect's headers.
 */
export interface UpstreamRateLimit {
  requests: number;
  per_ms: number;
  /** The dialect its answers' quota headers speak; without it, a 429 carries retry-after only. */
  headers?: RateLimitDialect;
}

export interface ErrorMix {
  ratio: number;
  error: AdapterError;
}

export interface Phase {
  from_ms: number;
  to_ms: number;
  arrival_x?: number;
  capacity_x?: number;
  latency_x?: number;
  error_x?: number;
  errors?: ErrorMix[];
}

export const VERDICTS = ["stable", "recovered", "degraded", "metastable"] as const;
/** From best to worst. */
export type StormVerdict = (typeof VERDICTS)[number];

export interface StormExpect {
  max_amplification?: number;
  min_success_ratio?: number;
  recovers_within_ms?: number;
  max_p99_ms?: number;
  verdict?: StormVerdict;
  /** 429s the upstream answered, over the run (a rate limit's, an error mix's, a 429 overload_error). */
  max_upstream_429?: number;
}

export const DEFAULT_STEP_MS = 1000;
export const DEFAULT_OVERLOAD_ERROR: AdapterError = Object.freeze({ kind: "http", http_status: 503, message: "upstream overloaded: queue full" });
export const DEFAULT_GATEWAY_ERROR: AdapterError = Object.freeze({ kind: "http", http_status: 504, message: "gateway timeout" });
/** Success at or above this share of calls offered counts as serving (recovery). */
export const RECOVERED_SHARE = 0.95;
/** Success below this share after the trigger, to the end, is a metastable failure. */
export const METASTABLE_SHARE = 0.5;
/** The most calls one storm offers (SPEC 16: bounded, with one clear line): about 20 times the bench's million. */
export const MAX_CALLS = 20_000_000;
/** The most attempts one storm's calls may send, retries and hedges included (SPEC 21): each costs what a call does. */
export const MAX_ATTEMPTS = MAX_CALLS;
/** The most syncs with its store one `shared: store` storm's clients make (SPEC 23): each costs about what a call does. */
export const MAX_SYNCS = MAX_CALLS;
/** The most buckets one report holds. */
export const MAX_BUCKETS = 100_000;
