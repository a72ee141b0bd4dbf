/**
 * The changelog of `failbook diff`: every edit between two sides, in words a reviewer
 * reads — verdicts, classes and actions added, removed or changed, field by field.
 */
import type { PathSegment, Position } from "failbook-runtime/model/finding.js";
import type { Verdict } from "failbook-runtime/model/registry.js";
import type { YamlDocument } from "../load/yaml.js";
import { describeChange, fieldChanges, sameValue, showValue, verdictIndex, verdictPairs } from "./compare.js";
import type { Side } from "./rule.js";

export type ChangeSubject = "registry" | "class" | "verdict" | "playbook" | "action" | "fixture";

export interface ChangeEntry {
  subject: ChangeSubject;
  change: "added" | "removed" | "changed";
  /** The code, class, key or fixture name. */
  name: string;
  /** What changed, e.g. `retryable false → true`. */
  details: string[];
  /** Where it stands now, or where it stood in the baseline when it was removed. */
  position: Position;
}

export function changelog(baseline: Side, current: Side): ChangeEntry[] {
  return [...registryChanges(baseline, current), ...playbookChanges(baseline, current), ...fixtureChanges(baseline, current)];
}

function registryChanges(baseline: Side, current: Side): ChangeEntry[] {
  const out: ChangeEntry[] = [];
  const was = baseline.registry;
  const now = current.registry;
  out.push(...keyChanges("registry", was.value, now.value, was.doc, now.doc, ["classes", "verdicts"]));
  const classesBefore = was.value.classes;
  const classesAfter = now.value.classes;
  for (const [name, cls] of Object.entries(classesAfter)) {
    const old = Object.hasOwn(classesBefore, name) ? classesBefore[name] : undefined;
    if (!old) out.push(entry("class", "added", name, cls?.adr ? [`adr ${cls.adr}`] : [], now.doc, ["classes", name]));
    else if (!sameValue(old, cls)) out.push(entry("class", "changed", name, fieldChanges(old ?? {}, cls ?? {}), now.doc, ["classes", name]));
  }
  for (const name of Object.keys(classesBefore)) if (!Object.hasOwn(classesAfter, name)) out.push(entry("class", "removed", name, [], was.doc, ["classes", name]));

  const before = verdictIndex(baseline);
  const after = verdictIndex(current);
  for (const [code, i] of after) if (!before.has(code)) out.push(entry("verdict", "added", code, verdictFacts(now.value.verdicts[i]), now.doc, ["verdicts", i, "code"]));
  for (const [code, i] of before) if (!after.has(code)) out.push(entry("verdict", "removed", code, [`was ${was.value.verdicts[i].status ?? "active"}`], was.doc, ["verdicts", i, "code"]));
  for (const p of verdictPairs(baseline, current)) {
    const details = fieldChanges(p.before, p.after);
    if (details.length > 0) out.push(entry("verdict", "changed", p.code, details, now.doc, ["verdicts", p.afterIndex, "code"]));
  }
  return out;
}

function playbookChanges(baseline: Side, current: Side): ChangeEntry[] {
  const was = baseline.playbook;
  const now = current.playbook;
  const out = keyChanges("playbook", was.value, now.value, was.doc, now.doc, ["verdicts"]);
  for (const [code, action] of Object.entries(now.value.verdicts)) {
    const old = Object.hasOwn(was.value.verdicts, code) ? was.value.verdicts[code] : undefined;
    if (!old) out.push(entry("action", "added", code, [action.action], now.doc, ["verdicts", code]));
    else if (!sameValue(old, action)) out.push(entry("action", "changed", code, [describeChange(old, action)], now.doc, ["verdicts", code]));
  }
  for (const code of Object.keys(was.value.verdicts)) {
    if (!Object.hasOwn(now.value.verdicts, code)) out.push(entry("action", "removed", code, [was.value.verdicts[code].action], was.doc, ["verdicts", code]));
  }
  return out;
}

function fixtureChanges(baseline: Side, current: Side): ChangeEntry[] {
  const names = (side: Side) => new Map(side.fixtures.map((f) => [f.value.name, f] as const));
  const before = names(baseline);
  const after = names(current);
  const out: ChangeEntry[] = [];
  for (const [name, f] of after) if (!before.has(name)) out.push(entry("fixture", "added", name, [], f.doc, ["name"]));
  for (const [name, f] of before) if (!after.has(name)) out.push(entry("fixture", "removed", name, [], f.doc, ["name"]));
  return out;
}

/** Top-level keys of a document, other than its collections, added, removed or changed. */
function keyChanges(subject: "registry" | "playbook", before: object, after: object, wasDoc: YamlDocument, nowDoc: YamlDocument, skip: string[]): ChangeEntry[] {
  const b = before as Record<string, unknown>;
  const a = after as Record<string, unknown>;
  const out: ChangeEntry[] = [];
  for (const key of [...new Set([...Object.keys(b), ...Object.keys(a)])]) {
    if (skip.includes(key) || sameValue(b[key], a[key])) continue;
    const change = b[key] === undefined ? "added" : a[key] === undefined ? "removed" : "changed";
    const doc = change === "removed" ? wasDoc : nowDoc;
    out.push(entry(subject, change, key, [`${showValue(b[key])} → ${showValue(a[key])}`], doc, [key]));
  }
  return out;
}

function verdictFacts(v: Verdict): string[] {
  return [`class ${v.class}`, `retryable ${v.retryable}`, ...(v.status && v.status !== "active" ? [`status ${v.status}`] : []), ...(v.adr ? [`adr ${v.adr}`] : [])];
}

function entry(subject: ChangeSubject, change: ChangeEntry["change"], name: string, details: string[], doc: YamlDocument, path: PathSegment[]): ChangeEntry {
  return { subject, change, name, details, position: doc.locate(path, "key") };
}
