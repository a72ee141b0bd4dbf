import { closest } from "../../util/text.js";
import type { LintRule } from "../rule.js";
import { breakerGlobs, mentionedTools, reaches } from "./tools-mentioned.js";

/** SPEC 18: a breaker whose `tools` reach no tool the project mentions is most likely a misspelt glob, and guards nothing. */
export const breakerGuardsNothing: LintRule = {
  id: "breaker-guards-nothing",
  severity: "warning",
  verdictFields: ["match", "examples"],
  description: "A circuit breaker whose tools match no tool the project mentions (fixtures, tools: entries, fallbacks, match rules).",
  example: `# playbooks/playbook.yaml
circuit_breakers: { payments: { tools: "payment.*", failure_ratio: 0.5, minimum_throughput: 20, sampling_ms: 30000, break_ms: 5000 } }   # the tools are payments.*`,
  fix: "Make the tools glob of the breaker match the tools the calls name (fixtures, tools: entries, fallbacks), or remove the breaker.",
  check({ playbook, project, report }) {
    const breakers = playbook.value.circuit_breakers;
    // What the project mentions is a walk of every fixture and rule: only a breaker needs it.
    if (breakers === undefined || Object.keys(breakers).length === 0) return;
    const tools = mentionedTools(project);
    for (const name of Object.keys(breakers)) {
      const globs = breakerGlobs(breakers[name]);
      if (globs.some((glob) => tools.some((tool) => reaches(glob, tool)))) continue;
      const near = closest(globs[0], tools);
      const hint = near === undefined ? "" : ` (did you mean '${near}'?)`;
      const shown = globs.map((g) => `'${g}'`).join(", ");
      report({
        message: `breaker '${name}' guards ${shown}, but no fixture, tools: entry, fallback or match rule of the project mentions a tool it matches, so nothing shows it guarding anything${hint}; fix the glob, or add a fixture that calls a guarded tool`,
        doc: playbook.doc,
        path: ["circuit_breakers", name, "tools"],
      });
    }
  },
};
