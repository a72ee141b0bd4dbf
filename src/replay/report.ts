/**
 * The replay report (SPEC 14): built from a tally, printed as text, Markdown (a pull-request
 * comment) or JSON, and merged from the JSON reports of shards. The JSON of a merge of all
 * shards is byte for byte the JSON of the unsharded replay: both are built by `buildReport`
 * from a tally, and tallies add up whatever the order.
 */
import type { Colors } from "../util/colors.js";
import { UsageError } from "failbook-runtime/model/errors.js";
import { setOwn } from "failbook-runtime/model/json.js";
import { mdCell, mdCode } from "../util/escape.js";
import { inertJson } from "failbook-runtime/util/inert.js";
import { plural } from "../util/text.js";
import { checkReportShape } from "./report-shape.js";
import type { Shard } from "./shard.js";
import { fileOf, lineOf, locate, Tally, type Location, type TallyData } from "./tally.js";

export interface ReplayTransition {
  from: string;
  to: string;
  verdict: string | null;
  count: number;
  /** Of all records replayed, 2 decimals. */
  percent: number;
  examples: string[];
}

export interface ReplayReport {
  records: number;
  invalid: number;
  unknown: number;
  changed: number;
  /** Records without a recorded outcome (not compared; only without --against). */
  unrecorded: number;
  /** The baseline (`--against REF`), or null: compared with the recorded outcomes. */
  against: string | null;
  files: string[];
  examples_per_transition: number;
  verdicts: Record<string, number>;
  transitions: ReplayTransition[];
  /** The first invalid lines by location (all are counted in `invalid`). */
  invalid_lines: { location: string; message: string }[];
  /** Only in one shard's report. */
  shard?: Shard;
}

export interface ReportMeta {
  files: readonly string[];
  against: string | null;
  shard: Shard | undefined;
}

const percent = (count: number, of: number): number => (of === 0 ? 0 : Math.round((count * 10000) / of) / 100);

export function buildReport(tally: Tally, meta: ReportMeta): ReplayReport {
  const data = tally.data();
  const where = (loc: Location) => `${meta.files[fileOf(loc)]}:${lineOf(loc)}`;
  const verdicts: Record<string, number> = {};
  for (const [code, n] of [...data.verdicts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) setOwn(verdicts, code, n);
  const transitions = [...data.transitions]
    .sort((a, b) => b.count - a.count || cmp(a.from, b.from) || cmp(a.to, b.to) || cmp(a.verdict ?? "", b.verdict ?? ""))
    .map((t) => ({ from: t.from, to: t.to, verdict: t.verdict, count: t.count, percent: percent(t.count, data.records), examples: t.examples.map(where) }));
  return {
    records: data.records,
    invalid: data.invalid,
    unknown: data.unknown,
    changed: data.changed,
    unrecorded: data.unrecorded,
    against: meta.against,
    files: [...meta.files],
    examples_per_transition: tally.examplesLimit,
    verdicts,
    transitions,
    invalid_lines: data.invalidLines.map((l) => ({ location: where(l.loc), message: l.message })),
    ...(meta.shard ? { shard: meta.shard } : {}),
  };
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The share of compared records whose outcome changed (to unknown included), in percent. */
export const changedPercent = (r: ReplayReport): number => percent(r.changed, r.records);

/** How many of the changed records became unknown. */
const toUnknown = (r: ReplayReport): number => r.transitions.reduce((n, t) => (t.to === "unknown" && t.from !== "unknown" ? n + t.count : n), 0);

/** "12 (4.5 %" and, when some changed records became unknown, ", 3 of them to unknown". */
const changedShare = (r: ReplayReport): string => {
  const unknown = toUnknown(r);
  return `${changedPercent(r)} %${unknown > 0 ? `, ${unknown} of them to unknown` : ""}`;
};

/** `failbook replay merge`: the reports of all N shards of one replay, as the unsharded report. */
export function mergeReports(reports: { file: string; report: ReplayReport }[]): ReplayReport {
  if (reports.length === 0) throw new UsageError("replay merge needs the JSON reports of the shards (failbook replay --shard I/N --format json)");
  const first = reports[0];
  const count = first.report.shard?.count;
  const seen = new Map<number, string>();
  for (const { file, report } of reports) {
    if (report.shard === undefined || report.shard.count !== count) {
      throw new UsageError(`${file} is not a shard of the same replay as ${first.file} (${describeShard(report.shard)} vs ${describeShard(first.report.shard)}); merge the reports of one --shard I/N matrix`);
    }
    for (const key of ["files", "against", "examples_per_transition"] as const) {
      if (JSON.stringify(report[key]) !== JSON.stringify(first.report[key])) {
        throw new UsageError(`${file} replayed with another ${key.replace(/_/g, " ")} than ${first.file}: its shards must come from the same command, differing only in --shard`);
      }
    }
    const other = seen.get(report.shard.index);
    if (other !== undefined) throw new UsageError(`${file} and ${other} are both shard ${report.shard.index}/${count}; give each shard's report once`);
    seen.set(report.shard.index, file);
  }
  const missing = Array.from({ length: count! }, (_, i) => i + 1).filter((i) => !seen.has(i));
  if (missing.length > 0) throw new UsageError(`shard${missing.length > 1 ? "s" : ""} ${missing.map((i) => `${i}/${count}`).join(", ")} missing: the merge of a partial matrix is not the whole corpus`);

  const files = first.report.files;
  const index = new Map(files.map((f, i) => [f, i]));
  const at = (where: string): Location => {
    const colon = where.lastIndexOf(":");
    return locate(index.get(where.slice(0, colon)) ?? 0, Number(where.slice(colon + 1)));
  };
  const tally = new Tally(first.report.examples_per_transition);
  for (const { report } of reports) tally.merge(tallyData(report, at));
  return buildReport(tally, { files, against: first.report.against, shard: undefined });
}

const describeShard = (shard: Shard | undefined): string => (shard ? `shard ${shard.index}/${shard.count}` : "not sharded");

function tallyData(r: ReplayReport, at: (where: string) => Location): TallyData {
  return {
    records: r.records,
    invalid: r.invalid,
    unknown: r.unknown,
    changed: r.changed,
    unrecorded: r.unrecorded,
    verdicts: Object.entries(r.verdicts),
    transitions: r.transitions.map((t) => ({ from: t.from, to: t.to, verdict: t.verdict, count: t.count, examples: t.examples.map(at) })),
    invalidLines: r.invalid_lines.map((l) => ({ loc: at(l.location), message: l.message })),
  };
}

/** A JSON report read back (merge), its every field checked (report-shape.ts). */
export function parseReport(text: string, file: string): ReplayReport {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`${file} is not JSON; give the reports of failbook replay --format json`);
  }
  return checkReportShape(value, file);
}

export function formatReplayJson(r: ReplayReport): string {
  return inertJson(r, 2) + "\n";
}

const show = (t: ReplayTransition): string => `${t.from} -> ${t.to}`;
const comparedWith = (r: ReplayReport): string => (r.against === null ? "the recorded outcomes" : r.against);

export function formatReplayText(r: ReplayReport, c: Colors): string {
  const out: string[] = [
    c.bold(`failbook replay: ${plural(r.records, "record")} from ${plural(r.files.length, "file")}, compared with ${comparedWith(r)}${r.shard ? ` (shard ${r.shard.index}/${r.shard.count})` : ""}`),
    `  changed ${r.changed} (${changedShare(r)}), unknown ${r.unknown} (beyond the recording), invalid ${r.invalid}${r.unrecorded > 0 ? `, no recorded outcome ${r.unrecorded}` : ""}`,
    "",
  ];
  if (r.transitions.length > 0) {
    out.push(c.bold("Transitions (largest first)"));
    const width = Math.max(...r.transitions.map((t) => show(t).length + (t.verdict ?? "-").length + 2));
    for (const t of r.transitions) {
      const head = `${show(t)}  ${t.verdict ?? "-"}`.padEnd(width);
      out.push(`  ${t.to === "unknown" || t.from === "unknown" ? c.dim(head) : head}  ${String(t.count).padStart(7)}  ${t.percent.toFixed(2).padStart(6)} %  ${c.dim(t.examples.join(", "))}`);
    }
    out.push("");
  }
  const verdicts = Object.entries(r.verdicts);
  if (verdicts.length > 0) {
    out.push(c.bold("Records per verdict (as replayed)"));
    for (const [code, n] of verdicts.sort(([, a], [, b]) => b - a)) out.push(`  ${code.padEnd(32)} ${String(n).padStart(7)}`);
    out.push("");
  }
  if (r.invalid_lines.length > 0) {
    out.push(c.bold(`Invalid lines (${r.invalid})`));
    for (const l of r.invalid_lines) out.push(`  ${l.location}: ${c.red(l.message)}`);
    if (r.invalid > r.invalid_lines.length) out.push(`  ... and ${r.invalid - r.invalid_lines.length} more`);
    out.push("");
  }
  return out.join("\n");
}

export function formatReplayMarkdown(r: ReplayReport): string {
  const out: string[] = [
    `### failbook replay: ${plural(r.records, "record")} compared with ${r.against === null ? "the recorded outcomes" : mdCode(r.against)}`,
    "",
    `**${r.changed}** changed (${changedShare(r)}), **${r.unknown}** unknown (the playbook asks for attempts beyond the recording), **${r.invalid}** invalid${r.unrecorded > 0 ? `, ${r.unrecorded} without a recorded outcome` : ""}.`,
    "",
  ];
  if (r.transitions.length > 0) {
    out.push("| from | to | verdict | records | % | examples |", "|---|---|---|---:|---:|---|");
    for (const t of r.transitions) {
      out.push(`| ${mdCell(t.from)} | ${mdCell(t.to)} | ${t.verdict === null ? "—" : mdCode(t.verdict, true)} | ${t.count} | ${t.percent.toFixed(2)} | ${t.examples.map((e) => mdCode(e, true)).join(", ")} |`);
    }
    out.push("");
  } else out.push("No record's outcome changes.", "");
  if (r.invalid_lines.length > 0) {
    out.push("<details><summary>Invalid lines</summary>", "");
    for (const l of r.invalid_lines) out.push(`- ${mdCode(l.location)}: ${mdCell(l.message)}`);
    out.push("", "</details>", "");
  }
  return out.join("\n");
}
