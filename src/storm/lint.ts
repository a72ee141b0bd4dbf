/**
 * Lint of storm files (SPEC 19): their load findings (YAML, schema) and the storm rules,
 * each a module under rules/, at the severities the config sets. The rules join the one
 * rule catalogue, so `rules:` may set them and SARIF and the README list them.
 */
import type { Finding } from "failbook-runtime/model/finding.js";
import { findingAt } from "../load/finding.js";
import type { Project } from "../load/project.js";
import { effectiveSeverity } from "../lint/lint.js";
import { registerRules } from "../lint/rule.js";
import type { StormLoad } from "./load.js";
import { errorUnclassified } from "./rules/error-unclassified.js";
import { phaseOutsideDuration } from "./rules/phase-outside-duration.js";
import { phasesOverlap } from "./rules/phases-overlap.js";
import type { StormRule } from "./rules/rule.js";
import { toolUnknown } from "./rules/tool-unknown.js";
import { tooLarge } from "./rules/too-large.js";
import { storeUnused } from "./rules/store-unused.js";

export const STORM_RULES: readonly StormRule[] = [phasesOverlap, phaseOutsideDuration, toolUnknown, errorUnclassified, tooLarge, storeUnused];

registerRules(STORM_RULES);

/** The storms' load findings and every enabled storm rule's, unsorted. Rules run only when the registry and playbook loaded. */
export function lintStorms(project: Project, load: StormLoad): Finding[] {
  const overrides = project.config.rules ?? {};
  const out: Finding[] = [];
  for (const f of load.findings) {
    const severity = effectiveSeverity(f.rule, f.severity, overrides);
    if (severity) out.push({ ...f, severity });
  }
  const registry = project.registry?.value;
  const playbook = project.playbook?.value;
  if (!registry || !playbook) return out;
  for (const rule of STORM_RULES) {
    const severity = effectiveSeverity(rule.id, rule.severity, overrides);
    if (!severity) continue;
    for (const storm of load.storms) {
      rule.check({ project, registry, playbook, storm, report: (r) => out.push(findingAt({ rule: rule.id, severity, doc: storm.doc, ...r })) });
    }
  }
  return out;
}
