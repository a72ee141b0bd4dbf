/**
 * The work of `failbook storm`: a job is one storm, or one cell of a sweep, run under the
 * current playbook (and the baseline's, with `--against`). Jobs run in this thread, or on
 * worker threads (`--workers`); a shard (`--shard I/N`) runs the jobs whose index is I-1
 * modulo N. Results are put back in job order, so the report does not depend on which
 * thread ran what.
 */
import { cpus } from "node:os";
import { Worker } from "node:worker_threads";
import type { Loaded } from "../load/project.js";
import { UsageError } from "failbook-runtime/model/errors.js";
import type { Shard } from "../replay/shard.js";
import { VERDICTS, type SharingMode, type Storm, type StormVerdict } from "./model.js";
import { buildStormReport, regressionsOf, type ReportMeta, type StormEntry, type StormReport, type SweepAxis, type SweepCell, type SweepEntry } from "./report.js";
import { runStorm, type SeedSpread, type StormResult, type StormRules } from "./run.js";
import { sizeProblems } from "./size.js";
import { gridOf, operatingValue, withValue } from "./sweep.js";

/** What every job shares; plain data, so it crosses into a worker thread. */
export interface JobSetup {
  current: StormRules;
  baseline: StormRules | undefined;
  seed: number | undefined;
  /** `--seeds N`: run each job with N seeds from its own (or --seed's); 1 without. */
  seeds?: number;
  /** `--against shared:MODE`: the baseline is the same storm and playbook with its clients sharing so (SPEC 23). */
  againstShared?: SharingMode;
}

export interface Job {
  index: number;
  storm: Storm;
}

export interface JobResult {
  index: number;
  current: StormResult;
  baseline: StormResult | null;
}

export interface StormRunOptions {
  /** The storms, with the files they came from (as shown). */
  storms: { file: string; storm: Loaded<Storm> }[];
  setup: JobSetup;
  meta: ReportMeta;
  axes: SweepAxis[];
  shard?: Shard;
  workers?: number;
}

export const defaultWorkers = (): number => Math.max(1, cpus().length);

export async function runJob(setup: JobSetup, job: Job): Promise<JobResult> {
  const current = await runSeeds(job.storm, setup.current, setup);
  const mode = setup.againstShared;
  const baseline =
    mode !== undefined ? await runSeeds({ ...job.storm, clients: { ...job.storm.clients, shared: mode } }, setup.current, setup) : setup.baseline === undefined ? null : await runSeeds(job.storm, setup.baseline, setup);
  return { index: job.index, current, baseline };
}

/**
 * The storm under one playbook, once, or with `--seeds N` once a seed (its own, or --seed's,
 * and the N-1 after it): the result is the run of the first seed that reached the verdict
 * most seeds reach (the worse on a tie), with the spread.
 */
async function runSeeds(storm: Storm, rules: StormRules, setup: JobSetup): Promise<StormResult> {
  const first = setup.seed ?? storm.seed ?? 0;
  const count = setup.seeds ?? 1;
  if (count === 1) return runStorm(storm, rules, setup.seed === undefined ? {} : { seed: first });
  const runs: StormResult[] = [];
  for (let i = 0; i < count; i++) runs.push(await runStorm(storm, rules, { seed: (first + i) >>> 0 }));
  const spread = spreadOf(runs.map((r) => r.summary.verdict));
  return { ...runs.find((r) => r.summary.verdict === spread.verdict)!, seeds: spread };
}

export function spreadOf(verdicts: readonly StormVerdict[]): SeedSpread {
  const tally = Object.fromEntries(VERDICTS.map((v) => [v, verdicts.filter((x) => x === v).length])) as Record<StormVerdict, number>;
  // From worst to best, so that a tie goes to the worse verdict.
  const verdict = [...VERDICTS].reverse().reduce((best, v) => (tally[v] > tally[best] ? v : best), "metastable" as StormVerdict);
  return { count: verdicts.length, verdict, agree: tally[verdict], verdicts: Object.fromEntries(VERDICTS.filter((v) => tally[v] > 0).map((v) => [v, tally[v]])) };
}

/** Run every job (of the shard), and build the report. */
export async function runStorms(options: StormRunOptions): Promise<StormReport> {
  const { storms, axes, shard } = options;
  const grid = axes.length === 0 ? [] : gridOf(axes);
  const jobs: Job[] = [];
  const owner: number[] = [];
  const sweeps: SweepEntry[] = [];
  for (const [s, { file, storm }] of storms.entries()) {
    const operating = axes.map((a) => operatingValue(storm.value, a.name, options.setup.current.playbook));
    if (axes.length > 0) sweeps.push({ file, name: storm.value.name, axes, operating, cells: [], nearest_metastable: null });
    const cells = axes.length === 0 ? [[]] : grid;
    for (const values of cells) {
      const index = jobs.length;
      owner.push(s);
      jobs.push({ index, storm: values.reduce((acc, v, i) => withValue(acc, axes[i].name, v), storm.value) });
    }
  }
  checkSizes(options, jobs, owner, grid);
  const mine = shard === undefined ? jobs : jobs.filter((j) => j.index % shard.count === shard.index - 1);
  const results = await execute(options.setup, mine, options.workers ?? 1);
  const entries: StormEntry[] = [];
  for (const r of results) {
    const s = owner[r.index];
    if (axes.length > 0) sweeps[s].cells.push(cellOf(r, grid[r.index - s * grid.length]));
    else entries.push({ index: r.index, file: storms[s].file, name: r.current.storm, current: r.current, baseline: r.baseline, regressions: r.baseline === null ? [] : regressionsOf(r.current, r.baseline) });
  }
  return buildStormReport(options.meta, entries, sweeps, shard === undefined ? undefined : { ...shard, jobs: jobs.length });
}

/**
 * Every job obeys the bound a storm file does (storm-too-large), before any runs: a --sweep
 * cell can make the storm offer more calls or send more attempts, and so can the --against
 * playbook. The first too large is one located line.
 */
function checkSizes(options: StormRunOptions, jobs: readonly Job[], owner: readonly number[], grid: readonly number[][]): void {
  const { storms, axes, setup } = options;
  for (const job of jobs) {
    const s = owner[job.index];
    const where = axes.length === 0 ? "" : ` with --sweep ${axes.map((a, i) => `${a.name}=${grid[job.index - s * grid.length][i]}`).join(" ")}`;
    for (const [rules, under] of [[setup.current, ""], [setup.baseline, " under the --against playbook"]] as const) {
      if (rules === undefined) continue;
      const [problem] = sizeProblems(job.storm, rules.registry, rules.playbook);
      if (problem === undefined) continue;
      const pos = storms[s].storm.doc.locate(problem.path);
      throw new UsageError(`${pos.file}:${pos.line}:${pos.column}: storm ${job.storm.name}${where}${under} is too large to run (storm-too-large): ${problem.message}`);
    }
  }
}

function cellOf(r: JobResult, values: number[]): SweepCell {
  const { summary, checks } = r.current;
  return {
    index: r.index,
    values,
    verdict: summary.verdict,
    amplification: summary.amplification,
    success_ratio: summary.success_ratio,
    recovery_ms: summary.recovery_ms,
    p99_ms: summary.latency_ms.p99,
    failed_checks: checks.filter((c) => !c.passed).length,
    failed: checks.filter((c) => !c.passed).map((c) => `expect ${c.check} ${c.limit}: ${c.message}`),
    ...(r.current.seeds === undefined ? {} : { seeds: r.current.seeds }),
  };
}

async function execute(setup: JobSetup, jobs: Job[], workers: number): Promise<JobResult[]> {
  const threads = Math.min(workers, jobs.length);
  if (threads <= 1) {
    const out: JobResult[] = [];
    for (const job of jobs) out.push(await runJob(setup, job));
    return out;
  }
  // Beside this module: dist/storm/ when unbundled, dist/bundle/ (an entry of its own) when bundled.
  const url = new URL("./storm-worker.js", import.meta.url);
  const pool = Array.from({ length: threads }, () => new Worker(url, { workerData: setup }));
  const out: JobResult[] = [];
  let next = 0;
  try {
    await Promise.all(
      pool.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            const send = () => {
              if (next >= jobs.length) return resolve();
              worker.postMessage(jobs[next++]);
            };
            worker.on("message", (m: { result?: JobResult; error?: string; usage?: string }) => {
              if (m.usage !== undefined) return reject(new UsageError(m.usage));
              if (m.error !== undefined) return reject(new Error(`a storm worker failed: ${m.error}`));
              out.push(m.result!);
              send();
            });
            worker.on("error", reject);
            worker.on("exit", (code) => (code === 0 ? undefined : reject(new Error(`a storm worker exited with status ${code}`))));
            send();
          }),
      ),
    );
  } finally {
    await Promise.all(pool.map((w) => w.terminate()));
  }
  return out.sort((a, b) => a.index - b.index);
}
