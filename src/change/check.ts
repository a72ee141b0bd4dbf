/** Running the change rules: two loaded projects in, findings at the current files out. */
import type { Finding } from "failbook-runtime/model/finding.js";
import type { Project } from "../load/project.js";
import type { LintRule } from "../lint/rule.js";
import { runRules, sortFindings } from "../lint/lint.js";
import { behaviourChanges } from "./behaviour.js";
import type { OutcomeChange } from "./outcome.js";
import type { ChangeRule, Side } from "./rule.js";
import { CHANGE_RULES } from "./rules/index.js";

export interface ChangeReport {
  /** Change-rule findings, at the config's severities, sorted by file and position. */
  findings: Finding[];
  /** The behaviour diff (empty when change/outcome-changed is off). */
  outcomes: OutcomeChange[];
}

/**
 * Compare the current project with a baseline. Severities come from the current config's
 * `rules:`, like every lint rule.
 */
export async function checkChanges(baseline: Side, current: Side): Promise<ChangeReport> {
  const wanted = current.project.config.rules?.["change/outcome-changed"] !== "off";
  const outcomes = wanted ? await behaviourChanges(baseline, current) : [];
  const findings = runRules(current.project, CHANGE_RULES.map((rule) => bind(rule, baseline, current, outcomes)));
  return { findings: sortFindings(findings), outcomes };
}

/** A project as one side of a comparison, or undefined when its registry or playbook did not load. */
export function sideOf(project: Project, label: string): Side | undefined {
  const { registry, playbook } = project;
  return registry && playbook ? { label, project, registry, playbook, fixtures: project.fixtures } : undefined;
}

/** A change rule seen as a lint rule of the current project, bound to the baseline. */
function bind(rule: ChangeRule, baseline: Side, current: Side, outcomes: OutcomeChange[]): LintRule {
  return { ...rule, check: (ctx) => rule.check({ baseline, current, outcomeChanges: () => outcomes, report: ctx.report }) };
}
