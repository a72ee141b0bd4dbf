/** Running the rules over a loaded project. */
import type { Severity, SeveritySetting } from "../model/config.js";
import { SEVERITY_RANK, type Finding } from "../model/finding.js";
import { findingAt } from "../load/finding.js";
import type { Project } from "../load/project.js";
import type { LintRule, RuleMeta } from "./rule.js";
import { LOAD_RULES } from "./rule.js";
import { RULES } from "./rules/index.js";

export interface LintOptions {
  /** Extra rules (change control adds its own). */
  extraRules?: LintRule[];
}

export function allRuleMeta(): RuleMeta[] {
  return [...LOAD_RULES, ...RULES.map(({ id, severity, description }) => ({ id, severity, description }))];
}

/** Lint a project: load findings first, then every enabled rule, sorted by file and position. */
export function lintProject(project: Project, loadFindings: Finding[], options: LintOptions = {}): Finding[] {
  const overrides = project.config.rules ?? {};
  const out: Finding[] = [];
  for (const f of loadFindings) {
    const severity = effectiveSeverity(f.rule, f.severity, overrides);
    if (severity) out.push({ ...f, severity });
  }
  const registry = project.registry;
  const playbook = project.playbook;
  if (registry && playbook) {
    for (const rule of [...RULES, ...(options.extraRules ?? [])]) {
      const severity = effectiveSeverity(rule.id, rule.severity, overrides);
      if (!severity) continue;
      rule.check({
        project,
        registry,
        playbook,
        fixtures: project.fixtures,
        report: (r) => out.push(findingAt({ rule: rule.id, severity, ...r })),
      });
    }
  }
  return sortFindings(out);
}

function effectiveSeverity(id: string, def: Severity, overrides: Record<string, SeveritySetting>): Severity | undefined {
  const set = overrides[id];
  if (set === "off") return undefined;
  return set ?? def;
}

export function sortFindings(findings: Finding[]): Finding[] {
  return [...findings].sort(
    (a, b) =>
      cmp(a.file, b.file) || a.line - b.line || a.column - b.column || SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] || cmp(a.rule, b.rule) || cmp(a.message, b.message),
  );
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function countBySeverity(findings: Finding[]): { errors: number; warnings: number; infos: number } {
  return {
    errors: findings.filter((f) => f.severity === "error").length,
    warnings: findings.filter((f) => f.severity === "warning").length,
    infos: findings.filter((f) => f.severity === "info").length,
  };
}
