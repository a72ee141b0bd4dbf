// npm run bench: every figure of SPEC section 11, measured on a generated project of 1,000
// and 10,000 codes (scripts/bench/generate.mjs) beside bare `node -e 0` and the shipped
// project. Prints one Markdown table and writes .bench/results.json.
//
//   node scripts/bench.mjs [--runs N] [--quick]
//
// Commands are whole processes, timed from spawn to exit; the figure is the median of N runs
// (default 5). A row whose runs pass ROW_BUDGET_MS stops repeating, and says how many runs it
// has. Micro-benchmarks run in child processes (scripts/bench/micro.mjs) against dist/.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { footprint } from "./bench/footprint.mjs";
import { writeProject } from "./bench/generate.mjs";
import { lspRows } from "./bench/lsp.mjs";
import { pythonRows } from "./bench/python.mjs";
import { replayLargeRegistryRow, replayRows, replayTable } from "./bench/replay.mjs";
import { STORM_CALLS, writeStormProject } from "./bench/storm.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
if (args.includes("--help")) {
  console.log("usage: node scripts/bench.mjs [--runs N] [--quick] [--replay-only | --python-only]\n  --python-only  only the failbook_runtime for Python rows (SPEC 25: against tenacity, and 10k fixtures against the TypeScript runtime)\n  --replay-only  only the failbook replay rows (SPEC 14; 1M-record corpora under .bench/replay/, one over the generated 10k-code project)\n  --runs N  runs per command, median reported (default 5; 1 with --quick)\n  --quick   one run each, fewer micro-benchmark iterations: a smoke test of the benchmark itself");
  process.exit(0);
}
const quick = args.includes("--quick");
const runsAt = args.indexOf("--runs");
const RUNS = runsAt >= 0 ? Number(args[runsAt + 1]) : quick ? 1 : 5;
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error("--runs needs a positive integer");
// On two shared cores a 45-second command repeated five times would dominate the run.
const ROW_BUDGET_MS = 60_000;
const TSC_TIMEOUT_MS = 600_000;
const MICRO = quick ? { count: 10_000, budgetMs: 3_000, iterations: 20_000 } : { count: 100_000, budgetMs: 20_000, iterations: 200_000 };
const SMALL = 1000;
const LARGE = 10000;
const bin = join(root, "bin/failbook.js");
const tsc = join(root, "node_modules/typescript/bin/tsc");
const pyright = join(root, "node_modules/pyright/index.js");
const ajvValidate = join(root, "scripts/bench/ajv-validate.mjs");
// Reports the process's own peak RSS and CPU time (user + system) at exit, without touching
// failbook's code. On a shared machine the CPU time says what the command cost when the
// wall-clock time says mostly how busy the other jobs kept the cores. The main thread's only:
// worker threads run the --import hook too, and one that ends early would report too soon.
const rssHook = `data:text/javascript,import{isMainThread}from"node:worker_threads";if(isMainThread)process.on("exit",()=>{const u=process.resourceUsage();process.stderr.write("\\nbench-maxrss-kb="+u.maxRSS+" bench-cpu-us="+(u.userCPUTime+u.systemCPUTime)+"\\n")})`;
const log = (line) => process.stderr.write(`bench: ${line}\n`);

// ---------------------------------------------------------------------------------------
// Measuring
// ---------------------------------------------------------------------------------------

/** One process, spawn to exit. Output is kept in memory: simulate at 10k prints megabytes. */
function spawnNode(argv, cwd, timeout) {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ["--import", rssHook, ...argv], { cwd, encoding: "utf8", maxBuffer: 1 << 30, timeout, env: { ...process.env, NO_COLOR: "1" } });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const m = /bench-maxrss-kb=(\d+) bench-cpu-us=(\d+)/.exec(r.stderr ?? "");
  const status = r.error?.code === "ETIMEDOUT" ? "timeout" : (r.status ?? r.signal ?? "?");
  return { ms, rssMb: m ? Number(m[1]) / 1024 : undefined, cpuMs: m ? Number(m[2]) / 1000 : undefined, status, stderr: r.stderr ?? "" };
}

/** Median of up to `runs` runs; `prepare` runs before each (untimed). */
function measure(name, argv, cwd, { runs = RUNS, prepare, timeout } = {}) {
  const times = [];
  const cpu = [];
  let rssMb = 0;
  let status = 0;
  let spent = 0;
  while (times.length < runs && (times.length === 0 || spent + spent / times.length <= ROW_BUDGET_MS)) {
    prepare?.();
    const r = spawnNode(argv, cwd, timeout);
    times.push(r.ms);
    if (r.cpuMs !== undefined) cpu.push(r.cpuMs);
    spent += r.ms;
    rssMb = Math.max(rssMb, r.rssMb ?? 0);
    if (r.status !== 0) status = r.status;
  }
  const median = (values) => {
    const v = [...values].sort((a, b) => a - b);
    return v.length === 0 ? undefined : v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  };
  times.sort((a, b) => a - b);
  const ms = median(times);
  const cpuMs = median(cpu);
  log(`${name}: ${fmtMs(ms)}${cpuMs === undefined ? "" : `, CPU ${fmtMs(cpuMs)}`} (${times.length} run${times.length > 1 ? "s" : ""}), exit ${status}`);
  return { ms, minMs: times[0], cpuMs, runs: times.length, rssMb, status };
}

/**
 * Two commands in turns, `runs` rounds (the order swapped each round): the median of each
 * round's wall-time ratio a ÷ b, which a machine whose speed drifts disturbs less than a
 * ratio of medians. Issue 38: a row held against a reference is measured in one sitting.
 */
function alternate(name, a, b, cwd, runs = RUNS) {
  const ratios = [];
  const times = { a: [], b: [] };
  for (let i = 0; i < runs; i++) {
    const order = i % 2 === 0 ? ["a", "b"] : ["b", "a"];
    const r = {};
    for (const k of order) r[k] = spawnNode(k === "a" ? a : b, cwd);
    times.a.push(r.a.ms);
    times.b.push(r.b.ms);
    ratios.push(r.a.ms / r.b.ms);
  }
  const median = (values) => {
    const v = [...values].sort((x, y) => x - y);
    return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  };
  const out = { ratio: median(ratios), aMs: median(times.a), bMs: median(times.b), runs };
  log(`${name}: ${out.ratio.toFixed(2)}× (${fmtMs(out.aMs)} ÷ ${fmtMs(out.bMs)}, median of ${runs} alternating rounds' ratios)`);
  return out;
}

/** A micro-benchmark child; its JSON result, or the reason it failed. */
function micro(which, options) {
  const r = spawnSync(process.execPath, ["--expose-gc", join(root, "scripts/bench/micro.mjs"), which, JSON.stringify({ root, ...options })], { cwd: root, encoding: "utf8", maxBuffer: 1 << 26 });
  if (r.status !== 0) {
    const reason = (r.stderr || r.error?.message || `exit ${r.status}`).trim().split("\n").slice(-3).join(" ");
    log(`${which}: failed: ${reason}`);
    return { failed: reason };
  }
  try {
    const result = JSON.parse(r.stdout);
    log(`${which}: ${JSON.stringify(result)}`);
    return result;
  } catch {
    return { failed: `no JSON result: ${r.stdout.slice(0, 80)}` };
  }
}

/** Rebuild when a source is newer than dist/: the micro-benchmarks import dist/index.js. */
function ensureBuild() {
  const newest = (dir) => readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile()).reduce((t, e) => Math.max(t, statSync(join(e.parentPath ?? e.path, e.name)).mtimeMs), 0);
  const built = ["dist/index.js", "dist/bundle/cli.cjs"].map((f) => {
    try {
      return statSync(join(root, f)).mtimeMs;
    } catch {
      return 0;
    }
  });
  if (Math.min(...built) >= Math.max(newest(join(root, "src")), newest(join(root, "packages/runtime/src")), newest(join(root, "schemas")))) return;
  log("dist/ is older than src/: building first");
  const r = spawnSync(process.execPath, [join(root, "scripts/build.mjs")], { cwd: root, stdio: ["ignore", 2, 2] });
  if (r.status !== 0) log(`the build exited ${r.status}; measuring what it emitted`);
}

// ---------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------

const started = Date.now();
const loadAtStart = os.loadavg()[0];
ensureBuild();
const replayBench = () => replayRows({ root, bin, measure, quick, log, fmtMs });
const replayLargeBench = (dir) => replayLargeRegistryRow({ root, bin, measure, quick, log, fmtMs, dir, codes: LARGE });
if (args.includes("--replay-only")) {
  const { rows } = await replayBench();
  rows.push((await replayLargeBench(writeProject(root, LARGE).dir)).row);
  const header = `failbook bench --replay-only, ${new Date().toISOString().slice(0, 10)}: node ${process.version}, ${os.cpus()[0]?.model?.trim()}, ${os.cpus().length} cores (load ${loadAtStart.toFixed(1)} at start); median of ${RUNS} run${RUNS > 1 ? "s" : ""}`;
  console.log(replayTable(rows, header));
  process.exit(0);
}
if (args.includes("--python-only")) {
  const { rows } = pythonRows({ root, bin, dir: writeProject(root, LARGE).dir, runs: RUNS, quick, log, fmtMs, fmtUs, alternate });
  console.log(`failbook bench --python-only, ${new Date().toISOString().slice(0, 10)}: ${os.cpus().length} cores (load ${loadAtStart.toFixed(1)} at start)\n`);
  console.log(["| figure | measured | target |  | CPU |", "| --- | ---: | --- | :-: | ---: |", ...rows.map((r) => `| ${r.row} | ${r.figure} | ${r.target} | ${r.pass === null ? "" : r.pass ? "✓" : "✗"} | ${r.cpuMs === undefined ? (r.cpuUs === undefined ? "" : fmtUs(r.cpuUs)) : fmtMs(r.cpuMs)} |`)].join("\n"));
  process.exit(0);
}
const dirs = {};
for (const n of [SMALL, LARGE]) {
  const t = Date.now();
  const p = writeProject(root, n);
  dirs[n] = p.dir;
  log(`generated ${p.codes} codes, ${p.rules} rules, ${p.fixtures} fixtures in ${Date.now() - t} ms`);
}

const base = measure("node -e 0", ["-e", "0"], root);
const version = measure("failbook --version", [bin, "--version"], root);
const lintShipped = measure("failbook lint (shipped)", [bin, "lint"], root);
// Issue 38: each ratio to the base in one sitting, round by round (two medians taken minutes
// apart read 1.18× and 2.37× for the same build on this host).
const overBase = {
  version: alternate("failbook --version ÷ node -e 0", [bin, "--version"], ["-e", "0"], root, RUNS * 4),
  lintShipped: alternate("failbook lint (shipped) ÷ node -e 0", [bin, "lint"], ["-e", "0"], root, RUNS * 4),
};
const cmd = { lint: {}, simulate: {}, gen: {}, tsc: {} };
const bindings = (n) => join(dirs[n], "generated/failbook.ts");
for (const n of [SMALL, LARGE]) {
  cmd.lint[n] = measure(`lint ${n}`, [bin, "lint"], dirs[n]);
  cmd.simulate[n] = measure(`simulate ${n}`, [bin, "simulate"], dirs[n]);
  // gen ts rewrites only a changed file: remove it first, so every run generates and writes.
  cmd.gen[n] = measure(`gen ts ${n}`, [bin, "gen", "ts", "--out", bindings(n)], dirs[n], { prepare: () => rmSync(bindings(n), { force: true }) });
}
// Issue 38: lint against a schema-only check of the same registry (ajv 8, as ajv-cli runs it).
const lintOverAjv = alternate("lint 10k ÷ ajv validate", [bin, "lint"], [ajvValidate, join(root, "schemas/registry.schema.json"), "playbooks/registry.yaml"], dirs[LARGE]);
// Issue 38: pyright --strict on the 10k-code Python bindings (one run, as tsc).
const pyDir = join(dirs[LARGE], "generated/py");
mkdirSync(pyDir, { recursive: true });
spawnNode([bin, "gen", "py", "--out", join(pyDir, "failbook_generated.py")], dirs[LARGE]);
writeFileSync(join(pyDir, "pyrightconfig.json"), JSON.stringify({ typeCheckingMode: "strict", pythonVersion: "3.9", reportMissingModuleSource: false }));
const pyrightLarge = measure("pyright --strict 10k", [pyright, "--project", join(pyDir, "pyrightconfig.json")], pyDir, { runs: 1, timeout: TSC_TIMEOUT_MS });
for (const n of [SMALL, LARGE]) {
  // One run: at 10k this takes a minute or more today.
  const argv = [tsc, "--strict", "--noEmit", "--target", "es2020", "--module", "esnext", "--moduleResolution", "bundler", "--skipLibCheck", bindings(n)];
  cmd.tsc[n] = measure(`tsc ${n}`, argv, dirs[n], { runs: 1, timeout: TSC_TIMEOUT_MS });
}
const classifyLib = micro("classify-library", { size: LARGE, count: MICRO.count, budgetMs: MICRO.budgetMs });
const classifyGen = micro("classify-generated", { size: LARGE, count: MICRO.count, budgetMs: MICRO.budgetMs, bindings: bindings(LARGE) });
const dispatch = micro("dispatch", { iterations: MICRO.iterations });
// SPEC 19: a million calls (1,000 clients, 10 minutes of virtual time), spawn to exit.
const storm = measure("storm 1M calls", [bin, "storm"], writeStormProject(root), { runs: Math.min(RUNS, 3) });
// SPEC 23: the same million calls, each client's retry quota the fleet's, synced through the simulated store every 250 ms.
const stormStore = measure("storm 1M calls, shared: store", [bin, "storm"], writeStormProject(root, { store: true }), { runs: Math.min(RUNS, 3) });
const replay = await replayBench();
const replayLarge = await replayLargeBench(dirs[LARGE]);
const lsp = await lspRows({ bin, dir: dirs[LARGE], runs: RUNS, log, fmtMs });

// ---------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------

function fmtMs(ms) {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`;
}
function fmtUs(us) {
  return `${us >= 100 ? us.toFixed(0) : us.toFixed(2)} µs`;
}
const mark = (ok) => (ok ? "✓" : "✗");
const runsNote = (m) => (m.runs < RUNS ? ` (${m.runs} run${m.runs > 1 ? "s" : ""})` : "");
const rows = [];

rows.push({ row: "`node -e 0` (the base)", value: base.ms, figure: fmtMs(base.ms), target: "—", pass: null, cpuMs: base.cpuMs, rssMb: base.rssMb, exit: base.status });
for (const [label, m, over, limit] of [
  ["`failbook --version` ÷ base (alternating)", version, overBase.version, 1.5],
  ["`failbook lint`, shipped project ÷ base (alternating)", lintShipped, overBase.lintShipped, 2.0],
]) {
  const x = over.ratio;
  rows.push({ row: label, value: x, figure: `${x.toFixed(2)}× (${fmtMs(over.aMs)} ÷ ${fmtMs(over.bMs)})`, target: `≤ ${limit.toFixed(1)}×`, pass: x <= limit && m.status === 0, cpuMs: m.cpuMs, rssMb: m.rssMb, exit: m.status });
}
for (const [key, label, limitMs, rssLimit] of [
  ["lint", "`failbook lint`, 10k codes / 20k rules + 10k fixtures", 1000, 300],
  ["simulate", "`failbook simulate`, 10k fixtures", 2000],
  ["gen", "`failbook gen ts`, 10k codes", 1000],
]) {
  const [small, large] = [cmd[key][SMALL], cmd[key][LARGE]];
  const ratio = large.ms / small.ms;
  const rssOk = rssLimit === undefined || large.rssMb <= rssLimit;
  rows.push({
    row: label,
    value: large.ms,
    figure: fmtMs(large.ms) + runsNote(large),
    target: `≤ ${fmtMs(limitMs)}${rssLimit ? `, RSS ≤ ${rssLimit} MB` : ""}`,
    pass: large.ms <= limitMs && rssOk && large.status === 0,
    at1k: fmtMs(small.ms),
    ratio: { value: ratio, pass: ratio <= 12 },
    cpuMs: large.cpuMs,
    rssMb: large.rssMb,
    rssPass: rssLimit === undefined ? null : rssOk,
    exit: large.status,
  });
}
{
  const [small, large] = [cmd.tsc[SMALL], cmd.tsc[LARGE]];
  rows.push({ row: "`tsc --strict --noEmit`, 10k-code bindings (1 run)", value: large.ms, figure: fmtMs(large.ms), target: "≤ 10 s, exit 0", pass: large.ms <= 10_000 && large.status === 0, at1k: `${fmtMs(small.ms)}, exit ${small.status}`, cpuMs: large.cpuMs, rssMb: large.rssMb, exit: large.status });
}
rows.push({ row: "`pyright --strict`, 10k-code Python bindings (`gen py`; 1 run)", value: pyrightLarge.ms, figure: fmtMs(pyrightLarge.ms), target: "≤ 60 s, exit 0", pass: pyrightLarge.ms <= 60_000 && pyrightLarge.status === 0, cpuMs: pyrightLarge.cpuMs, rssMb: pyrightLarge.rssMb, exit: pyrightLarge.status });
rows.push({ row: "`failbook lint`, 10k codes ÷ ajv's schema-only validation of the registry (alternating)", value: lintOverAjv.ratio, figure: `${lintOverAjv.ratio.toFixed(2)}× (${fmtMs(lintOverAjv.aMs)} ÷ ${fmtMs(lintOverAjv.bMs)})`, target: "≤ 1.0×", pass: lintOverAjv.ratio <= 1.0 });
for (const [label, r, limit] of [
  ["library `classify()`, 10k codes, mean per call", classifyLib, 1],
  ["generated `classify()`, 10k codes, mean per call", classifyGen, 2],
]) {
  const covered = r.failed ? "" : r.truncated ? ` (${r.calls.toLocaleString("en-US")} of ${r.of.toLocaleString("en-US")} calls: time budget)` : ` (${r.calls.toLocaleString("en-US")} calls)`;
  rows.push({ row: label, value: r.meanUs ?? null, figure: r.failed ? `failed: ${r.failed.slice(0, 120)}` : fmtUs(r.meanUs) + covered, target: `≤ ${limit} µs`, pass: !r.failed && r.meanUs <= limit, cpuUs: r.cpuMeanUs });
}
for (const [label, key, limit] of [
  ["`dispatch()` overhead, call succeeds first time (shipped project)", "succeeds", 3],
  ["`dispatch()` overhead, call brings its own `idempotency_key`", "ownKey", 1],
  ["`dispatch()` overhead, one failure classified and retried (virtual clock)", "retried", 6],
]) {
  const r = dispatch.failed ? undefined : dispatch[key];
  rows.push({ row: label, value: r?.overheadUs ?? null, figure: r ? fmtUs(r.overheadUs) : `failed: ${dispatch.failed.slice(0, 120)}`, target: `≤ ${limit} µs`, pass: r !== undefined && r.overheadUs <= limit, cpuUs: r?.cpuOverheadUs });
}
{
  // SPEC 18: the own-key dispatch against cockatiel's retry policy timed in the same process,
  // and what a breaker and a retry budget that stay closed add to it; each the median over the
  // rounds of a difference within one round.
  const r = dispatch.failed ? undefined : dispatch;
  const failed = () => `failed: ${dispatch.failed.slice(0, 120)}`;
  rows.push({ row: "cockatiel `retry()` overhead, same attempt, same process (succeeds first time)", value: r?.cockatiel.overheadUs ?? null, figure: r ? fmtUs(r.cockatiel.overheadUs) : failed(), target: "—", pass: null, cpuUs: r?.cockatiel.cpuOverheadUs });
  const over = r?.ownKeyOverCockatiel;
  const signed = (us) => `${us >= 0 ? "+" : "−"}${fmtUs(Math.abs(us))}`;
  // SPEC 21's restated target: the trace id made from the key costs at most 0.1 µs over cockatiel; a caller's W3C trace id, only the key's secret scan (0.03 µs).
  rows.push({ row: "`dispatch()` own key, over cockatiel's `retry()`", value: over?.us ?? null, figure: over ? signed(over.us) : failed(), target: "≤ +0.1 µs", pass: over !== undefined && over.us <= 0.1, cpuUs: over?.cpuUs });
  const traced = r?.ownKeyTracedOverCockatiel;
  rows.push({ row: "`dispatch()` own key and the caller's `traceId` (the calls of one trace), over cockatiel's `retry()`", value: traced?.us ?? null, figure: traced ? signed(traced.us) : failed(), target: "≤ +0.03 µs", pass: traced !== undefined && traced.us <= 0.03, cpuUs: traced?.cpuUs });
  const fresh = r?.ownKeyFreshTraceOverCockatiel;
  rows.push({ row: "`dispatch()` own key and a new `traceId` each call, over cockatiel's `retry()`", value: fresh?.us ?? null, figure: fresh ? signed(fresh.us) : failed(), target: "≤ +0.03 µs", pass: fresh !== undefined && fresh.us <= 0.03, cpuUs: fresh?.cpuUs });
  const pacedAdded = r?.pacedAdded;
  rows.push({ row: "`dispatch()` own key, added by a rate limit's non-empty bucket", value: pacedAdded?.us ?? null, figure: pacedAdded ? signed(pacedAdded.us) : failed(), target: "≤ 0.1 µs", pass: pacedAdded !== undefined && pacedAdded.us <= 0.1, cpuUs: pacedAdded?.cpuUs });
  const fleetAdded = r?.fleetAdded;
  rows.push({ row: "`dispatch()` own key, added by `scope: fleet` on a retry budget, a rate limit and a breaker, over `scope: process` (SPEC 23)", value: fleetAdded?.us ?? null, figure: fleetAdded ? signed(fleetAdded.us) : failed(), target: "≤ 0.1 µs", pass: fleetAdded !== undefined && fleetAdded.us <= 0.1, cpuUs: fleetAdded?.cpuUs });
  const metered = r?.meteredAdded;
  rows.push({ row: "`dispatch()` own key, added by a registered OpenTelemetry MeterProvider (SPEC 24)", value: metered?.us ?? null, figure: metered ? signed(metered.us) : failed(), target: "≤ 0.3 µs", pass: metered !== undefined && metered.us <= 0.3, cpuUs: metered?.cpuUs });
  // Its split: the SDK's own `Histogram.record` (two attributes; right after the same un-metered dispatch, and in brackets after an await alone), and what is left, failbook's own part.
  const sdkRecord = r?.sdkRecordAfterDispatch;
  rows.push({ row: "`Histogram.record` of `@opentelemetry/sdk-metrics`, two attributes, after the un-metered dispatch (after an await alone)", value: sdkRecord?.us ?? null, figure: sdkRecord ? `${fmtUs(sdkRecord.us)} (${fmtUs(r.sdkHistogramRecord.us)})` : failed(), target: "—", pass: null, cpuUs: sdkRecord?.cpuUs });
  const own = r?.meteredOwn;
  rows.push({ row: "`dispatch()` own key, a registered MeterProvider's cost less the SDK's `record`: failbook's own part", value: own?.us ?? null, figure: own ? signed(own.us) : failed(), target: "≤ 0.1 µs", pass: own !== undefined && own.us <= 0.1, cpuUs: own?.cpuUs });
  const unmetered = r?.unmeteredAdded;
  rows.push({ row: "`dispatch()` own key, `@opentelemetry/api` loaded and no MeterProvider (SPEC 24)", value: unmetered?.us ?? null, figure: unmetered ? signed(unmetered.us) : failed(), target: "≤ 0.02 µs (nothing measurable)", pass: unmetered !== undefined && unmetered.us <= 0.02, cpuUs: unmetered?.cpuUs });
  const added = r?.policiesAdded;
  rows.push({ row: "`dispatch()` own key, added by a closed breaker and a retry budget", value: added?.us ?? null, figure: added ? fmtUs(added.us) : failed(), target: "≤ 0.2 µs", pass: added !== undefined && added.us <= 0.2, cpuUs: added?.cpuUs });
}

{
  // The cost per call, against the bare dispatch overhead of the row above: what the scheduler and the upstream model add.
  const perCallUs = storm.cpuMs === undefined ? undefined : (storm.cpuMs * 1000) / STORM_CALLS;
  const bare = dispatch.failed ? undefined : dispatch.ownKey?.overheadUs;
  const cost = perCallUs === undefined ? "" : `; ${fmtUs(perCallUs)} CPU a call${bare === undefined ? "" : ` (dispatch alone ${fmtUs(bare)})`}`;
  rows.push({ row: "`failbook storm`, 1,000 clients × 10 min (1M calls)", value: storm.ms, figure: fmtMs(storm.ms) + runsNote(storm) + cost, target: "≤ 10 s, RSS ≤ 300 MB", pass: storm.ms <= 10_000 && storm.rssMb <= 300 && storm.status === 0, cpuMs: storm.cpuMs, rssMb: storm.rssMb, rssPass: storm.rssMb <= 300, exit: storm.status });
}
rows.push({ row: "`failbook storm`, 1M calls, `shared: store` (1,000 clients syncing every 250 ms: 2.4M syncs)", value: stormStore.ms, figure: fmtMs(stormStore.ms) + runsNote(stormStore), target: "≤ 6 s, RSS ≤ 200 MB", pass: stormStore.ms <= 6_000 && stormStore.rssMb <= 200 && stormStore.status === 0, cpuMs: stormStore.cpuMs, rssMb: stormStore.rssMb, rssPass: stormStore.rssMb <= 200, exit: stormStore.status });
rows.push(...replay.rows, replayLarge.row);
rows.push(...lsp.rows);
// SPEC 25: failbook_runtime for Python against tenacity, and 10k fixtures against the TypeScript runtime.
const python = pythonRows({ root, bin, dir: dirs[LARGE], runs: RUNS, quick, log, fmtMs, fmtUs, alternate });
rows.push(...python.rows);

// SPEC 17: each package installed alone into an empty project, from its tarball.
const MB = 1024 * 1024;
const footprints = {};
for (const [name, dir, limitMb, limitPackages] of [
  ["failbook", root, 40, 100],
  ["failbook-runtime", join(root, "packages/runtime"), 1, 1],
]) {
  let f;
  try {
    f = footprints[name] = footprint(dir);
  } catch (e) {
    rows.push({ row: `\`${name}\` installed alone`, value: null, figure: `failed: ${String(e.message).slice(0, 120)}`, target: `≤ ${limitMb} MB, ≤ ${limitPackages} package${limitPackages > 1 ? "s" : ""}`, pass: false });
    continue;
  }
  const size = (bytes) => (bytes >= MB ? `${(bytes / MB).toFixed(1)} MB` : `${(bytes / 1024).toFixed(0)} kB`);
  rows.push({ row: `\`${name}\` tarball (npm pack)`, value: f.packedBytes, figure: `${size(f.packedBytes)} (${size(f.unpackedBytes)} unpacked)`, target: "—", pass: null });
  rows.push({
    row: `\`${name}\` installed alone into an empty project`,
    value: f.installedBytes,
    figure: `${size(f.installedBytes)}, ${f.packages} package${f.packages > 1 ? "s" : ""}`,
    target: `≤ ${limitMb} MB, ≤ ${limitPackages} package${limitPackages > 1 ? "s" : ""}`,
    pass: f.installedBytes <= limitMb * MB && f.packages <= limitPackages,
  });
}

const cpu = os.cpus()[0]?.model?.trim() ?? "unknown CPU";
const date = new Date().toISOString().slice(0, 10);
const header = `failbook bench, ${date}: node ${process.version}, ${process.platform}/${process.arch}, ${cpu}, ${os.cpus().length} cores (load ${loadAtStart.toFixed(1)} at start); median of ${RUNS} run${RUNS > 1 ? "s" : ""}${quick ? ", --quick" : ""}`;
const line = (cols) => `| ${cols.join(" | ")} |`;
const table = [
  line(["figure", "measured", "target", "", "1k", "10k ÷ 1k (≤ 12)", "CPU", "peak RSS", "exit"]),
  line(["---", "---:", "---", ":-:", "---:", "---:", "---:", "---:", ":-:"]),
  ...rows.map((r) =>
    line([
      r.row,
      r.figure,
      r.target,
      r.pass === null ? "" : mark(r.pass),
      r.at1k ?? "",
      r.ratio ? `${r.ratio.value.toFixed(1)} ${mark(r.ratio.pass)}` : "",
      r.cpuMs === undefined ? (r.cpuUs === undefined ? "" : fmtUs(r.cpuUs)) : fmtMs(r.cpuMs),
      r.rssMb === undefined ? "" : `${r.rssMb.toFixed(0)} MB${r.rssPass == null ? "" : ` ${mark(r.rssPass)}`}`,
      r.exit === undefined ? "" : String(r.exit),
    ]),
  ),
];
const totalS = (Date.now() - started) / 1000;
console.log(`${header}\n\n${table.join("\n")}\n\n(bench took ${totalS.toFixed(0)} s)`);

mkdirSync(join(root, ".bench"), { recursive: true });
const meta = { date, node: process.version, platform: `${process.platform}/${process.arch}`, cpu, cores: os.cpus().length, loadAtStart, runs: RUNS, quick, rowBudgetMs: ROW_BUDGET_MS, seconds: totalS };
writeFileSync(join(root, ".bench/results.json"), JSON.stringify({ meta, rows, raw: { base, version, lintShipped, commands: cmd, classifyLib, classifyGen, dispatch, storm, stormStore, replay: { ...replay.raw, largeRegistry: replayLarge.raw }, footprints, lsp: lsp.raw, pyright: pyrightLarge, lintOverAjv, python: python.raw } }, null, 2) + "\n");
