/**
 * What `failbook explore` shows, as plain data: every code with what `failbook explain` says
 * about it, and every fixture with its simulated timeline. The Ink browser and the plain form
 * for pipes both read this; neither loads Ink to build it.
 */
import type { Colors } from "../util/colors.js";
import type { Fixture } from "failbook-runtime/model/fixture.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import type { Registry, VerdictStatus } from "failbook-runtime/model/registry.js";
import type { Loaded } from "../load/project.js";
import { explainCode } from "../render/explain.js";
import { fixturesExercising } from "../render/exercises.js";
import type { RegistryModel } from "../render/model.js";
import type { FixtureResult, ProjectSimulation } from "../simulate/project.js";
import { formatResult, outcomeLine } from "../simulate/report/text.js";
import { inert } from "failbook-runtime/util/inert.js";

export interface CodeEntry {
  code: string;
  class: string;
  status: VerdictStatus;
  retryable: boolean;
  /** The playbook action's name, or null when the playbook has none. */
  action: string | null;
  /** Lower-cased text the `/` filter searches. */
  search: string;
  /** What `failbook explain CODE` prints, wrapped to `width` columns. */
  details: (width: number) => string;
}

export interface FixtureEntry {
  name: string;
  /** null for a fixture without `expect`. */
  passed: boolean | null;
  /** The outcome's kind ("recovered", "escalated"...), or "cannot run". */
  kind: string;
  /** How it ended in one line, or why it could not run. */
  outcome: string;
  search: string;
  /** The fixture as `failbook simulate` prints it: timeline, end, golden comparison. */
  details: () => string;
}

export interface ExploreData {
  /** "registry payments revision 3 · playbook payments" */
  title: string;
  codes: CodeEntry[];
  fixtures: FixtureEntry[];
}

export interface ExploreSources {
  model: RegistryModel;
  registry: Registry;
  playbook: Playbook;
  fixtures: readonly Loaded<Fixture>[];
  sim: ProjectSimulation;
  c: Colors;
  /** Applied to every text shown, as to all of failbook's output (redaction, escapes). */
  redact: (text: string) => string;
}

export function exploreData(sources: ExploreSources): ExploreData {
  const { model, c, redact } = sources;
  const codes = model.codes.map(
    (row): CodeEntry => ({
      code: inert(row.code),
      class: inert(row.class),
      status: row.status,
      retryable: row.retryable,
      action: row.action?.name ?? null,
      search: [row.code, row.class, row.status, row.action?.name ?? ""].join(" ").toLowerCase(),
      details: (width) => redact(explainCode(row, model, fixturesExercising(row.code, sources.registry, sources.playbook, sources.fixtures), { c, width })),
    }),
  );
  const fixtures = sources.sim.results.map((r): FixtureEntry => {
    const outcome = outcomeText(r, c);
    return {
      name: redact(inert(r.fixture)),
      passed: r.passed,
      kind: r.outcome?.kind ?? "cannot run",
      outcome: redact(outcome),
      search: [r.fixture, r.file, r.outcome?.kind ?? "", r.outcome?.verdict ?? ""].join(" ").toLowerCase(),
      details: () => redact(formatResult(r, { c })),
    };
  });
  const title = `registry ${model.registry.name} revision ${model.registry.revision} · playbook ${model.playbook.name}`;
  return { title: redact(inert(title)), codes, fixtures };
}

function outcomeText(r: FixtureResult, c: Colors): string {
  if (r.outcome) return outcomeLine(r.outcome, c);
  return `cannot run: ${r.error?.message ?? "no outcome"}`;
}

/** ✓ passed, ✗ failed (or could not run), · no expect block. */
export function resultMark(passed: boolean | null): string {
  return passed === true ? "✓" : passed === false ? "✗" : "·";
}

/** ● active, ◐ deprecated, ○ reserved. */
export function statusMark(status: VerdictStatus): string {
  return status === "active" ? "●" : status === "deprecated" ? "◐" : "○";
}

/**
 * The plain form for pipes and CI: the codes table (code, class, retryable, status, action),
 * then each fixture's outcome line.
 */
export function formatExplorePlain(data: ExploreData, c: Colors): string {
  const rows = data.codes.map((e) => [e.code, e.class, e.retryable ? "yes" : "no", e.status, e.action ?? "(none)"]);
  const header = ["code", "class", "retryable", "status", "action"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]))).join("  ");
  const out = [c.bold(data.title), "", c.bold(line(header)), ...rows.map(line), ""];
  const passed = data.fixtures.filter((f) => f.passed === true).length;
  const failed = data.fixtures.filter((f) => f.passed === false).length;
  out.push(c.bold(`fixtures (${passed} passed, ${failed} failed, ${data.fixtures.length - passed - failed} without expect)`));
  const nameWidth = Math.max(0, ...data.fixtures.map((f) => f.name.length));
  for (const f of data.fixtures) out.push(`${markColor(f.passed, c)(resultMark(f.passed))} ${f.name.padEnd(nameWidth)}  ${f.outcome}`);
  return out.join("\n") + "\n";
}

function markColor(passed: boolean | null, c: Colors): (s: string) => string {
  return passed === true ? c.green : passed === false ? c.red : c.dim;
}
