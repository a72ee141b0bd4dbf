/**
 * The storm report for a terminal: each storm's verdict and summary, a chart of calls
 * offered, attempts sent and calls succeeded per bucket (the phases marked beneath), the
 * expect checks; with --against the two playbooks side by side, a regression marked; with
 * --sweep the map of verdicts and the margin to the nearest metastable cell.
 */
import type { ChalkInstance } from "chalk";
import type { OutcomeCount, RateLimitCost, StormCost } from "../costs.js";
import type { SeedSpread, StormResult } from "../run.js";
import type { StormEntry, StormReport, SweepEntry } from "../report.js";
import { percent } from "../summary.js";
import type { StoreCost } from "../store.js";

const CHART_WIDTH = 72;
const CHART_HEIGHT = 8;
const VERDICT_MARK = { stable: ".", recovered: "r", degraded: "d", metastable: "M" } as const;

export function formatStormText(report: StormReport, c: ChalkInstance): string {
  const parts = [...report.storms.map((s) => entryText(s, report.against, c)), ...report.sweeps.map((s) => sweepText(s, c))];
  if (parts.length === 0) return report.shard ? `shard ${report.shard.index}/${report.shard.count}: no jobs\n` : "no storms\n";
  return parts.join("\n");
}

function entryText(entry: StormEntry, against: string | null, c: ChalkInstance): string {
  const r = entry.current;
  const lines = [c.bold(`storm ${entry.name}`) + c.dim(` (${entry.file}), seed ${r.seed}, ${count(r.clients)} client${r.clients === 1 ? "" : "s"} (${sharingText(r)}), ${seconds(r.duration_ms)} in ${r.step_ms} ms steps`)];
  if (entry.baseline === null) {
    lines.push(...summaryLines(r, c).map((l) => `  ${l}`), ...costLines(r.cost, r.store).map((l) => `  ${l}`));
  } else {
    lines.push(...sideBySide(r, entry.baseline, against ?? "baseline", entry.regressions, c).map((l) => `  ${l}`));
    lines.push(c.dim("  current:"), ...costLines(r.cost, r.store).map((l) => `    ${l}`), c.dim(`  ${against ?? "baseline"}:`), ...costLines(entry.baseline.cost, entry.baseline.store).map((l) => `    ${l}`));
  }
  lines.push("", ...chart(r, c).map((l) => `  ${l}`));
  if (entry.baseline !== null) lines.push("", c.dim(`  baseline (${against}):`), ...chart(entry.baseline, c).map((l) => `  ${l}`));
  const checks = r.checks.map((k) => (k.passed ? `  ${c.green("✓")} expect ${k.check} ${k.limit}` : `  ${c.red("✗")} expect ${k.check} ${k.limit}: ${k.message}`));
  if (checks.length > 0) lines.push("", ...checks);
  return lines.join("\n") + "\n";
}

function summaryLines(r: StormResult, c: ChalkInstance): string[] {
  const s = r.summary;
  const worst = s.worst_bucket === null ? "" : ` (worst ${s.worst_bucket.amplification} at ${seconds(s.worst_bucket.from_ms)})`;
  return [
    `verdict: ${verdictText(r, c)}`,
    `calls ${count(s.calls)}, attempts ${count(s.attempts)}, amplification ${s.amplification}${worst}`,
    `success ${percent(s.success_ratio)}; latency p50 ${s.latency_ms.p50} ms, p99 ${s.latency_ms.p99} ms, max ${s.latency_ms.max} ms; ${s.mean_in_progress} attempts in progress on average${s.unfinished > 0 ? `; ${count(s.unfinished)} calls unfinished` : ""}`,
  ];
}

/** How the clients share their policies' state (SPEC 19, 23). */
export function sharingText(r: Pick<StormResult, "shared" | "store">): string {
  if (r.shared === "fleet") return "one dispatcher for the fleet";
  if (r.shared === "client" || r.store === undefined) return "a dispatcher each";
  return `a dispatcher each, synced through a store every ${r.store.sync_ms} ms`;
}

/** What the store did (SPEC 23): its syncs, and the clients that fell back while it was down. */
export function storeLine(store: StoreCost): string {
  const fell = store.outages === 0 ? "no client fell back" : `${count(store.clients_fell_back)} client${store.clients_fell_back === 1 ? "" : "s"} fell back (${count(store.outages)} outage${store.outages === 1 ? "" : "s"} reported), ${span(store.fallback_ms)} without the fleet in all`;
  return `store: sync every ${store.sync_ms} ms, latency ${store.latency_ms} ms; ${count(store.syncs)} syncs, ${count(store.failed_syncs)} failed; down ${span(store.down_ms)}; ${fell}`;
}

/** What the outage cost, in words: how calls ended, the pager, refused retries, each breaker's open time; what the store did. */
export function costLines(cost: StormCost, store?: StoreCost): string[] {
  const out = [`outcomes: ${cost.outcomes.map((o) => `${count(o.calls)} ${outcomeLabel(o)}`).join(", ") || "none"}`];
  const queues = (byQueue: Record<string, number>) => Object.entries(byQueue).map(([q, n]) => `${q} ${count(n)}`).join(", ");
  const total = (byQueue: Record<string, number>) => Object.values(byQueue).reduce((a, b) => a + b, 0);
  const paged = [
    ...(total(cost.escalations) > 0 ? [`the pager: ${count(total(cost.escalations))} escalation${total(cost.escalations) === 1 ? "" : "s"} (${queues(cost.escalations)})`] : []),
    ...(total(cost.dead_letters) > 0 ? [`dead letters: ${count(total(cost.dead_letters))} (${queues(cost.dead_letters)})`] : []),
  ];
  if (paged.length > 0) out.push(paged.join("; "));
  const refused = cost.refused_retries;
  if (refused.budget + refused.throttling + refused.quota + refused.breaker + cost.short_circuited > 0) {
    out.push(`retries refused: ${count(refused.budget)} by a budget, ${count(refused.throttling)} by throttling, ${count(refused.quota)} by the quota, ${count(refused.breaker)} by an open breaker; ${count(cost.short_circuited)} attempts short-circuited`);
  }
  const limits = rateLimitText(cost);
  if (limits !== undefined) out.push(`rate limits: ${limits}`);
  if (store !== undefined) out.push(storeLine(store));
  for (const b of cost.breakers) {
    const after = b.open_after_trigger === 0 ? "" : `; ${b.open_after_trigger} of ${count(b.instances)} still open after the trigger ended, up to ${seconds(b.longest_after_trigger_ms)} after`;
    out.push(`breaker ${b.breaker} (${count(b.instances)} in the fleet): open ${percent(b.open_share)} of the run, longest spell ${seconds(b.longest_open_ms)}, ${count(b.reopenings)} reopening${b.reopenings === 1 ? "" : "s"}${after}`);
  }
  return out;
}

/** The rate limits side by side (SPEC 22): waits the client's own limits made, attempts they refused, 429s the upstream answered; undefined when all are 0. */
function rateLimitText(cost: StormCost): string | undefined {
  const r = cost.rate_limits;
  if (r.waits + r.refused + r.upstream_429 === 0) return undefined;
  const waits = r.waits === 0 ? "0 attempts paced" : `${count(r.waits)} attempt${r.waits === 1 ? "" : "s"} paced (waited ${span(r.wait_ms)} in all, longest ${span(r.longest_wait_ms)})`;
  return `${waits}, ${count(r.refused)} refused by the client's own limit; ${count(r.upstream_429)} answered 429 by the upstream`;
}

/** An outcome as a report names it: its kind, its reason, its queue. */
export const outcomeLabel = (o: OutcomeCount): string => `${o.kind}${o.reason === null ? "" : ` (${o.reason})`}${o.queue === null ? "" : ` to ${o.queue}`}`;

/** `4/5 ` before a verdict reached with --seeds; empty for one seed. */
export const spreadText = (seeds: SeedSpread | undefined): string => (seeds === undefined ? "" : `${seeds.agree}/${seeds.count} `);

function verdictText(r: StormResult, c: ChalkInstance): string {
  return spreadText(r.seeds) + verdictWords(r, c) + (r.seeds === undefined || r.seeds.agree === r.seeds.count ? "" : c.dim(` (seeds: ${Object.entries(r.seeds.verdicts).map(([v, n]) => `${n} ${v}`).join(", ")}; this run is seed ${r.seed})`));
}

function verdictWords(r: StormResult, c: ChalkInstance): string {
  const s = r.summary;
  switch (s.verdict) {
    case "stable":
      return c.green("stable");
    case "recovered":
      return c.yellow(`recovered ${s.recovery_ms} ms after the trigger ended (at ${seconds(s.trigger_end_ms)})`);
    case "degraded":
      return c.yellow(`degraded (success neither came back to 95 % of calls offered nor stayed below half${s.trigger_end_ms > 0 ? ` after ${seconds(s.trigger_end_ms)}` : ""})`);
    case "metastable":
      return c.red(`metastable (the trigger ended at ${seconds(s.trigger_end_ms)}; success stayed below half of calls offered to the end)`);
  }
}

function sideBySide(current: StormResult, baseline: StormResult, against: string, regressions: string[], c: ChalkInstance): string[] {
  const [a, b] = [current.summary, baseline.summary];
  const rows: [string, string, string, boolean][] = [
    ["verdict", spreadText(current.seeds) + a.verdict + (a.recovery_ms === null ? "" : ` (${a.recovery_ms} ms)`), spreadText(baseline.seeds) + b.verdict + (b.recovery_ms === null ? "" : ` (${b.recovery_ms} ms)`), regressions.some((r) => r.startsWith("verdict") || r.startsWith("recovery"))],
    ["amplification", String(a.amplification), String(b.amplification), regressions.some((r) => r.startsWith("amplification"))],
    ["success", percent(a.success_ratio), percent(b.success_ratio), regressions.some((r) => r.startsWith("success"))],
    ["p99 latency", `${a.latency_ms.p99} ms`, `${b.latency_ms.p99} ms`, regressions.some((r) => r.startsWith("p99"))],
    ["attempts", count(a.attempts), count(b.attempts), false],
    ...rateLimitRows(current.cost, baseline.cost, regressions.some((r) => r.startsWith("upstream 429s"))),
    ["expect", checksText(current), checksText(baseline), regressions.some((r) => r.startsWith("expect"))],
  ];
  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.max("current".length, ...rows.map((r) => r[1].length));
  const w2 = Math.max(against.length, ...rows.map((r) => r[2].length));
  const out = [c.dim(`${"".padEnd(w0)}  ${"current".padEnd(w1)}  ${against.padEnd(w2)}`)];
  for (const [name, cur, base, worse] of rows) out.push(`${name.padEnd(w0)}  ${(worse ? c.red(cur) : cur) + " ".repeat(w1 - cur.length)}  ${base.padEnd(w2)}${worse ? c.red("  ◀ regression") : ""}`);
  if (regressions.length === 0) out.push(c.green("no regression against the baseline"));
  else out.push(c.red(`regressed: ${regressions.join("; ")}`));
  return out;
}

/** The rate limits' rows of a summary or a side by side (text and HTML), when a run paced, refused or got a 429. */
export function rateLimitRows<B extends StormCost | null>(current: StormCost, baseline: B, worse: boolean): [string, string, B extends null ? undefined : string, boolean][] {
  const runs = baseline === null ? [current.rate_limits] : [current.rate_limits, baseline.rate_limits];
  if (runs.every((r) => r.waits + r.refused + r.upstream_429 === 0)) return [];
  const b = baseline?.rate_limits;
  const waits = (r: RateLimitCost) => (r.waits === 0 ? "0" : `${count(r.waits)} (${span(r.wait_ms)})`);
  const row = (name: string, f: (r: RateLimitCost) => string, bad: boolean) => [name, f(current.rate_limits), (b === undefined ? undefined : f(b)) as B extends null ? undefined : string, bad] as [string, string, B extends null ? undefined : string, boolean];
  return [row("paced waits", waits, false), row("refused by own limit", (r) => count(r.refused), false), row("429s from upstream", (r) => count(r.upstream_429), worse)];
}

const checksText = (r: StormResult): string => (r.checks.length === 0 ? "-" : `${r.checks.filter((k) => k.passed).length}/${r.checks.length} pass`);

/** Succeeded (█ bars) over sent (░ bars), offered (─) drawn over the sent bar; phases (^) beneath. */
function chart(r: StormResult, c: ChalkInstance): string[] {
  const buckets = r.buckets;
  const per = Math.max(1, Math.ceil(buckets.length / CHART_WIDTH));
  const columns: { offered: number; sent: number; succeeded: number; from: number; to: number }[] = [];
  for (let i = 0; i < buckets.length; i += per) {
    const group = buckets.slice(i, i + per);
    const mean = (f: (b: (typeof group)[number]) => number) => group.reduce((a, b) => a + f(b), 0) / group.length;
    columns.push({ offered: mean((b) => b.offered), sent: mean((b) => b.sent), succeeded: mean((b) => b.succeeded), from: group[0].from_ms, to: group[0].from_ms + group.length * r.step_ms });
  }
  const top = Math.max(1, ...columns.map((col) => Math.max(col.offered, col.sent, col.succeeded)));
  const level = (v: number) => Math.round((v / top) * CHART_HEIGHT);
  const rows: string[] = [];
  for (let y = CHART_HEIGHT; y >= 1; y--) {
    let line = "";
    for (const col of columns) {
      const [o, s, k] = [level(col.offered), level(col.sent), level(col.succeeded)];
      line += k >= y ? c.green("█") : o === y ? "─" : s >= y ? c.yellow("░") : " ";
    }
    const label = y === CHART_HEIGHT ? fmt(top) : y === 1 ? "0" : "";
    rows.push(`${label.padStart(7)} ┤${line}`);
  }
  const phases = columns.map((col) => (inPhase(r, col.from, col.to) ? "^" : " ")).join("");
  const span = `${seconds(0)}${" ".repeat(Math.max(1, columns.length - seconds(0).length - seconds(r.duration_ms).length))}${seconds(r.duration_ms)}`;
  rows.push(`${"".padStart(7)} └${"─".repeat(columns.length)}`, `${"".padStart(7)}  ${span}`);
  if (phases.trim() !== "") rows.push(`${"phases".padStart(7)}  ${c.magenta(phases)}`);
  rows.push(c.dim(`${"".padStart(7)}  per ${per * r.step_ms} ms: ─ calls offered  ${"░"} attempts sent  █ calls succeeded`));
  return rows;
}

/** Does a column's time overlap a phase of the trigger? */
function inPhase(r: StormResult, from: number, to: number): boolean {
  return r.phases.some((p) => p.from_ms < to && p.to_ms > from);
}

function sweepText(s: SweepEntry, c: ChalkInstance): string {
  const lines = [c.bold(`sweep ${s.name}`) + c.dim(` (${s.file}): ${s.axes.map((a) => `${a.name} ${a.from}..${a.to} step ${a.step}`).join(", ")}; operating point ${s.axes.map((a, i) => `${a.name} ${s.operating[i]}`).join(", ")}`)];
  const mark = (v: (typeof s.cells)[number]["verdict"]) => {
    const ch = VERDICT_MARK[v];
    return v === "metastable" ? c.red(ch) : v === "stable" ? c.green(ch) : c.yellow(ch);
  };
  const byValues = new Map(s.cells.map((cell) => [cell.values.join(","), cell]));
  const [x, y] = [s.axes[0], s.axes[1]];
  const xs = x.values;
  const labelW = Math.max(...xs.map((v) => String(v).length), 1);
  if (y === undefined) {
    const verdictW = Math.max(10, ...s.cells.map((cell) => (spreadText(cell.seeds) + cell.verdict).length));
    lines.push(`  ${x.name.padStart(labelW)}  ${"verdict".padEnd(verdictW + 3)}amplification  success  recovery`);
    for (const v of xs) {
      const cell = byValues.get(String(v));
      const here = v === s.operating[0] ? " ◀ operating point" : "";
      if (cell === undefined) lines.push(`  ${String(v).padStart(labelW)}  (not in this shard)`);
      else lines.push(`  ${String(v).padStart(labelW)}  ${mark(cell.verdict)} ${(spreadText(cell.seeds) + cell.verdict).padEnd(verdictW)}  ${String(cell.amplification).padEnd(13)}  ${percent(cell.success_ratio).padEnd(7)}  ${cell.recovery_ms === null ? "-" : `${cell.recovery_ms} ms`}${here}`);
    }
  } else {
    const yW = Math.max(...y.values.map((v) => String(v).length), y.name.length);
    lines.push(`  ${y.name.padStart(yW)} \\ ${x.name}: ${xs.join(" ")}`);
    for (const yv of [...y.values].reverse()) {
      const row = xs.map((xv) => {
        const cell = byValues.get(`${xv},${yv}`);
        const ch = cell === undefined ? " " : mark(cell.verdict);
        const op = xv === s.operating[0] && yv === s.operating[1];
        return (op ? `[${ch}]` : ` ${ch} `).padEnd(String(xv).length + 1);
      });
      lines.push(`  ${String(yv).padStart(yW)} │${row.join("")}`);
    }
  }
  lines.push(c.dim(`  . stable  r recovered  d degraded  M metastable${s.cells.some((cell) => cell.seeds !== undefined) ? "  (each cell: the verdict most seeds reach)" : ""}`));
  const spread = s.cells.filter((cell) => cell.seeds !== undefined && cell.seeds.agree < cell.seeds.count);
  if (spread.length > 0 && y !== undefined) lines.push(`  seeds disagree at ${spread.map((cell) => `${s.axes.map((a, i) => `${a.name}=${cell.values[i]}`).join(" ")} (${spreadText(cell.seeds).trim()} ${cell.verdict})`).join(", ")}`);
  const near = s.nearest_metastable;
  if (near === null) lines.push(s.cells.length === 0 ? "  (no cells in this shard)" : c.green("  no metastable cell in the grid"));
  else if (near.margin.every((m) => m === 0)) lines.push(c.red("  the operating point itself is metastable"));
  else lines.push(`  nearest metastable cell: ${s.axes.map((a, i) => `${a.name} ${near.values[i]}`).join(", ")}; margin from the operating point ${s.axes.map((a, i) => `${signed(near.margin[i])} ${a.name}${s.operating[i] === 0 ? "" : ` (${signed(Math.round((near.margin[i] / s.operating[i]) * 1000) / 10)} %)`}`).join(", ")}`);
  for (const cell of s.cells) for (const f of cell.failed) lines.push(`  ${c.red("✗")} cell ${s.axes.map((a, i) => `${a.name}=${cell.values[i]}`).join(" ")}: ${f}`);
  return lines.join("\n") + "\n";
}

const signed = (n: number) => (n > 0 ? `+${n}` : String(n));
const count = (n: number) => n.toLocaleString("en-US");
const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);
/** A length of time: ms under 10 s, else seconds to a tenth. */
const span = (ms: number) => (ms < 10_000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 100) / 10} s`);
const fmt = (n: number) => (n >= 100 ? String(Math.round(n)) : String(Math.round(n * 10) / 10));
