/**
 * One storm, run (SPEC 19): the scheduler, the upstream model and the fleet of dispatchers
 * on one virtual clock, for `duration_ms` of offered calls and as long again for the calls
 * still running to end; then the report. The same storm, rules and seed give the same
 * report, byte for byte.
 */
import { patternRedactor } from "../load/redaction.js";
import { seededRandom } from "failbook-runtime/engine/random.js";
import type { RulesData } from "../replay/setup.js";
import { Costs, type StormCost } from "./costs.js";
import { Fleet, streamSeed } from "./fleet.js";
import { DEFAULT_STEP_MS, type SharingMode, type Storm, type StormVerdict } from "./model.js";
import { lastPhaseEnd, Timeline } from "./phases.js";
import { Scheduler, TimeStopped } from "./scheduler.js";
import { UsageError } from "failbook-runtime/model/errors.js";
import { Series } from "./series.js";
import { bucketsOf, checkExpect, summarize, type ExpectCheck, type StormBucket, type StormSummary } from "./summary.js";
import { UpstreamModel } from "./upstream.js";
import { SimulatedStore, type StoreCost } from "./store.js";

/** The rules a storm runs under: a registry and playbook, and the config's `redact:` patterns (plain data, as a replay's). */
export type StormRules = RulesData;

export interface StormOptions {
  /** Overrides the file's seed (`--seed`). */
  seed?: number;
}

export interface StormResult {
  storm: string;
  seed: number;
  duration_ms: number;
  step_ms: number;
  clients: number;
  shared: SharingMode;
  playbook: string;
  /** With `shared: store`: the store's syncs, failures and outages. */
  store?: StoreCost;
  /** The trigger's phases, for charts. */
  phases: { from_ms: number; to_ms: number }[];
  summary: StormSummary;
  checks: ExpectCheck[];
  /** What the outage cost: outcomes by kind and reason, refused retries, breakers' open time. */
  cost: StormCost;
  buckets: StormBucket[];
  /** With `--seeds N`: the verdict most seeds reach, and how many reached each (this run is the first seed that reached it). */
  seeds?: SeedSpread;
}

export interface SeedSpread {
  count: number;
  verdict: StormVerdict;
  /** Seeds that reached `verdict`: `4/5 recovered`. */
  agree: number;
  /** Seeds per verdict reached. */
  verdicts: Partial<Record<StormVerdict, number>>;
}

export async function runStorm(storm: Storm, rules: StormRules, options: StormOptions = {}): Promise<StormResult> {
  const seed = options.seed ?? storm.seed ?? 0;
  const step = storm.step_ms ?? DEFAULT_STEP_MS;
  const duration = storm.duration_ms;
  const scheduler = new Scheduler();
  const series = new Series(duration, step);
  const timeline = new Timeline(storm);
  const upstream = new UpstreamModel(storm.upstream, timeline, seededRandom(streamSeed(seed, 1)), scheduler, series);
  const triggerEnd = lastPhaseEnd(storm.phases);
  const costs = new Costs(duration, triggerEnd);
  const store = storm.clients.shared === "store" ? new SimulatedStore(storm.clients.store, rules.playbook, scheduler, duration) : undefined;
  const fleet = new Fleet(storm, { registry: rules.registry, playbook: rules.playbook, redact: patternRedactor(rules.redact) }, scheduler, upstream, timeline, series, seededRandom(streamSeed(seed, 0)), seed, costs, store);
  fleet.start();
  // Far more events at one instant than a burst of every client could make: the storm's time has stopped.
  const maxAtOnce = 100_000 + 20 * storm.clients.count;
  try {
    await scheduler.run(2 * duration, () => fleet.failure !== undefined || (scheduler.now >= duration && fleet.inFlight === 0), maxAtOnce);
  } catch (e) {
    if (!(e instanceof TimeStopped)) throw e;
    throw new UsageError(
      `storm ${storm.name}: time stopped at ${Math.round(e.at)} ms (more than ${maxAtOnce.toLocaleString("en-US")} events at that instant): calls end at once and start again at once, as a closed loop with think_ms 0 whose calls are turned away without a retry does; set think_ms above 0`,
    );
  }
  if (fleet.failure !== undefined) throw fleet.failure;
  // A dispatch woken that never parked again ran off the virtual clock: its figures are not the storm's.
  if (scheduler.stalls > 0) throw new Error(`storm ${storm.name}: ${scheduler.stalls} dispatch(es) left the virtual clock (a failbook bug: please report it with the storm file and seed ${seed})`);
  series.finish();
  const buckets = bucketsOf(series);
  const summary = summarize(series, buckets, triggerEnd, fleet.inFlight);
  const cost = costs.result(Object.keys(rules.playbook.circuit_breakers ?? {}).sort(), fleet.dispatchersMade, upstream.answered429);
  return {
    storm: storm.name,
    seed,
    duration_ms: duration,
    step_ms: step,
    clients: storm.clients.count,
    shared: storm.clients.shared ?? "client",
    playbook: rules.playbook.name ?? "",
    ...(store === undefined ? {} : { store: store.result(fleet.dispatchers) }),
    phases: (storm.phases ?? []).map((p) => ({ from_ms: p.from_ms, to_ms: p.to_ms })),
    summary,
    checks: checkExpect(storm.expect, summary, buckets, step, cost.rate_limits),
    cost,
    buckets,
  };
}
