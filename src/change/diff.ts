/** `failbook diff OLD NEW` as a library call: the change findings, the behaviour diff and the changelog. */
import { pointer, SEVERITY_RANK, type Finding } from "failbook-runtime/model/finding.js";
import { runRules, sortFindings } from "../lint/lint.js";
import { RULES } from "../lint/rules/index.js";
import { changelog, type ChangeEntry } from "./changelog.js";
import { checkChanges } from "./check.js";
import type { OutcomeChange } from "./outcome.js";
import type { Side } from "./rule.js";

export interface DiffReport {
  old: string;
  new: string;
  /** Breaking first (error severity), then warnings, then notes; by position within each. */
  findings: Finding[];
  /** How many findings are breaking (error severity): `diff` exits 1 when there is one. */
  breaking: number;
  /** Fixtures whose outcome differs, with before and after. */
  outcomes: OutcomeChange[];
  /** Every edit, breaking or not. */
  changes: ChangeEntry[];
}

export async function diffProjects(old: Side, current: Side): Promise<DiffReport> {
  const { findings, outcomes } = await checkChanges(old, current);
  const all = sortFindings([...findings, ...unresolvedAdrs(old, current)]);
  const ordered = all.sort((a, b) => SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity]); // stable: keeps position order
  return {
    old: old.label,
    new: current.label,
    findings: ordered,
    breaking: ordered.filter((f) => f.severity === "error").length,
    outcomes,
    changes: changelog(old, current),
  };
}

/**
 * A new or changed `adr:` reference must resolve to a file in `adr_dir`: the adr-unresolved
 * lint rule, limited to the references this change adds (lint reports all of them).
 */
function unresolvedAdrs(old: Side, current: Side): Finding[] {
  const rule = RULES.find((r) => r.id === "adr-unresolved");
  if (!rule) return [];
  const fresh = new Set<string>();
  const before = new Map(old.registry.value.verdicts.map((v) => [v.code, v.adr]));
  for (const [i, v] of current.registry.value.verdicts.entries()) if (v.adr && before.get(v.code) !== v.adr) fresh.add(pointer(["verdicts", i, "adr"]));
  for (const [name, cls] of Object.entries(current.registry.value.classes)) {
    const was = Object.hasOwn(old.registry.value.classes, name) ? old.registry.value.classes[name]?.adr : undefined;
    if (cls?.adr && was !== cls.adr) fresh.add(pointer(["classes", name, "adr"]));
  }
  return fresh.size === 0 ? [] : runRules(current.project, [rule]).filter((f) => fresh.has(f.path));
}
