/**
 * Lint again after an edit, re-checking only what the edit can change (failbook lsp, SPEC 20).
 *
 * The rules stay the one implementation; what they declare says what an edit can change:
 *
 * - A per-verdict rule (LintRule.checkVerdict) reports about a verdict from that verdict and
 *   the project outside the registry's verdict list alone, so its findings for a verdict
 *   whose lines are the same as at the last check, at the same place in the list, with the
 *   rest of the project the same, are the findings it gave then, moved by as many lines as
 *   the verdict moved.
 * - A project-wide rule that declares the verdict fields it reads (LintRule.verdictFields)
 *   gives the findings it gave last time when the rest of the project is the same, the list
 *   has as many verdicts, and every verdict whose lines changed has those fields as before:
 *   its findings are moved with the verdicts they are in (a finding inside a changed verdict
 *   runs the rule again, since its place within the verdict may have moved).
 *
 * Everything else is checked again. lintProject with a VerdictFindings gives exactly what
 * it gives without one (test/lint-incremental.test.ts holds the two equal).
 */
import type { Finding } from "failbook-runtime/model/finding.js";
import type { Registry, Verdict } from "failbook-runtime/model/registry.js";
import { carryCompiled } from "failbook-runtime/engine/classify.js";
import type { Project } from "../load/project.js";

/** One verdict's findings of one rule, from the lines they were found in. */
interface Entry {
  lines: string;
  /** The verdict's first line (1-based) when its findings were made. */
  line: number;
  findings: Finding[];
}

/** Where each verdict's lines are in the registry text, and what lies outside them. */
interface Slices {
  /** Each verdict's lines, from its first line to the next verdict's (the last: to the end of the list). */
  lines: string[];
  /** Each verdict's first line (1-based). */
  first: number[];
  /** The first line after the list (1-based; past the end when the list ends the file). */
  end: number;
  /** Everything a per-verdict rule may read besides its verdict: every other text of the project. */
  context: string[];
}

/** A check's registry: its verdicts and where they are. */
interface Checked {
  slices: Slices;
  registry: Registry;
  verdicts: readonly Verdict[];
  registryFile: string;
}

/** What an edit changed, when it left the project outside the verdict list and the number of verdicts as they were. */
interface Change {
  before: Checked;
  after: Checked;
  /** The verdicts whose lines changed, by index. */
  changed: number[];
}

/** The per-verdict findings of the last check, for the next (one per project an editor has open). */
export class VerdictFindings {
  private last: Checked | undefined;
  private change: Change | undefined;
  private readonly byRule = new Map<string, Entry[]>();
  /** The findings of each project-wide rule that declares its verdict fields, as the last check made them. */
  private readonly wholeRules = new Map<string, Finding[]>();

  /**
   * Start a check of `project`: what the last check found stays usable only when everything
   * outside the verdict list is the same. Returns false when the registry's verdicts cannot be
   * told apart by their lines (a flow list, an anchor): every verdict is then checked.
   */
  begin(project: Project): boolean {
    const slices = slicesOf(project);
    const registry = project.registry;
    const previous = this.last;
    const current = slices && registry ? { slices, registry: registry.value, verdicts: registry.value.verdicts, registryFile: registry.doc.file } : undefined;
    this.last = current;
    this.change = undefined;
    if (!current || !previous || previous.registryFile !== current.registryFile || !sameList(current.slices.context, previous.slices.context)) {
      this.byRule.clear();
      this.wholeRules.clear();
      return current !== undefined;
    }
    const before = previous.slices.lines;
    const after = current.slices.lines;
    if (before.length !== after.length) {
      this.wholeRules.clear();
      return true;
    }
    const changed: number[] = [];
    for (let i = 0; i < after.length; i++) if (before[i] !== after[i]) changed.push(i);
    this.change = { before: previous, after: current, changed };
    // The classifier reads each verdict's code, status and match: equal, the last one classifies this registry.
    if (changed.every((i) => sameFields(previous.verdicts[i], current.verdicts[i], CLASSIFIER_FIELDS))) carryCompiled(previous.registry, current.registry);
    return true;
  }

  /**
   * The findings of `rule` (at `severity`) for verdict `index`: reused when its lines are
   * unchanged, else made by `check` (and kept when they can be moved with their verdict).
   */
  findings(rule: string, severity: string, index: number, registryFile: string, check: () => Finding[]): Finding[] {
    const slices = this.last?.slices;
    if (!slices) return check();
    const key = `${rule}\u0000${severity}`;
    let entries = this.byRule.get(key);
    if (!entries) this.byRule.set(key, (entries = []));
    const lines = slices.lines[index];
    const line = slices.first[index];
    const known = entries[index];
    if (known && known.lines === lines) {
      const moved = known.line === line ? known.findings : known.findings.map((f) => move(f, registryFile, (l) => l + line - known.line));
      // Keep the new text's lines: the old text is not held for them.
      entries[index] = { lines, line, findings: moved };
      return moved;
    }
    const found = check();
    const last = index + 1 < slices.first.length ? slices.first[index + 1] : slices.end;
    if (found.every((f) => movable(f, registryFile, (l) => l >= line && l < last))) entries[index] = { lines, line, findings: found };
    else delete entries[index];
    return found;
  }

  /**
   * The findings of a project-wide rule that reads only `fields` of the verdicts: the last
   * check's, moved with their verdicts, when the edit changed none of those fields and none
   * of the findings is in a verdict it changed; else made by `check`.
   */
  ruleFindings(rule: string, severity: string, fields: readonly (keyof Verdict)[], check: () => Finding[]): Finding[] {
    const key = `${rule}\u0000${severity}`;
    const known = this.wholeRules.get(key);
    const change = this.change;
    const reused = known && change && change.changed.every((i) => sameFields(change.before.verdicts[i], change.after.verdicts[i], fields)) ? moveAll(known, change) : undefined;
    const found = reused ?? check();
    if (this.last) this.wholeRules.set(key, found);
    return found;
  }
}

const CLASSIFIER_FIELDS: readonly (keyof Verdict)[] = ["code", "status", "match"];

/** The two verdicts have the same `fields` (as their YAML gives them). */
function sameFields(a: Verdict, b: Verdict, fields: readonly (keyof Verdict)[]): boolean {
  return fields.every((f) => a[f] === b[f] || JSON.stringify(a[f]) === JSON.stringify(b[f]));
}

/** The findings of the last check at this check's lines; undefined when one is in a changed verdict (or quotes a line). */
function moveAll(findings: Finding[], change: Change): Finding[] | undefined {
  const { before, after, changed } = change;
  const file = after.registryFile;
  const was = before.slices;
  const is = after.slices;
  const changedSet = new Set(changed);
  const listStart = was.first.length > 0 ? was.first[0] : was.end;
  /** The verdict a line of the last check's registry was in; -1 before the list, the count after it. */
  const verdictAt = (line: number): number => {
    if (line < listStart) return -1;
    if (line >= was.end) return was.first.length;
    let lo = 0;
    let hi = was.first.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (was.first[mid] <= line) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const newLine = (line: number): number => {
    const v = verdictAt(line);
    if (v < 0) return line;
    if (v === was.first.length) return line + is.end - was.end;
    return line + is.first[v] - was.first[v];
  };
  if (!findings.every((f) => movable(f, file, (line) => !changedSet.has(verdictAt(line))))) return undefined;
  if (was.end === is.end && was.first.every((line, i) => line === is.first[i])) return findings;
  return findings.map((f) => move(f, file, newLine));
}

/**
 * A finding can move when every position it gives in the registry is at a line `movableLine`
 * accepts, and its prose quotes no position (which would not move).
 */
function movable(f: Finding, registryFile: string, movableLine: (line: number) => boolean): boolean {
  const inside = (p: { file: string; line: number }) => p.file !== registryFile || movableLine(p.line);
  const quotes = (text: string) => text.includes(`${registryFile}:`);
  return inside(f) && !quotes(f.message) && (f.related ?? []).every((r) => inside(r) && !quotes(r.message));
}

function move(f: Finding, registryFile: string, to: (line: number) => number): Finding {
  const shift = <P extends { file: string; line: number }>(p: P): P => (p.file === registryFile ? { ...p, line: to(p.line) } : p);
  const moved = shift(f);
  return f.related ? { ...moved, related: f.related.map(shift) } : moved;
}

const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((s, i) => s === b[i]);

/** The registry's verdicts as line ranges of its text; undefined when they are not one block list, a verdict a line or more. */
function slicesOf(project: Project): Slices | undefined {
  const registry = project.registry;
  if (!registry) return undefined;
  const source = project.sources.get(registry.doc.file);
  if (!source || source.text.includes("&")) return undefined; // an alias could carry text from outside a verdict's lines
  const text = source.text;
  const verdicts = registry.value.verdicts;
  const first = verdicts.map((_, i) => registry.doc.locate(["verdicts", i]).line);
  for (let i = 1; i < first.length; i++) if (first[i] <= first[i - 1]) return undefined;
  const keys = Object.keys(registry.value);
  const after = keys[keys.indexOf("verdicts") + 1];
  const starts = lineStarts(text);
  const end = after === undefined ? starts.length + 1 : registry.doc.locate([after], "key").line;
  if (first.length > 0 && (end <= first[first.length - 1] || first[0] <= registry.doc.locate(["verdicts"], "key").line)) return undefined;
  const offset = (line: number) => (line - 1 < starts.length ? starts[line - 1] : text.length);
  const lines = first.map((line, i) => text.slice(offset(line), offset(i + 1 < first.length ? first[i + 1] : end)));
  const listStart = first.length > 0 ? offset(first[0]) : text.length;
  // Each text as loaded: an unchanged file's is the very string of the last load (LoadCache), compared at once.
  const others = [...project.sources.values()].filter((s) => s !== source).flatMap((s) => [s.file, s.text]);
  const context = [project.configFile, text.slice(0, listStart), text.slice(offset(end)), ...others, (project.adrFiles ?? []).join("\u0000")];
  return { lines, first, end, context };
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}
