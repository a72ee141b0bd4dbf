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
// The dispatcher as a service runs it: failbook-runtime's own build.
const runtime = await import(pathToFileURL(join(opts.root, "packages/runtime/dist/index.js")).href);
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
 * What the dispatcher adds over awaiting the attempt itself, on the shipped project: mean
 * per dispatch minus mean per bare await of the same attempt(s), after a warm-up.
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
  const succeeds = () => OK;
  const failsOnce = (_call, n) => (n === 1 ? TIMEOUT : OK);
  const context = { fallback: false };

  const check = await dispatcher.dispatch(call, failsOnce);
  if (check.outcome.kind !== "recovered" || check.outcome.verdict !== "transient_timeout") throw new Error(`the retry case did not retry: ${check.outcome.kind} ${check.outcome.verdict}`);

  async function mean(iterations, body) {
    for (let k = 0; k < Math.min(20000, iterations); k++) await body();
    globalThis.gc?.();
    const start = now();
    const cpuStart = cpuNow();
    for (let k = 0; k < iterations; k++) await body();
    return { wall: (now() - start) / iterations, cpu: (cpuNow() - cpuStart) / iterations };
  }
  const n = opts.iterations;
  const bare1 = await mean(n, async () => { await succeeds(call, 1, "k", context); });
  const bare2 = await mean(n, async () => { await failsOnce(call, 1, "k", context); await failsOnce(call, 2, "k", context); });
  // The same playbook with a breaker (that stays closed) guarding the call's tool and a retry budget (SPEC 18).
  const guarded = lib.createDispatcher({
    registry,
    playbook: { ...playbook, circuit_breakers: { crm: { tools: "crm.*", minimum_throughput: 1000000 } }, retry_budget: { percent: 20, min_concurrency: 3 } },
    clock: lib.virtualClock(),
    random: lib.seededRandom(0),
  });
  const row = async (c, attempt, bare, through = dispatcher) => {
    const total = await mean(n, () => through.dispatch(c, attempt));
    return { dispatchUs: total.wall, bareUs: bare.wall, overheadUs: total.wall - bare.wall, cpuOverheadUs: total.cpu - bare.cpu };
  };
  return {
    iterations: n,
    succeeds: await row(call, succeeds, bare1),
    ownKey: await row({ ...call, idempotency_key: "order-42-update" }, succeeds, bare1),
    retried: await row(call, failsOnce, bare2),
    policies: await row({ ...call, idempotency_key: "order-42-update" }, succeeds, bare1, guarded),
  };
}

const run = { "classify-library": classifyLibrary, "classify-generated": classifyGenerated, dispatch: dispatchOverhead }[which];
if (!run) throw new Error(`unknown micro-benchmark: ${which}`);
process.stdout.write(JSON.stringify(await run()) + "\n");
