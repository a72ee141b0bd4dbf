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
import type { Storm } from "./model.js";
import { buildStormReport, regressionsOf, type ReportMeta, type StormEntry, type StormReport, type SweepAxis, type SweepCell, type SweepEntry } from "./report.js";
import { runStorm, type StormResult, type StormRules } from "./run.js";
import { sizeProblems } from "./size.js";
import { gridOf, operatingValue, withValue } from "./sweep.js";

/** What every job shares; plain data, so it crosses into a worker thread. */
export interface JobSetup {
  current: StormRules;
  baseline: StormRules | undefined;
  seed: number | undefined;
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
  const options = setup.seed === undefined ? {} : { seed: setup.seed };
  const current = await runStorm(job.storm, setup.current, options);
  const baseline = setup.baseline === undefined ? null : await runStorm(job.storm, setup.baseline, options);
  return { index: job.index, current, baseline };
}

/** Run every job (of the shard), and build the report. */
export async function runStorms(options: StormRunOptions): Promise<StormReport> {
  const { storms, axes, shard } = options;
  const grid = axes.length === 0 ? [] : gridOf(axes);
  const jobs: Job[] = [];
  const owner: number[] = [];
  const sweeps: SweepEntry[] = [];
  for (const [s, { file, storm }] of storms.entries()) {
    const operating = axes.map((a) => operatingValue(storm.value, a.name));
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
