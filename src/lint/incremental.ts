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
import { findingAt, type FindingInput } from "../load/finding.js";
import type { YamlDocument, YamlSource } from "../load/yaml.js";
import { firstAbove } from "../util/sorted.js";
import { editedSpan } from "../util/text.js";

/** One verdict's findings of one rule, with the verdict's first line (1-based) when they were made. */
interface Entry {
  line: number;
  findings: Finding[];
}

/** A check's registry: its verdicts, where they are in its text, and every other text of the project. */
interface Checked {
  registry: Registry;
  registryFile: string;
  source: YamlSource;
  /** Each verdict's first line (1-based). */
  first: number[];
  /** The first line after the list (1-based; past the end when the list ends the file). */
  end: number;
  /** Everything a rule may read besides the registry: every other text of the project. */
  context: string[];
}

/** What one check made, for the next to reuse. */
interface Made {
  checked: Checked;
  /** Each per-verdict rule's findings, verdict by verdict (an empty slot: not kept). */
  verdicts: Map<string, (Entry | undefined)[]>;
  /** Each project-wide rule's findings, of the rules that declare their verdict fields. */
  rules: Map<string, Finding[]>;
  /** Each per-verdict rule's findings for the rest of the project. */
  rests: Map<string, Finding[]>;
  /** The code set of each per-verdict rule that has one (LintRule.codeSet). */
  codeSets: Map<string, ReadonlySet<string>>;
}

/** What an edit changed, when it left the project outside the registry's verdict list as it was. */
interface Change {
  before: Made;
  /** For each verdict now, its own index when its lines are the same as at the last check, at that index; -1 when not. */
  from: Int32Array;
  /** The indexes (now) of the verdicts the edit touched, when the list has as many verdicts as before; undefined when not. */
  changed: number[] | undefined;
  /** Every line of the registry is where it was (the edit changed no line count). */
  stayed: boolean;
}

/** The findings of the last check, for the next (one per project an editor has open). */
export class VerdictFindings {
  private made: Made | undefined;
  private change: Change | undefined;
  /** The findings the last check and this one made on documents other than the registry's, by document and by what was reported. */
  private reportedBefore = new Map<YamlDocument, Map<string, Finding>>();
  private reported = new Map<YamlDocument, Map<string, Finding>>();

  /**
   * Start a check of `project`: what the last check found stays usable only when everything
   * outside the verdict list is the same. Returns false when the registry's verdicts cannot be
   * told apart by their lines (a flow list, an anchor): every verdict is then checked.
   */
  begin(project: Project): boolean {
    this.reportedBefore = this.reported;
    this.reported = new Map();
    const checked = checkedOf(project);
    const before = this.made;
    this.made = checked ? { checked, verdicts: new Map(), rules: new Map(), rests: new Map(), codeSets: new Map() } : undefined;
    this.change = checked && before ? changeOf(before, checked) : undefined;
    const change = this.change;
    // The classifier reads each verdict's status and match (and its code, which only labels
    // its rules' answers): equal, the last one classifies this registry, relabeled.
    if (checked && change && sameVerdicts(change, checked, CLASSIFIER_FIELDS)) carryCompiled(change.before.checked.registry, checked.registry);
    return checked !== undefined;
  }

  /**
   * A report as a finding (findingAt). On a document the edit left alone (not the registry's:
   * the loader keeps an unchanged file's document), the same report as at the last check gives
   * the same finding object, neither located nor fingerprinted again, and what an editor made
   * of it is not made again: a rename runs again every rule that reads codes, and
   * `retries-unreachable` alone reports 541 findings in the 10k project's playbook.
   */
  finding(input: FindingInput): Finding {
    const registry = this.made?.checked.registry;
    if (registry === undefined || input.doc.file === this.made?.checked.registryFile) return findingAt(input);
    const key = JSON.stringify([input.rule, input.severity, input.target ?? "value", input.path, input.message, input.related ?? null, input.fix ?? null]);
    let now = this.reported.get(input.doc);
    if (now === undefined) this.reported.set(input.doc, (now = new Map()));
    // A report made twice in one check gives two findings, as without this.
    if (now.has(key)) return findingAt(input);
    const found = this.reportedBefore.get(input.doc)?.get(key) ?? findingAt(input);
    now.set(key, found);
    return found;
  }

  /**
   * The findings of per-verdict `rule` (at `severity`), verdict by verdict onto `out`, in
   * order, for the `count` verdicts: for verdict `index`, reused when its lines are unchanged (and the edit changed none of the `fields`
   * the rule reads of other verdicts), else made by `check` (and kept when they can be moved
   * with their verdict). A rule that reads the other verdicts only through a set of codes
   * (LintRule.codeSet, `codeSet` here) keeps, after an edit to those fields, the findings of
   * every unchanged verdict whose code is in both sets or in neither.
   */
  pushVerdictFindings(
    rule: string,
    severity: string,
    fields: readonly (keyof Verdict)[] | undefined,
    count: number,
    check: (index: number) => Finding[],
    codeSet: (() => ReadonlySet<string>) | undefined,
    out: Finding[],
  ): void {
    const made = this.made;
    if (!made) {
      for (let index = 0; index < count; index++) pushAll(out, check(index));
      return;
    }
    const key = `${rule}\u0000${severity}`;
    const entries: (Entry | undefined)[] = [];
    made.verdicts.set(key, entries);
    const change = this.change;
    const { first, end, registryFile } = made.checked;
    const others = fields === undefined || (change !== undefined && sameVerdicts(change, made.checked, fields));
    const lastFound = change?.before.verdicts.get(key);
    const lastCodes = change?.before.codeSets.get(key);
    let flipped: ReadonlySet<string> | undefined;
    if (codeSet) {
      // Unchanged fields, unchanged rest of the project: the set is the last check's.
      const codes = others && lastCodes !== undefined ? lastCodes : codeSet();
      made.codeSets.set(key, codes);
      if (!others && lastCodes !== undefined) flipped = symmetricDifference(codes, lastCodes);
    }
    const known = others || flipped ? lastFound : undefined;
    const verdicts = made.checked.registry.verdicts;
    // One loop in this method for every rule, not a closure a rule called by each verdict:
    // V8 compiles the loop once, where a loop over closures in runRules was compiled again
    // (the whole of runRules, on the stack) for each rule at the first edit after the open.
    for (let index = 0; index < count; index++) {
      const line = first[index] as number;
      const was = change ? (change.from[index] as number) : -1;
      const entry = was >= 0 ? known?.[was] : undefined;
      if (entry && (flipped === undefined || !flipped.has((verdicts[index] as Verdict).code))) {
        // Ten thousand verdicts, most of them unchanged and where they were: each keeps its entry.
        if (entry.line === line) pushAll(out, (entries[index] = entry).findings);
        else {
          const moved = entry.findings.map((f) => move(f, registryFile, (l) => l + line - entry.line));
          entries[index] = { line, findings: moved };
          pushAll(out, moved);
        }
        continue;
      }
      let found = check(index);
      // Checked again after an edit to a field the rule reads of the other verdicts (a
      // rename), an unchanged verdict mostly gets the findings it had: the last check's
      // objects then, so that what was made of them (an editor's diagnostics) is not made again.
      const before = was >= 0 ? lastFound?.[was] : undefined;
      if (before && before.line === line && sameFindings(before.findings, found)) found = before.findings;
      const last = index + 1 < first.length ? (first[index + 1] as number) : end;
      if (found.every((f) => movable(f, registryFile, (l) => l >= line && l < last))) entries[index] = { line, findings: found };
      pushAll(out, found);
    }
  }


  /**
   * The findings of a per-verdict rule's check of the rest of the project (LintRule.checkRest):
   * the last check's while the rest is the same (those after the verdict list moved with its
   * end), else made by `check`.
   */
  restFindings(rule: string, severity: string, check: () => Finding[]): Finding[] {
    const made = this.made;
    if (!made) return check();
    const key = `${rule}\u0000${severity}`;
    const before = this.change?.before;
    const known = before?.rests.get(key);
    let found: Finding[] | undefined;
    if (before && known) {
      const { first, end } = before.checked;
      const listStart = first.length > 0 ? first[0] : end;
      const to = made.checked.end;
      if (known.every((f) => movable(f, made.checked.registryFile, (line) => line < listStart || line >= end))) {
        found = to === end ? known : known.map((f) => move(f, made.checked.registryFile, (line) => (line >= end ? line + to - end : line)));
      }
    }
    found ??= check();
    made.rests.set(key, found);
    return found;
  }

  /**
   * The findings of a project-wide rule that reads only `fields` of the verdicts: the last
   * check's, moved with their verdicts, when the list has as many verdicts, the edit changed
   * none of those fields and none of the findings is in a verdict it changed; else made by `check`.
   */
  ruleFindings(rule: string, severity: string, fields: readonly (keyof Verdict)[], check: () => Finding[]): Finding[] {
    const made = this.made;
    if (!made) return check();
    const key = `${rule}\u0000${severity}`;
    const change = this.change;
    const known = change?.before.rules.get(key);
    let found: Finding[] | undefined;
    if (change && known && sameVerdicts(change, made.checked, fields)) found = moveAll(known, change, made.checked);
    found ??= check();
    made.rules.set(key, found);
    return found;
  }
}

function pushAll(out: Finding[], findings: readonly Finding[]): void {
  for (let i = 0; i < findings.length; i++) out.push(findings[i] as Finding);
}

/** The codes in one set and not the other. */
function symmetricDifference(a: ReadonlySet<string>, b: ReadonlySet<string>): ReadonlySet<string> {
  const out = new Set<string>();
  if (a === b) return out;
  for (const code of a) if (!b.has(code)) out.add(code);
  for (const code of b) if (!a.has(code)) out.add(code);
  return out;
}

const CLASSIFIER_FIELDS: readonly (keyof Verdict)[] = ["status", "match"];

/** The list has as many verdicts as before, and each the edit touched has the same `fields`. */
function sameVerdicts(change: Change, now: Checked, fields: readonly (keyof Verdict)[]): boolean {
  const was = change.before.checked.registry.verdicts;
  return change.changed !== undefined && change.changed.every((i) => sameFields(was[i], now.registry.verdicts[i], fields));
}

/** The two verdicts have the same `fields` (as their YAML gives them). */
function sameFields(a: Verdict, b: Verdict, fields: readonly (keyof Verdict)[]): boolean {
  return fields.every((f) => a[f] === b[f] || JSON.stringify(a[f]) === JSON.stringify(b[f]));
}

/**
 * What changed between the last check and this one: undefined when anything outside the
 * registry's verdict list did. The two registry texts are compared once (their common start
 * and end); a verdict is unchanged when all its lines lie in one of them, and it starts and
 * ends where its lines moved to.
 */
function changeOf(before: Made, now: Checked): Change | undefined {
  const was = before.checked;
  if (was.registryFile !== now.registryFile || !sameList(was.context, now.context)) return undefined;
  const a = was.source.text;
  const b = now.source.text;
  const from = new Int32Array(now.first.length).fill(-1);
  const bounds = (c: Checked, i: number) => [c.first[i], i + 1 < c.first.length ? c.first[i + 1] : c.end];
  if (a === b) {
    if (was.end !== now.end || !sameNumbers(was.first, now.first)) return undefined;
    for (let i = 0; i < from.length; i++) from[i] = i;
    return { before, from, changed: [], stayed: true };
  }
  const { start, oldEnd, newEnd } = editedSpan(a, b);
  // Lines before `startLine` are the same in both texts; so are lines after `oldLast` (before) and after `newLast` (now).
  const startLine = now.source.position(start).line;
  const oldLast = was.source.position(oldEnd).line;
  const newLast = now.source.position(newEnd).line;
  const moved = newLast - oldLast;
  const listStart = (c: Checked) => (c.first.length > 0 ? c.first[0] : c.end);
  // The text outside the list is the same only when the edit is inside the list.
  if (listStart(was) !== listStart(now) || startLine < listStart(now) || oldLast >= was.end || newLast >= now.end || now.end - was.end !== moved) return undefined;
  // A finding names its verdict by index (its path): a verdict keeps its findings only at the same index.
  const sameCount = now.first.length === was.first.length;
  for (let i = 0; i < Math.min(was.first.length, now.first.length); i++) {
    const [top, next] = bounds(was, i);
    const by = next <= startLine ? 0 : top > oldLast && sameCount ? moved : undefined;
    if (by === undefined) continue;
    const [nowTop, nowNext] = bounds(now, i);
    if (nowTop === top + by && nowNext === next + by) from[i] = i;
  }
  const changed: number[] = [];
  from.forEach((i, j) => {
    if (i < 0) changed.push(j);
  });
  return { before, from, changed: sameCount ? changed : undefined, stayed: moved === 0 && sameCount && was.end === now.end && sameNumbers(was.first, now.first) };
}

/** The findings of the last check at this check's lines; undefined when one is in a changed verdict (or quotes a line). */
function moveAll(findings: Finding[], change: Change, now: Checked): Finding[] | undefined {
  const was = change.before.checked;
  const file = now.registryFile;
  const listStart = was.first.length > 0 ? was.first[0] : was.end;
  /** The verdict a line of the last check's registry was in; -1 before the list, the count after it. */
  const verdictAt = (line: number): number => {
    if (line < listStart) return -1;
    if (line >= was.end) return was.first.length;
    // The last verdict starting at or before the line (the first starts at listStart).
    return firstAbove(was.first.length, (i) => was.first[i], line) - 1;
  };
  // Same count: verdict i is verdict i now, unchanged when from[i] is i.
  const unchanged = (v: number) => v < 0 || v === was.first.length || change.from[v] === v;
  if (!findings.every((f) => movable(f, file, (line) => unchanged(verdictAt(line))))) return undefined;
  if (change.stayed) return findings;
  const newLine = (line: number): number => {
    const v = verdictAt(line);
    if (v < 0) return line;
    if (v === was.first.length) return line + now.end - was.end;
    return line + now.first[v] - was.first[v];
  };
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

const sameFindings = (a: readonly Finding[], b: readonly Finding[]): boolean => a.length === b.length && a.every((f, i) => f === b[i] || JSON.stringify(f) === JSON.stringify(b[i]));
const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((s, i) => s === b[i]);
const sameNumbers = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((n, i) => n === b[i]);

/** The registry's verdicts as line ranges of its text; undefined when they are not one block list, a verdict a line or more. */
function checkedOf(project: Project): Checked | undefined {
  const registry = project.registry;
  if (!registry) return undefined;
  const source = project.sources.get(registry.doc.file);
  if (!source || source.text.includes("&")) return undefined; // an alias could carry text from outside a verdict's lines
  const verdicts = registry.value.verdicts;
  const first = verdicts.map((_, i) => registry.doc.locate(["verdicts", i]).line);
  for (let i = 1; i < first.length; i++) if (first[i] <= first[i - 1]) return undefined;
  const keys = Object.keys(registry.value);
  const after = keys[keys.indexOf("verdicts") + 1];
  const lineCount = source.position(source.text.length).line;
  const end = after === undefined ? lineCount + 1 : registry.doc.locate([after], "key").line;
  if (first.length > 0 && (end <= first[first.length - 1] || first[0] <= registry.doc.locate(["verdicts"], "key").line)) return undefined;
  // Each text as loaded: an unchanged file's is the very string of the last load (LoadCache), compared at once.
  const others = [...project.sources.values()].filter((s) => s !== source).flatMap((s) => [s.file, s.text]);
  const context = [project.configFile, ...others, (project.adrFiles ?? []).join("\u0000")];
  return { registry: registry.value, registryFile: registry.doc.file, source, first, end, context };
}
