/**
 * Lint again after an edit, re-checking only what the edit can change (failbook lsp, SPEC 20).
 *
 * The rules stay the one implementation: a per-verdict rule (LintRule.checkVerdict) reports
 * about a verdict from that verdict and the project outside the registry's verdict list
 * alone, so its findings for a verdict whose lines are the same as at the last check, at the
 * same place in the list, with the rest of the project the same, are the findings it gave
 * then, moved by as many lines as the verdict moved. Those are reused; every other verdict,
 * and every project-wide rule, is checked again. lintProject with a VerdictFindings gives
 * exactly what it gives without one (test/lint-incremental.test.ts holds the two equal).
 */
import type { Finding } from "failbook-runtime/model/finding.js";
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

/** The per-verdict findings of the last check, for the next (one per project an editor has open). */
export class VerdictFindings {
  private slices: Slices | undefined;
  private readonly byRule = new Map<string, Entry[]>();

  /**
   * Start a check of `project`: what the last check found stays usable only when everything
   * outside the verdict list is the same. Returns false when the registry's verdicts cannot be
   * told apart by their lines (a flow list, an anchor): every verdict is then checked.
   */
  begin(project: Project): boolean {
    const slices = slicesOf(project);
    const previous = this.slices;
    this.slices = slices;
    if (!slices || !previous || !sameList(slices.context, previous.context)) this.byRule.clear();
    return slices !== undefined;
  }

  /**
   * The findings of `rule` (at `severity`) for verdict `index`: reused when its lines are
   * unchanged, else made by `check` (and kept when they can be moved with their verdict).
   */
  findings(rule: string, severity: string, index: number, registryFile: string, check: () => Finding[]): Finding[] {
    const slices = this.slices;
    if (!slices) return check();
    const key = `${rule}\u0000${severity}`;
    let entries = this.byRule.get(key);
    if (!entries) this.byRule.set(key, (entries = []));
    const lines = slices.lines[index];
    const line = slices.first[index];
    const known = entries[index];
    if (known && known.lines === lines) {
      const moved = known.line === line ? known.findings : known.findings.map((f) => move(f, registryFile, line - known.line));
      // Keep the new text's lines: the old text is not held for them.
      entries[index] = { lines, line, findings: moved };
      return moved;
    }
    const found = check();
    const last = index + 1 < slices.first.length ? slices.first[index + 1] : slices.end;
    if (found.every((f) => movable(f, registryFile, line, last))) entries[index] = { lines, line, findings: found };
    else delete entries[index];
    return found;
  }
}

/**
 * A finding moves with its verdict when every position it gives in the registry is in the
 * verdict's own lines, and its prose quotes no position (which would not move).
 */
function movable(f: Finding, registryFile: string, first: number, last: number): boolean {
  const inside = (p: { file: string; line: number }) => p.file !== registryFile || (p.line >= first && p.line < last);
  const quotes = (text: string) => text.includes(`${registryFile}:`);
  return inside(f) && !quotes(f.message) && (f.related ?? []).every((r) => inside(r) && !quotes(r.message));
}

function move(f: Finding, registryFile: string, by: number): Finding {
  const shift = <P extends { file: string; line: number }>(p: P): P => (p.file === registryFile ? { ...p, line: p.line + by } : p);
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
