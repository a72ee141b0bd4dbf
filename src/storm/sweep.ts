/**
 * `--sweep NAME=FROM..TO:STEP` (SPEC 19): the trigger's figures over a grid. Each name sets
 * one figure of the storm: every phase's multiplier (arrival_x, capacity_x, latency_x,
 * error_x) or length (trigger_ms), the open loop's rate_per_s, the error ratio of the
 * phases' errors (the upstream's when no phase has any), or how often the clients sync with
 * their fleet store (sync_ms, `shared: store`: where staleness starts to matter, SPEC 23).
 */
import { UsageError } from "failbook-runtime/model/errors.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import type { Storm } from "./model.js";
import { storeSyncMs } from "./store.js";
import { tidy, type SweepAxis } from "./report.js";

export const SWEEP_NAMES = ["arrival_x", "capacity_x", "latency_x", "error_x", "trigger_ms", "rate_per_s", "ratio", "sync_ms"] as const;
export type SweepName = (typeof SWEEP_NAMES)[number];

export const MAX_CELLS = 10_000;

export function parseSweep(text: string): SweepAxis {
  const m = /^([a-z_]+)=(-?[\d.]+)\.\.(-?[\d.]+):([\d.]+)$/.exec(text);
  const usage = `--sweep takes NAME=FROM..TO:STEP (e.g. arrival_x=1..3:0.25), NAME one of ${SWEEP_NAMES.join(", ")}`;
  if (!m) throw new UsageError(`${usage}; not '${text}'`);
  const [name, from, to, step] = [m[1], Number(m[2]), Number(m[3]), Number(m[4])];
  if (!(SWEEP_NAMES as readonly string[]).includes(name)) throw new UsageError(`${usage}; not '${name}'`);
  if (![from, to, step].every(Number.isFinite) || step <= 0 || to < from || from < 0) throw new UsageError(`--sweep ${text}: FROM and TO must be numbers with 0 <= FROM <= TO, and STEP above 0`);
  if (name === "ratio" && to > 1) throw new UsageError(`--sweep ${text}: an error ratio is a share of attempts, at most 1`);
  if (name === "sync_ms" && (from < 1 || [from, step].some((n) => !Number.isInteger(n)))) throw new UsageError(`--sweep ${text}: sync_ms takes whole milliseconds from 1 (FROM and STEP integers, FROM at least 1)`);
  const count = Math.floor((to - from) / step + 1e-9) + 1;
  if (count > MAX_CELLS) throw new UsageError(`--sweep ${text} makes ${count} values; a sweep runs at most ${MAX_CELLS} cells: raise STEP`);
  return { name, from, to, step, values: Array.from({ length: count }, (_, i) => tidy(from + i * step)) };
}

/** Every cell of the grid, the first axis varying slowest. */
export function gridOf(axes: readonly SweepAxis[]): number[][] {
  let cells: number[][] = [[]];
  for (const axis of axes) cells = cells.flatMap((c) => axis.values.map((v) => [...c, v]));
  if (cells.length > MAX_CELLS) throw new UsageError(`the sweep makes ${cells.length} cells; it runs at most ${MAX_CELLS}: raise a STEP`);
  return cells;
}

/** The storm's own value of a swept figure (sync_ms: the store's, else the playbook's); a usage error when the storm has no such figure to sweep. */
export function operatingValue(storm: Storm, name: string, playbook: Playbook): number {
  const phases = storm.phases ?? [];
  const where = `storm ${storm.name}`;
  switch (name as SweepName) {
    case "rate_per_s":
      if (storm.clients.arrival.rate_per_s === undefined) throw new UsageError(`--sweep rate_per_s: ${where} is a closed loop (serial); it has no rate_per_s`);
      return storm.clients.arrival.rate_per_s;
    case "trigger_ms":
      if (phases.length === 0) throw new UsageError(`--sweep trigger_ms: ${where} has no phases to lengthen`);
      return phases[0].to_ms - phases[0].from_ms;
    case "sync_ms":
      if (storm.clients.shared !== "store") throw new UsageError(`--sweep sync_ms: ${where} has shared: ${storm.clients.shared ?? "client"}; sync_ms is how often clients sync with a fleet store (shared: store)`);
      return storeSyncMs(storm.clients.store, playbook);
    case "ratio": {
      const mix = phases.flatMap((p) => p.errors ?? []);
      const errors = mix.length > 0 ? mix : (storm.upstream.errors ?? []);
      if (errors.length === 0) throw new UsageError(`--sweep ratio: ${where} has no errors whose ratio to set`);
      return errors[0].ratio;
    }
    default: {
      const key = name as "arrival_x" | "capacity_x" | "latency_x" | "error_x";
      const phase = phases.find((p) => p[key] !== undefined);
      if (phase === undefined) throw new UsageError(`--sweep ${name}: no phase of ${where} sets ${name}`);
      return phase[key]!;
    }
  }
}

/** The storm with one swept figure set to `value` (a copy; the storm is not changed). */
export function withValue(storm: Storm, name: string, value: number): Storm {
  const phases = storm.phases ?? [];
  switch (name as SweepName) {
    case "rate_per_s":
      return { ...storm, clients: { ...storm.clients, arrival: { rate_per_s: value } } };
    case "sync_ms":
      return { ...storm, clients: { ...storm.clients, store: { ...storm.clients.store, sync_ms: value } } };
    case "trigger_ms":
      return { ...storm, phases: phases.map((p) => ({ ...p, to_ms: p.from_ms + value })) };
    case "ratio": {
      if (phases.some((p) => (p.errors ?? []).length > 0)) return { ...storm, phases: phases.map((p) => ({ ...p, ...(p.errors ? { errors: p.errors.map((e) => ({ ...e, ratio: value })) } : {}) })) };
      return { ...storm, upstream: { ...storm.upstream, errors: (storm.upstream.errors ?? []).map((e) => ({ ...e, ratio: value })) } };
    }
    default: {
      const key = name as "arrival_x" | "capacity_x" | "latency_x" | "error_x";
      return { ...storm, phases: phases.map((p) => (p[key] === undefined ? p : { ...p, [key]: value })) };
    }
  }
}
