/** The printers of `failbook diff`: text for a terminal, Markdown for a pull request, JSON for tools. */
import type { Colors } from "../util/colors.js";
import type { Finding } from "failbook-runtime/model/finding.js";
import { mdCell, mdCode } from "../util/escape.js";
import { inertJson, inertValue } from "failbook-runtime/util/inert.js";
import { plural } from "../util/text.js";
import { showOutcome } from "./outcome.js";
import type { ChangeEntry } from "./changelog.js";
import type { DiffReport } from "./diff.js";

const OUTCOME_RULE = "change/outcome-changed";

/** Findings other than the breaking ones and the behaviour diff (which has a section of its own). */
const others = (r: DiffReport) => r.findings.filter((f) => f.severity !== "error" && f.rule !== OUTCOME_RULE);
const breaking = (r: DiffReport) => r.findings.filter((f) => f.severity === "error");

export function formatDiffText(report: DiffReport, c: Colors): string {
  // Every name, message and value on its own line, as data: none can start a line of its own.
  const r = inertValue(report);
  const out: string[] = [c.bold(`failbook diff ${r.old} → ${r.new}`), ""];
  const section = (title: string, lines: string[]) => {
    if (lines.length > 0) out.push(c.bold(title), ...lines, "");
  };
  const finding = (f: Finding) => [
    `  ${f.file}:${f.line}:${f.column} ${f.severity === "error" ? c.red("error") : f.severity === "warning" ? c.yellow("warning") : c.cyan("info")} ${f.message} ${c.dim(`[${f.rule}]`)}`,
    ...(f.related ?? []).map((x) => `    ${c.dim("note:")} ${x.message} at ${x.file}:${x.line}:${x.column}`),
  ];
  section(`Breaking (${breaking(r).length})`, breaking(r).flatMap(finding));
  section(`Warnings and notes (${others(r).length})`, others(r).flatMap(finding));
  section(
    `Behaviour: ${endDifferently(r.outcomes.length)}`,
    r.outcomes.flatMap((o) => [`  ${o.fixture} (${o.file})`, `    before: ${showOutcome(o.before)}`, `    after:  ${showOutcome(o.after)}`]),
  );
  section(`Changes (${r.changes.length})`, r.changes.map((e) => `  ${describeEntry(e)} ${c.dim(`(${e.position.file}:${e.position.line})`)}`));
  out.push(summary(r, c));
  return out.join("\n") + "\n";
}

export function formatDiffMarkdown(r: DiffReport): string {
  const out: string[] = [`### failbook: changes from ${mdCode(r.old)} to ${mdCode(r.new)}`, ""];
  const list = (title: string, items: string[]) => {
    if (items.length > 0) out.push(`**${title}**`, "", ...items, "");
  };
  const finding = (f: Finding) => `- ${mdCell(f.message)} (${mdCode(f.rule)}, ${mdCode(`${f.file}:${f.line}`)})`;
  list(`Breaking (${breaking(r).length})`, breaking(r).map(finding));
  list(`Warnings and notes (${others(r).length})`, others(r).map(finding));
  if (r.outcomes.length > 0) {
    out.push(`**Behaviour: ${endDifferently(r.outcomes.length)}**`, "", "| fixture | before | after |", "|---|---|---|");
    for (const o of r.outcomes) out.push(`| ${mdCell(o.fixture)} | ${mdCell(showOutcome(o.before))} | ${mdCell(showOutcome(o.after))} |`);
    out.push("");
  }
  list(`Changes (${r.changes.length})`, r.changes.map((e) => `- ${mdCell(describeEntry(e))}`));
  out.push(r.changes.length === 0 && r.findings.length === 0 ? "No changes." : `${plural(r.breaking, "breaking change")}.`);
  return out.join("\n") + "\n";
}

export function formatDiffJson(r: DiffReport): string {
  const out = {
    old: r.old,
    new: r.new,
    breaking: r.breaking,
    findings: r.findings.map(({ rule, severity, message, file, line, column, path, fingerprint, related }) => ({
      rule,
      severity,
      message,
      file,
      line,
      column,
      path,
      fingerprint,
      ...(related ? { related } : {}),
    })),
    outcomes: r.outcomes.map(({ fixture, file, before, after }) => ({ fixture, file, before, after })),
    changes: r.changes.map(({ subject, change, name, details, position }) => ({ subject, change, name, details, file: position.file, line: position.line, column: position.column })),
  };
  return inertJson(out, 2) + "\n";
}

/** `changed verdict 'x': retryable false → true`. */
export function describeEntry(e: ChangeEntry): string {
  const what = e.subject === "registry" || e.subject === "playbook" ? `${e.subject} ${e.name}` : `${e.subject} '${e.name}'`;
  return `${e.change} ${what}${e.details.length > 0 ? `: ${e.details.join(", ")}` : ""}`;
}

const endDifferently = (n: number) => `${plural(n, "fixture")} ${n === 1 ? "ends" : "end"} differently`;

function summary(r: DiffReport, c: Colors): string {
  if (r.changes.length === 0 && r.findings.length === 0) return c.green("no changes");
  const text = `${plural(r.breaking, "breaking change")}, ${plural(r.changes.length, "change")}, ${plural(r.outcomes.length, "fixture")} with a different outcome`;
  return r.breaking > 0 ? c.red.bold(text) : c.bold(text);
}

