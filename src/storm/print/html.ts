/**
 * The storm report as one self-contained HTML page (SPEC 19): per storm, the summary (beside
 * the baseline's with --against, regressions marked), the time series as inline SVG (calls
 * offered, attempts sent and calls succeeded; attempts in progress and queued at the
 * upstream; breakers open, when the playbook has any), the phases shaded, the expect checks;
 * per sweep, the map of verdicts. No script, no request: a Content-Security-Policy with the
 * hash of the one stylesheet allows nothing else, and every text from a file is escaped.
 */
import { escapeHtml as h } from "../../util/escape.js";
import { pageHead } from "../../util/page.js";
import type { StormEntry, StormReport, SweepEntry } from "../report.js";
import type { StormResult } from "../run.js";
import { percent } from "../summary.js";
import { costLines, rateLimitRows, sharingText, spreadText } from "./text.js";

const STYLE = `:root{color-scheme:light dark;--fg:#1b1f24;--muted:#5b6470;--bg:#fff;--line:#d5d9de;--offered:#6b7280;--sent:#d97706;--ok:#15803d;--bad:#b91c1c;--queue:#7c3aed;--phase:rgba(217,70,239,.12)}
@media (prefers-color-scheme:dark){:root{--fg:#e6e8eb;--muted:#9aa3ad;--bg:#15181c;--line:#343a42;--offered:#9ca3af;--sent:#f59e0b;--ok:#22c55e;--bad:#ef4444;--queue:#a78bfa;--phase:rgba(217,70,239,.18)}}
body{font:15px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg);margin:0 auto;max-width:1100px;padding:1rem 1.5rem}
h1{font-size:1.4rem}h2{font-size:1.15rem;margin-top:2.2rem;border-bottom:1px solid var(--line);padding-bottom:.3rem}
.meta,.legend{color:var(--muted)}table{border-collapse:collapse;margin:.6rem 0}td,th{border:1px solid var(--line);padding:.25rem .6rem;text-align:left;vertical-align:top}
.regression{color:var(--bad);font-weight:600}.pass{color:var(--ok)}.fail{color:var(--bad)}
.verdict-stable{color:var(--ok)}.verdict-recovered,.verdict-degraded{color:var(--sent)}.verdict-metastable{color:var(--bad);font-weight:600}
svg{width:100%;height:auto;display:block;margin:.4rem 0 1rem}svg text{fill:var(--muted);font-size:11px}.axis{stroke:var(--line)}.phase{fill:var(--phase)}
.s-offered{stroke:var(--offered);stroke-dasharray:4 3}.s-sent{stroke:var(--sent)}.s-succeeded{stroke:var(--ok)}.s-in_progress{stroke:var(--sent)}.s-queued{stroke:var(--queue)}.s-breakers_open{stroke:var(--bad)}.s-breakers_half_open{stroke:var(--sent);stroke-dasharray:4 3}
polyline{fill:none;stroke-width:1.8}.key{display:inline-block;width:1.4em;height:0;border-top:3px solid;vertical-align:middle;margin:0 .3em 0 .9em}
.k-offered{border-color:var(--offered);border-top-style:dashed}.k-sent,.k-in_progress{border-color:var(--sent)}.k-succeeded{border-color:var(--ok)}.k-queued{border-color:var(--queue)}.k-breakers_open{border-color:var(--bad)}.k-breakers_half_open{border-color:var(--sent);border-top-style:dashed}
.map td{text-align:center;min-width:2.2em}.cell-stable{background:rgba(21,128,61,.25)}.cell-recovered,.cell-degraded{background:rgba(217,119,6,.3)}.cell-metastable{background:rgba(185,28,28,.45)}.operating{outline:3px solid var(--fg);outline-offset:-3px}`;

const W = 960;
const H = 220;
const PAD = { left: 54, right: 12, top: 10, bottom: 28 };

type SeriesKey = "offered" | "sent" | "succeeded" | "in_progress" | "queued" | "breakers_open" | "breakers_half_open";
const LABELS: Record<SeriesKey, string> = {
  offered: "calls offered",
  sent: "attempts sent",
  succeeded: "calls succeeded",
  in_progress: "attempts in progress",
  queued: "attempts queued",
  breakers_open: "breakers open",
  breakers_half_open: "breakers half-open",
};

export function formatStormHtml(report: StormReport): string {
  const title = report.storms.length + report.sweeps.length === 1 ? (report.storms[0]?.name ?? report.sweeps[0].name) : `${report.storms.length + report.sweeps.length} storms`;
  const body = [...report.storms.map((s) => entryHtml(s, report.against)), ...report.sweeps.map(sweepHtml)].join("\n");
  return `${pageHead({ title: `Storm: ${h(title)}`, generator: "failbook storm", style: STYLE })}<h1>Storms</h1>
<p class="meta">${report.against === null ? "The current playbook" : `The current playbook against <code>${h(report.against)}</code>, each storm with the same seed`}${report.seed === null ? "" : `, seed ${report.seed}`}${report.sweep.length > 0 ? `, swept over <code>${h(report.sweep.join(" "))}</code>` : ""}.</p>
${body}
</body>
</html>
`;
}

function entryHtml(entry: StormEntry, against: string | null): string {
  const r = entry.current;
  const base = entry.baseline;
  const id = `storm-${entry.index}`;
  const out = [`<section id="${id}">`, `<h2>${h(entry.name)} <span class="meta">${h(entry.file)}</span></h2>`];
  out.push(`<p class="meta">Seed ${r.seed}; ${r.clients} client${r.clients === 1 ? "" : "s"}, ${h(sharingText(r))}; ${r.duration_ms} ms in steps of ${r.step_ms} ms; playbook <code>${h(r.playbook)}</code>.</p>`);
  out.push(summaryTable(r, base, against, entry.regressions));
  if (r.checks.length > 0) {
    out.push("<ul>", ...r.checks.map((k) => `<li class="${k.passed ? "pass" : "fail"}">${k.passed ? "✓" : "✗"} expect <code>${h(k.check)}</code> ${h(String(k.limit))}${k.passed ? "" : `: ${h(k.message)}`}</li>`), "</ul>");
  }
  for (const [label, result] of base === null ? [["", r] as const] : ([["current: ", r], [`${against ?? "baseline"}: `, base]] as const)) {
    out.push(`<h3>${h(label)}what the outage cost</h3>`, `<ul class="cost">${costLines(result.cost, result.store).map((l) => `<li>${h(l)}</li>`).join("")}</ul>`);
    out.push(`<h3>${h(label)}calls and attempts per ${result.step_ms} ms</h3>`, chart(result, ["offered", "sent", "succeeded"]));
    out.push(`<h3>${h(label)}at the upstream (time average per bucket)</h3>`, chart(result, ["in_progress", "queued"]));
    if (result.buckets.some((b) => b.breakers_open + b.breakers_half_open > 0)) out.push(`<h3>${h(label)}breaker states (at each bucket's end)</h3>`, chart(result, ["breakers_open", "breakers_half_open"]));
  }
  out.push("</section>");
  return out.join("\n");
}

function summaryTable(r: StormResult, base: StormResult | null, against: string | null, regressions: string[]): string {
  const s = r.summary;
  const b = base?.summary;
  const worse = (prefix: string) => regressions.some((x) => x.startsWith(prefix));
  const verdict = (x: StormResult) => `<span class="verdict-${x.summary.verdict}">${spreadText(x.seeds)}${x.summary.verdict}${x.summary.recovery_ms === null ? "" : ` after ${x.summary.recovery_ms} ms`}</span>`;
  const rows: [string, string, string | undefined, boolean][] = [
    ["verdict", verdict(r), base === null ? undefined : verdict(base), worse("verdict") || worse("recovery")],
    ["calls offered", String(s.calls), b && String(b.calls), false],
    ["attempts sent", String(s.attempts), b && String(b.attempts), false],
    ["amplification (worst bucket)", `${s.amplification} (${s.worst_bucket?.amplification ?? "-"})`, b && `${b.amplification} (${b.worst_bucket?.amplification ?? "-"})`, worse("amplification")],
    ["success", percent(s.success_ratio), b && percent(b.success_ratio), worse("success")],
    ["latency p50 / p99 / max", `${s.latency_ms.p50} / ${s.latency_ms.p99} / ${s.latency_ms.max} ms`, b && `${b.latency_ms.p50} / ${b.latency_ms.p99} / ${b.latency_ms.max} ms`, worse("p99")],
    ["attempts in progress (mean)", String(s.mean_in_progress), b && String(b.mean_in_progress), false],
    ["trigger ends", `${s.trigger_end_ms} ms`, b && `${b.trigger_end_ms} ms`, false],
    ...rateLimitRows(r.cost, base?.cost ?? null, worse("upstream 429s")).map(([name, cur, old, bad]): [string, string, string | undefined, boolean] => [name, h(cur), old === undefined ? undefined : h(old), bad]),
  ];
  const head = `<tr><th></th><th>${base === null ? "" : "current"}</th>${base === null ? "" : `<th>${h(against ?? "baseline")}</th><th></th>`}</tr>`;
  const body = rows.map(([name, cur, old, bad]) => `<tr><th>${name}</th><td${bad ? ' class="regression"' : ""}>${cur}</td>${base === null ? "" : `<td>${old}</td><td>${bad ? '<span class="regression">regression</span>' : ""}</td>`}</tr>`);
  const note = base === null ? "" : regressions.length === 0 ? `<p class="pass">No regression against the baseline.</p>` : `<p class="regression">Regressed: ${h(regressions.join("; "))}.</p>`;
  return `<table>${head}${body.join("")}</table>${note}`;
}

/** One SVG chart of some series over the buckets, the phases shaded, a tooltip per point. */
function chart(r: StormResult, keys: readonly SeriesKey[]): string {
  const buckets = r.buckets;
  const n = buckets.length;
  const top = Math.max(1, ...buckets.flatMap((b) => keys.map((k) => b[k])));
  const iw = W - PAD.left - PAD.right;
  const ih = H - PAD.top - PAD.bottom;
  const x = (ms: number) => PAD.left + (ms / r.duration_ms) * iw;
  const y = (v: number) => PAD.top + ih - (v / top) * ih;
  const mid = (i: number) => x(buckets[i].from_ms + Math.min(r.step_ms, r.duration_ms - buckets[i].from_ms) / 2);
  const parts: string[] = [];
  for (const p of r.phases) parts.push(`<rect class="phase" x="${fx(x(Math.min(p.from_ms, r.duration_ms)))}" y="${PAD.top}" width="${fx(x(Math.min(p.to_ms, r.duration_ms)) - x(Math.min(p.from_ms, r.duration_ms)))}" height="${ih}"><title>phase ${p.from_ms}-${p.to_ms} ms</title></rect>`);
  parts.push(`<line class="axis" x1="${PAD.left}" y1="${PAD.top + ih}" x2="${W - PAD.right}" y2="${PAD.top + ih}"/><line class="axis" x1="${PAD.left}" y1="${PAD.top}" x2="${PAD.left}" y2="${PAD.top + ih}"/>`);
  parts.push(`<text x="${PAD.left - 6}" y="${PAD.top + 10}" text-anchor="end">${fmt(top)}</text><text x="${PAD.left - 6}" y="${PAD.top + ih}" text-anchor="end">0</text>`);
  for (let t = 0; t <= 4; t++) {
    const ms = (r.duration_ms * t) / 4;
    parts.push(`<text x="${fx(x(ms))}" y="${H - 8}" text-anchor="${t === 0 ? "start" : t === 4 ? "end" : "middle"}">${fmt(ms / 1000)} s</text>`);
  }
  for (const k of keys) {
    const points = buckets.map((b, i) => `${fx(mid(i))},${fx(y(b[k]))}`).join(" ");
    parts.push(`<polyline class="s-${k}" points="${points}"><title>${LABELS[k]}</title></polyline>`);
  }
  const legend = keys.map((k) => `<span class="key k-${k}"></span>${LABELS[k]}`).join("");
  return `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${keys.map((k) => LABELS[k]).join(", ")} per bucket over ${n} buckets">${parts.join("")}</svg><p class="legend">${legend}</p>`;
}

function sweepHtml(s: SweepEntry): string {
  const out = [`<section>`, `<h2>Sweep: ${h(s.name)} <span class="meta">${h(s.file)}</span></h2>`];
  out.push(`<p class="meta">${s.axes.map((a) => `<code>${h(a.name)}</code> from ${a.from} to ${a.to} in steps of ${a.step}`).join("; ")}; the operating point (outlined) is the storm's own ${s.axes.map((a, i) => `${h(a.name)} ${s.operating[i]}`).join(", ")}.</p>`);
  const cells = new Map(s.cells.map((c) => [c.values.join(","), c]));
  const [xa, ya] = [s.axes[0], s.axes[1]];
  const td = (values: number[]) => {
    const c = cells.get(values.join(","));
    const op = values.every((v, i) => v === s.operating[i]);
    if (c === undefined) return `<td></td>`;
    const tip = `${s.axes.map((a, i) => `${a.name} ${values[i]}`).join(", ")}: ${spreadText(c.seeds)}${c.verdict}, amplification ${c.amplification}, success ${percent(c.success_ratio)}${c.recovery_ms === null ? "" : `, recovered after ${c.recovery_ms} ms`}`;
    return `<td class="cell-${c.verdict}${op ? " operating" : ""}" title="${h(tip)}">${c.verdict[0].toUpperCase()}</td>`;
  };
  const rows: string[] = [];
  if (ya === undefined) {
    rows.push(`<tr><th>${h(xa.name)}</th>${xa.values.map((v) => `<th>${v}</th>`).join("")}</tr>`, `<tr><th>verdict</th>${xa.values.map((v) => td([v])).join("")}</tr>`);
  } else {
    rows.push(`<tr><th>${h(ya.name)} \\ ${h(xa.name)}</th>${xa.values.map((v) => `<th>${v}</th>`).join("")}</tr>`);
    for (const yv of [...ya.values].reverse()) rows.push(`<tr><th>${yv}</th>${xa.values.map((xv) => td([xv, yv])).join("")}</tr>`);
  }
  out.push(`<table class="map">${rows.join("")}</table>`, `<p class="legend">S stable, R recovered, D degraded, M metastable.</p>`);
  const failed = s.cells.flatMap((cell) => cell.failed.map((f) => `<li class="fail">✗ cell ${h(s.axes.map((a, i) => `${a.name}=${cell.values[i]}`).join(" "))}: ${h(f)}</li>`));
  if (failed.length > 0) out.push(`<ul>${failed.join("")}</ul>`);
  const near = s.nearest_metastable;
  out.push(near === null ? `<p class="pass">No metastable cell in the grid.</p>` : `<p class="regression">Nearest metastable cell: ${s.axes.map((a, i) => `${h(a.name)} ${near.values[i]}`).join(", ")}; margin from the operating point: ${s.axes.map((a, i) => `${near.margin[i] > 0 ? "+" : ""}${near.margin[i]} ${h(a.name)}`).join(", ")}.</p>`);
  out.push("</section>");
  return out.join("\n");
}

const fx = (n: number) => String(Math.round(n * 10) / 10);
const fmt = (n: number) => (n >= 100 ? String(Math.round(n)) : String(Math.round(n * 10) / 10));
