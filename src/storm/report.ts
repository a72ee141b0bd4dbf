/**
 * The report of `failbook storm` (SPEC 19): each storm's result (and its baseline's, with
 * `--against`, and what regressed), or each sweep's map of verdicts with the margin from the
 * operating point to the nearest metastable cell. Built by one function from the results of
 * its jobs (a storm, or one cell of a sweep), so a shard's report holds some jobs, and the
 * merge of every shard's report is byte for byte the unsharded one.
 */
import { UsageError } from "failbook-runtime/model/errors.js";
import type { Shard } from "../replay/shard.js";
import { inertJson } from "failbook-runtime/util/inert.js";
import { mismatchOf, mismatchText } from "../util/shape.js";
import { STORM_REPORT } from "./report-shape.js";
import { VERDICTS, type StormVerdict } from "./model.js";
import type { SeedSpread, StormResult } from "./run.js";

export interface StormEntry {
  /** The job's index: the storm's position among the files. */
  index: number;
  file: string;
  name: string;
  current: StormResult;
  /** The same storm under the `--against` playbook, with the same seed; null without. */
  baseline: StormResult | null;
  /** What got worse from the baseline to the current playbook. */
  regressions: string[];
}

export interface SweepAxis {
  name: string;
  from: number;
  to: number;
  step: number;
  values: number[];
}

export interface SweepCell {
  /** The job's index (the cells of every storm, in order). */
  index: number;
  values: number[];
  verdict: StormVerdict;
  amplification: number;
  success_ratio: number;
  recovery_ms: number | null;
  p99_ms: number;
  failed_checks: number;
  /** Each failed expect: `expect recovers_within_ms 5000: did not recover...`. */
  failed: string[];
  /** With `--seeds N`: the spread of verdicts (this cell's figures are the first seed's that reached `verdict`). */
  seeds?: SeedSpread;
}

export interface SweepEntry {
  file: string;
  name: string;
  axes: SweepAxis[];
  /** The storm's own values of the swept figures: the operating point. */
  operating: number[];
  cells: SweepCell[];
  /** The metastable cell nearest the operating point (in steps), and how far it is on each axis; null when none is. */
  nearest_metastable: { values: number[]; margin: number[] } | null;
}

export interface StormReport {
  files: string[];
  /** `--sweep` as given; empty without. */
  sweep: string[];
  seed: number | null;
  /** `--seeds N`; 1 without. */
  seeds: number;
  against: string | null;
  storms: StormEntry[];
  sweeps: SweepEntry[];
  /** Only in one shard's report: which shard, of how many, out of how many jobs. */
  shard?: Shard & { jobs: number };
}

export interface ReportMeta {
  files: string[];
  sweep: string[];
  seed: number | null;
  seeds: number;
  against: string | null;
}

/** Put the report together: entries by job, sweep cells by job within their storm, the margins. */
export function buildStormReport(meta: ReportMeta, storms: StormEntry[], sweeps: SweepEntry[], shard?: Shard & { jobs: number }): StormReport {
  const sorted = [...storms].sort((a, b) => a.index - b.index);
  const maps = sweeps.map((s) => {
    const cells = [...s.cells].sort((a, b) => a.index - b.index);
    return { ...s, cells, nearest_metastable: shard === undefined ? nearestMetastable(s.axes, s.operating, cells) : null };
  });
  return { ...meta, storms: sorted, sweeps: maps, ...(shard === undefined ? {} : { shard }) };
}

export const formatStormJson = (report: StormReport): string => inertJson(report, 2) + "\n";

/** The metastable cell nearest the operating point, each axis measured in its steps. */
export function nearestMetastable(axes: readonly SweepAxis[], operating: readonly number[], cells: readonly SweepCell[]): SweepEntry["nearest_metastable"] {
  let best: SweepCell | undefined;
  let bestDistance = Infinity;
  for (const cell of cells) {
    if (cell.verdict !== "metastable") continue;
    const d = Math.hypot(...cell.values.map((v, i) => (v - operating[i]) / axes[i].step));
    if (d < bestDistance) {
      best = cell;
      bestDistance = d;
    }
  }
  if (best === undefined) return null;
  return { values: best.values, margin: best.values.map((v, i) => tidy(v - operating[i])) };
}

/** What got worse from `baseline` to `current`. */
export function regressionsOf(current: StormResult, baseline: StormResult): string[] {
  const out: string[] = [];
  const [c, b] = [current.summary, baseline.summary];
  if (VERDICTS.indexOf(c.verdict) > VERDICTS.indexOf(b.verdict)) out.push(`verdict ${b.verdict} -> ${c.verdict}`);
  if (c.success_ratio < b.success_ratio - 0.01) out.push(`success ratio ${b.success_ratio} -> ${c.success_ratio}`);
  if (c.amplification > b.amplification * 1.05 + 0.01) out.push(`amplification ${b.amplification} -> ${c.amplification}`);
  if (c.recovery_ms !== null && b.recovery_ms !== null && c.recovery_ms > b.recovery_ms + current.step_ms) out.push(`recovery ${b.recovery_ms} ms -> ${c.recovery_ms} ms`);
  if (c.latency_ms.p99 > b.latency_ms.p99 * 1.2 + 1) out.push(`p99 latency ${b.latency_ms.p99} ms -> ${c.latency_ms.p99} ms`);
  const [c429, b429] = [current.cost.rate_limits.upstream_429, baseline.cost.rate_limits.upstream_429];
  if (c429 > b429 * 1.05 + 10) out.push(`upstream 429s ${b429} -> ${c429}`);
  for (const check of current.checks) {
    const before = baseline.checks.find((x) => x.check === check.check);
    if (!check.passed && before?.passed) out.push(`expect ${check.check} passed, now fails`);
  }
  return out;
}

/** The report's exit status: 1 when an expect check fails or a verdict regressed. */
export function failed(report: StormReport): boolean {
  return report.storms.some((s) => s.current.checks.some((c) => !c.passed) || s.regressions.some((r) => r.startsWith("verdict "))) || report.sweeps.some((s) => s.cells.some((c) => c.failed_checks > 0));
}

/**
 * Add up the reports of all N shards of one run into the unsharded report. Each must be a
 * shard of the same run, hold only its own jobs, each once, and together every job: else one
 * usage error naming the file and the field, never a silently partial report.
 */
export function mergeStormReports(reports: { file: string; report: StormReport }[]): StormReport {
  if (reports.length === 0) throw new UsageError("storm merge needs the JSON reports of failbook storm --shard I/N --format json, one per shard");
  const first = reports[0].report;
  const meta: ReportMeta = { files: first.files, sweep: first.sweep, seed: first.seed, seeds: first.seeds, against: first.against };
  const sameRun = (r: StormReport) => JSON.stringify([r.files, r.sweep, r.seed, r.seeds, r.against, r.sweeps.map((w) => [w.file, w.name, w.axes, w.operating])]);
  const count = first.shard?.count;
  const seen = new Set<number>();
  for (const { file, report } of reports) {
    if (report.shard === undefined) throw new UsageError(`${file} is not a shard's report (it has no shard); give the reports of failbook storm --shard I/N --format json`);
    if (report.shard.count !== count || report.shard.jobs !== first.shard!.jobs || sameRun(report) !== sameRun(first)) {
      throw new UsageError(`${file} is from another run (other files, --sweep, --seed, --seeds, --against or shard count) than ${reports[0].file}; merge the shards of one run`);
    }
    if (seen.has(report.shard.index)) throw new UsageError(`${file}: shard ${report.shard.index}/${count} is given twice`);
    seen.add(report.shard.index);
  }
  const missing = Array.from({ length: count! }, (_, i) => i + 1).filter((i) => !seen.has(i));
  if (missing.length > 0) throw new UsageError(`shard${missing.length > 1 ? "s" : ""} ${missing.join(", ")} of ${count} missing; give every shard's report once`);
  const jobs = new Set<number>();
  for (const { file, report } of reports) checkJobs(file, report, jobs);
  if (jobs.size !== first.shard!.jobs) throw new UsageError(`the shards hold ${jobs.size} of the run's ${first.shard!.jobs} jobs (storms or sweep cells); give every shard's whole report`);
  const sweeps = first.sweeps.map((s, i) => ({ ...s, cells: reports.flatMap(({ report }) => report.sweeps[i].cells) }));
  return buildStormReport(meta, reports.flatMap(({ report }) => report.storms), sweeps);
}

/** Each job of a shard's report is one of its own, once (`jobs` gathers them over the shards); a cell sits where its index says. */
function checkJobs(file: string, report: StormReport, jobs: Set<number>): void {
  const shard = report.shard!;
  const where = (field: string, what: string) => new UsageError(`${file}: ${field} ${what}; give the reports of failbook storm --shard I/N --format json, as written`);
  const take = (index: number, field: string) => {
    if (index < 0 || index >= shard.jobs || index % shard.count !== shard.index - 1) throw where(`${field}.index`, `${index} is not a job of shard ${shard.index}/${shard.count}`);
    if (jobs.has(index)) throw where(`${field}.index`, `${index} is given twice`);
    jobs.add(index);
  };
  if (report.sweep.length > 0 && report.storms.length > 0) throw where("storms", "holds storms in the report of a sweep");
  if (report.sweep.length === 0 && report.sweeps.length > 0) throw where("sweeps", "holds a sweep in the report of a run without --sweep");
  report.storms.forEach((s, i) => take(s.index, `storms[${i}]`));
  report.sweeps.forEach((sweep, w) => {
    const size = sweep.axes.reduce((n, a) => n * a.values.length, 1);
    sweep.cells.forEach((cell, i) => {
      const field = `sweeps[${w}].cells[${i}]`;
      take(cell.index, field);
      const k = cell.index - w * size;
      const values = sweep.axes.map((a, j) => a.values[Math.floor(k / sweep.axes.slice(j + 1).reduce((n, b) => n * b.values.length, 1)) % a.values.length]);
      if (k < 0 || k >= size || JSON.stringify(values) !== JSON.stringify(cell.values)) throw where(`${field}.values`, `${JSON.stringify(cell.values)} are not the values of the sweep's cell ${cell.index}`);
    });
  });
}

/** A report read back from JSON (`storm merge`), in the shape the merge and the printers read. */
export function parseStormReport(text: string, file: string): StormReport {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`${file} is not JSON; give the reports of failbook storm --shard I/N --format json`);
  }
  const miss = mismatchOf(value, STORM_REPORT);
  if (miss !== undefined) throw new UsageError(`${file} is not a storm report as failbook storm --shard I/N --format json writes it: ${mismatchText(miss)}`);
  return value as StormReport;
}

/** Each expect that failed and each verdict that regressed, as a line naming the storm or the sweep's cell. */
export function failuresOf(report: StormReport): string[] {
  const out: string[] = [];
  for (const s of report.storms) {
    const storm = `storm ${s.name} (${s.file})`;
    for (const c of s.current.checks) if (!c.passed) out.push(`${storm}: expect ${c.check} ${c.limit} failed: ${c.message}`);
    for (const r of s.regressions) if (r.startsWith("verdict ")) out.push(`${storm}: ${r} against ${report.against}`);
  }
  for (const w of report.sweeps) {
    for (const cell of w.cells) {
      const at = w.axes.map((a, i) => `${a.name}=${cell.values[i]}`).join(" ");
      for (const f of cell.failed) out.push(`sweep ${w.name} (${w.file}) cell ${at}: ${f.replace(/^(expect \S+ \S+): /, "$1 failed: ")}`);
    }
  }
  return out;
}

/** A difference of two grid values without binary noise (0.1 + 0.2). */
export const tidy = (n: number): number => Math.round(n * 1e9) / 1e9;
