// In-process micro-benchmarks for `npm run bench`, one per child process so that one's heap
// and JIT state do not colour another's. Prints one JSON object on stdout.
//   node scripts/bench/micro.mjs classify-library  '{"root":..,"size":10000,"count":100000,"budgetMs":20000}'
//   node scripts/bench/micro.mjs classify-generated '{"root":..,"size":10000,"count":100000,"budgetMs":20000,"bindings":"x.ts"}'
//   node scripts/bench/micro.mjs dispatch '{"root":..,"iterations":200000}'
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { catalogue, randomErrors, SEED } from "./generate.mjs";

const [which, json] = process.argv.slice(2);
const opts = JSON.parse(json ?? "{}");
const lib = await import(pathToFileURL(join(opts.root, "dist/index.js")).href);
// The dispatcher as a service runs it: failbook-runtime's own build (`"runtime": FILE` times another build of it, to compare two).
const runtime = await import(pathToFileURL(opts.runtime ?? join(opts.root, "packages/runtime/dist/index.js")).href);
const now = () => Number(process.hrtime.bigint()) / 1e3; // µs
/** CPU time (user + system) of this process, µs: beside the wall clock on a shared machine. */
const cpuNow = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** How many sets of fresh errors a classify figure is the median of (the host is shared: one pass can be slowed by a neighbour). */
const SETS = 5;

/**
 * Mean µs per call of `fn` over `count` random errors, the median over SETS sets, each of
 * errors never classified before (an adapter's errors are new objects: their strings are
 * hashed at their first lookup). A warm-up on part of the first set compiles the code. A
 * slow classifier at 10k codes would take minutes, so timing stops at `budgetMs` a set and
 * says how many calls it covered.
 */
function timeClassifierSets(fn, count, budgetMs) {
  const cat = catalogue(opts.size);
  const sets = [];
  for (let set = 0; set < SETS; set++) {
    const errors = randomErrors(cat, count, SEED + set);
    sets.push(timeClassifier(fn, errors, budgetMs, set === 0));
  }
  const median = (key) => sets.map((s) => s[key]).sort((a, b) => a - b)[Math.floor(sets.length / 2)];
  return { meanUs: median("meanUs"), cpuMeanUs: median("cpuMeanUs"), sets: sets.map((s) => Number(s.meanUs.toFixed(3))), calls: sets[0].calls, of: count, truncated: sets.some((s) => s.truncated), sink: sets.reduce((a, s) => a + s.sink, 0) };
}

/** Mean µs per call of `fn` over the errors, after a warm-up on the first of them when `warm`. */
function timeClassifier(fn, errors, budgetMs, warm) {
  let sink = 0;
  const warmUntil = now() + Math.min(2000, budgetMs / 10) * 1000;
  for (let k = 0; warm && k < Math.min(errors.length, 5000) && now() < warmUntil; k++) sink += fn(errors[k].error, errors[k].tool).length;
  // The loader's garbage (a 10k-code project parsed a moment ago) is collected before the
  // clock starts, so the figure is the classifier's, not a pause owed to the YAML parser.
  globalThis.gc?.();
  const start = now();
  const cpuStart = cpuNow();
  let calls = 0;
  while (calls < errors.length) {
    const end = Math.min(errors.length, calls + 500);
    for (; calls < end; calls++) sink += fn(errors[calls].error, errors[calls].tool).length;
    if (now() - start > budgetMs * 1000) break;
  }
  const elapsed = now() - start;
  const cpu = cpuNow() - cpuStart;
  return { meanUs: elapsed / calls, cpuMeanUs: cpu / calls, calls, of: errors.length, truncated: calls < errors.length, sink };
}

async function classifyLibrary() {
  const { project } = lib.loadProject({ cwd: join(opts.root, ".bench", String(opts.size)) });
  const registry = project.registry.value;
  return timeClassifierSets((error, tool) => lib.classify(registry, error, tool).verdict, opts.count, opts.budgetMs);
}

/** The generated module, transpiled as is (types stripped) and imported. */
async function classifyGenerated() {
  const ts = (await import("typescript")).default;
  const text = readFileSync(opts.bindings, "utf8");
  const started = now();
  const js = ts.transpileModule(text, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  const dir = join(opts.root, ".bench", "tmp");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `bindings-${opts.size}.mjs`);
  writeFileSync(file, js);
  const bindings = await import(pathToFileURL(file).href);
  const transpileMs = (now() - started) / 1000;
  return { ...timeClassifierSets((error, tool) => bindings.classify(error, { tool }), opts.count, opts.budgetMs), transpileMs };
}

/**
 * What the dispatcher adds over awaiting the attempt itself, on the shipped project, and what
 * cockatiel's retry policy adds over the same await (SPEC 18 holds the own-key dispatch to
 * it). The host is shared, so the bodies are timed in rounds, one block of each after
 * another, and every figure is the median over the rounds of a difference taken within one
 * round: a neighbour that slows a round slows both sides of its differences.
 */
async function dispatchOverhead() {
  const { project } = lib.loadProject({ cwd: opts.root });
  const registry = project.registry.value;
  const playbook = project.playbook.value;
  const dispatcher = runtime.createDispatcher({ registry, playbook, clock: runtime.virtualClock(), random: runtime.seededRandom(0) });
  // The shipped playbook has empty_response_is_failure: an ok needs a value to count as one.
  const OK = { status: "ok", value: { id: 1 } };
  const TIMEOUT = { status: "error", error: { kind: "timeout", message: "upstream took too long" } };
  const call = { id: "call_1", tool: "crm.update_record", args: { record: "r_1", fields: { stage: "won" } } };
  const ownKeyCall = { ...call, idempotency_key: "order-42-update" };
  // A key of its own that starts with 12 hex digits: its trace id is those digits, not a hash of the key (what the trace id costs).
  const hexKeyCall = { ...call, idempotency_key: "0af3c2d19b7e-order-42" };
  const succeeds = () => OK;
  // SPEC 21: a caller that passes its span's W3C trace-id; no hash of the key is made. The
  // calls of one trace share it; a service whose every call is a trace of its own brings a new one each time.
  const traced = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736" };
  const fresh = Array.from({ length: 1024 }, (_, i) => ({ traceId: (i + 1).toString(16).padStart(8, "0").repeat(4) }));
  let nextFresh = 0;
  const failsOnce = (_call, n) => (n === 1 ? TIMEOUT : OK);
  const context = { fallback: false };

  const check = await dispatcher.dispatch(call, failsOnce);
  if (check.outcome.kind !== "recovered" || check.outcome.verdict !== "transient_timeout") throw new Error(`the retry case did not retry: ${check.outcome.kind} ${check.outcome.verdict}`);

  // The same playbook with a breaker (that stays closed) guarding the call's tool and a retry budget (SPEC 18).
  const guarded = runtime.createDispatcher({
    registry,
    playbook: { ...playbook, circuit_breakers: { crm: { tools: "crm.*", minimum_throughput: 1000000 } }, retry_budget: { percent: 20, min_concurrency: 3 } },
    clock: runtime.virtualClock(),
    random: runtime.seededRandom(0),
  });
  // SPEC 22: the same playbook with a rate limit over the call's tool whose bucket never runs dry.
  const paced = runtime.createDispatcher({
    registry,
    playbook: { ...playbook, rate_limits: { crm: { tools: "crm.*", limit: { requests: 1000000000, per_ms: 1 } } } },
    clock: runtime.virtualClock(),
    random: runtime.seededRandom(0),
  });
  // SPEC 23: a retry budget, a rate limit whose bucket never runs dry and a breaker, with scope: process, and
  // the same with scope: fleet synced through an in-process stand-in store that answers at once
  // and grants a lease that never runs out; its timers never fire, so the one sync is the first
  // (before the timed loop): what is timed is the dispatch's cost in fleet mode, not the sync's.
  const shared = (scope) => ({
    ...playbook,
    fleet: { sync_ms: 250, lease_ms: 1000 },
    retry_budget: { percent: 20, min_concurrency: 3, scope },
    rate_limits: { crm: { tools: "crm.*", limit: { requests: 1000000000, per_ms: 1 }, scope } },
    circuit_breakers: { ...playbook.circuit_breakers, fleet_crm: { tools: "crm.*", scope } },
  });
  const standInStore = {
    sync: async (report) => ({
      now_ms: 0,
      instances: 1,
      budget: report.budget,
      rates: report.rates?.map((r) => ({ name: r.name, grant: 1e12, tokens: 1e12 })),
      breakers: report.breakers?.map((b) => ({ name: b.name, state: "closed", epoch: 0, gen: 0, left_ms: 0, break_ms: b.break_ms, probe: false, attempts: b.attempts, failures: b.failures, processes: 1, crossing: 0 })),
    }),
    time: async () => 0,
  };
  const stillTimers = { every: () => ({ stop() {} }), after: () => ({ restart() {}, stop() {} }) };
  const fleetProcess = runtime.createDispatcher({ registry, playbook: shared("process"), clock: runtime.virtualClock(), random: runtime.seededRandom(0) });
  const fleet = runtime.createDispatcher({ registry, playbook: shared("fleet"), clock: runtime.virtualClock(), random: runtime.seededRandom(0), fleet: { store: standInStore, instance: "bench", timers: stillTimers } });
  await new Promise((resolve) => setTimeout(resolve, 0));
  if (fleet.fleet?.mode !== "fleet" || fleet.fleet.syncs !== 1) throw new Error(`the fleet dispatcher did not sync with its stand-in store: ${JSON.stringify(fleet.fleet)}`);
  // SPEC 24: the same dispatcher with an OpenTelemetry MeterProvider registered (the SDK's, with
  // a reader that never exports in the timed loop): what recording the metrics adds.
  const { metrics } = await import("@opentelemetry/api");
  const { MeterProvider, PeriodicExportingMetricReader, InMemoryMetricExporter, AggregationTemporality } = await import("@opentelemetry/sdk-metrics");
  const meterProvider = new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), exportIntervalMillis: 3_600_000 })] });
  metrics.setGlobalMeterProvider(meterProvider);
  const metered = runtime.createDispatcher({ registry, playbook, clock: runtime.virtualClock(), random: runtime.seededRandom(0) });
  // The SDK's own `Histogram.record` on the same MeterProvider, with the attribute set the
  // metered dispatch records its duration with (a meter of its own, the same instrument
  // options): how much of `meteredAdded` is the SDK's and how much failbook's.
  const sdkHistogram = meterProvider.getMeter("failbook-bench").createHistogram("failbook.dispatch.duration", { unit: "s", advice: { explicitBucketBoundaries: [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10] } });
  const sdkAttributes = Object.freeze({ "failbook.tool": call.tool, "failbook.outcome": "succeeded" });
  metrics.disable();
  // The API loaded but no MeterProvider registered (made after `disable()`): what the metrics cost a service that has none.
  const unmetered = runtime.createDispatcher({ registry, playbook, clock: runtime.virtualClock(), random: runtime.seededRandom(0) });
  // cockatiel's retry policy, made once as a service makes it, on the same attempt.
  const { retry, handleAll, ExponentialBackoff } = await import("cockatiel");
  const cockatiel = retry(handleAll, { maxAttempts: 3, backoff: new ExponentialBackoff() });

  const allBodies = {
    bare1: async () => { await succeeds(call, 1, "k", context); },
    sdkRecord: async () => { await succeeds(call, 1, "k", context); sdkHistogram.record(0, sdkAttributes); },
    bare2: async () => { await failsOnce(call, 1, "k", context); await failsOnce(call, 2, "k", context); },
    succeeds: () => dispatcher.dispatch(call, succeeds),
    ownKey: () => dispatcher.dispatch(ownKeyCall, succeeds),
    ownKeyTraced: () => dispatcher.dispatch(ownKeyCall, succeeds, traced),
    ownKeyFreshTrace: () => dispatcher.dispatch(ownKeyCall, succeeds, fresh[nextFresh++ & 1023]),
    hexKey: () => dispatcher.dispatch(hexKeyCall, succeeds),
    retried: () => dispatcher.dispatch(call, failsOnce),
    policies: () => guarded.dispatch(ownKeyCall, succeeds),
    paced: () => paced.dispatch(ownKeyCall, succeeds),
    fleetProcess: () => fleetProcess.dispatch(ownKeyCall, succeeds),
    fleet: () => fleet.dispatch(ownKeyCall, succeeds),
    metered: () => metered.dispatch(ownKeyCall, succeeds),
    unmetered: () => unmetered.dispatch(ownKeyCall, succeeds),
    // The un-metered dispatch, then the SDK's record made by hand: the record where a dispatch has just run (its caches, not a loop's);
    // and the metered dispatch in the same wrapper, for failbook's own part.
    ownKeyAwaited: async () => { await dispatcher.dispatch(ownKeyCall, succeeds); },
    ownKeyRecord: async () => { await dispatcher.dispatch(ownKeyCall, succeeds); sdkHistogram.record(0, sdkAttributes); },
    meteredAwaited: async () => { await metered.dispatch(ownKeyCall, succeeds); },
    cockatiel: () => cockatiel.execute(succeeds),
  };
  const bodies = opts.only ? Object.fromEntries(opts.only.map((k) => [k, allBodies[k]])) : allBodies;
  const n = opts.iterations;
  const rounds = opts.rounds ?? 7;
  const perRound = Math.max(1, Math.floor(n / rounds));
  // Warm up, collect the loader's garbage, warm up again: a full collection frees the maps of
  // objects no longer alive (a finished dispatch's), and V8 then drops the optimised code that
  // relied on them. No collection is forced between the rounds.
  const warm = async () => {
    for (const body of Object.values(bodies)) for (let k = 0; k < Math.min(20000, n); k++) await body();
  };
  await warm();
  globalThis.gc?.();
  await warm();
  const timed = Object.fromEntries(Object.keys(bodies).map((name) => [name, []]));
  for (let r = 0; r < rounds; r++) {
    for (const [name, body] of Object.entries(bodies)) {
      const start = now();
      const cpuStart = cpuNow();
      for (let k = 0; k < perRound; k++) await body();
      timed[name].push({ wall: (now() - start) / perRound, cpu: (cpuNow() - cpuStart) / perRound });
    }
  }
  // `"only": ["bare1", "ownKey"]` times just those bodies and reports each round's CPU µs a call (for profiling).
  if (opts.only) return Object.fromEntries(Object.entries(timed).map(([k, v]) => [k, v.map((t) => Number(t.cpu.toFixed(2)))]));
  const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)];
  /** The median over the rounds of `a` minus `b`, wall clock and CPU. */
  const less = (a, b) => ({
    wall: median(timed[a].map((t, r) => t.wall - timed[b][r].wall)),
    cpu: median(timed[a].map((t, r) => t.cpu - timed[b][r].cpu)),
  });
  const row = (name, bare) => {
    const over = less(name, bare);
    return { dispatchUs: median(timed[name].map((t) => t.wall)), bareUs: median(timed[bare].map((t) => t.wall)), overheadUs: over.wall, cpuOverheadUs: over.cpu };
  };
  const delta = (a, b) => {
    const d = less(a, b);
    return { us: d.wall, cpuUs: d.cpu };
  };
  return {
    iterations: perRound * rounds,
    rounds,
    succeeds: row("succeeds", "bare1"),
    ownKey: row("ownKey", "bare1"),
    hexKey: row("hexKey", "bare1"),
    retried: row("retried", "bare2"),
    policies: row("policies", "bare1"),
    cockatiel: row("cockatiel", "bare1"),
    // SPEC 21: the own-key dispatch against cockatiel (≤ +0.1 µs), and what a closed breaker and budget add to it (≤ 0.2 µs).
    ownKeyOverCockatiel: delta("ownKey", "cockatiel"),
    // SPEC 21: with the caller's trace id, at most cockatiel plus the key's secret scan (≤ 0.03 µs).
    ownKeyTracedOverCockatiel: delta("ownKeyTraced", "cockatiel"),
    ownKeyFreshTraceOverCockatiel: delta("ownKeyFreshTrace", "cockatiel"),
    policiesAdded: delta("policies", "ownKey"),
    // SPEC 22: what taking a token of a non-empty bucket adds (≤ 0.1 µs).
    pacedAdded: delta("paced", "ownKey"),
    // SPEC 23: what scope: fleet on the budget, the rate limit and a breaker adds over scope: process (≤ 0.1 µs).
    fleetAdded: delta("fleet", "fleetProcess"),
    // SPEC 24: what a registered MeterProvider adds (≤ 0.3 µs).
    meteredAdded: delta("metered", "ownKey"),
    // Its reference, the SDK's `Histogram.record` with the same two attributes: over an await alone, and
    // right after the same un-metered dispatch; and failbook's own part, the metered dispatch less that dispatch and record.
    sdkHistogramRecord: delta("sdkRecord", "bare1"),
    sdkRecordAfterDispatch: delta("ownKeyRecord", "ownKeyAwaited"),
    meteredOwn: delta("meteredAwaited", "ownKeyRecord"),
    // SPEC 24: with the API loaded and no MeterProvider, nothing measurable (≈ 0).
    unmeteredAdded: delta("unmetered", "ownKey"),
    // What hashing a key that does not start with 12 hex digits into its trace id adds.
    traceHash: delta("ownKey", "hexKey"),
  };
}

const run = { "classify-library": classifyLibrary, "classify-generated": classifyGenerated, dispatch: dispatchOverhead }[which];
if (!run) throw new Error(`unknown micro-benchmark: ${which}`);
process.stdout.write(JSON.stringify(await run()) + "\n");
