import { circuitOpenError } from "failbook-runtime/engine/policies/breakers.js";
import type { FindingFix } from "failbook-runtime/model/finding.js";
import type { Registry } from "failbook-runtime/model/registry.js";
import type { Loaded } from "../../load/project.js";
import type { LintRule } from "../rule.js";
import { breakerGlobs, onlyFallbackClassifies } from "./tools-mentioned.js";

/**
 * SPEC 18: an attempt an open breaker stops fails as the adapter error `circuit_open`, and
 * the registry decides what that means. When only the fallback verdict catches it, nobody
 * decided: an open circuit is handled like an error nobody recognised.
 */
export const breakerUnclassified: LintRule = {
  id: "breaker-unclassified",
  severity: "error",
  verdictFields: ["code", "status", "match", "examples"],
  description: "A circuit breaker whose circuit_open error classifies only to the fallback verdict: nobody said what an open circuit means.",
  example: `# playbooks/playbook.yaml
circuit_breakers: { payments: { tools: "payments.*", failure_ratio: 0.5, minimum_throughput: 20, sampling_ms: 30000, break_ms: 5000 } }
# playbooks/registry.yaml: no verdict matches { kind: circuit_open }`,
  fix: "Add a verdict that matches { kind: circuit_open } and give it an action (a fallback tool, fail, escalate_to_human): an open circuit is not an unknown failure.",
  check({ registry, playbook, project, report }) {
    const breakers = playbook.value.circuit_breakers ?? {};
    const fallback = registry.value.fallback;
    for (const name of Object.keys(breakers)) {
      if (!onlyFallbackClassifies(project, registry.value, playbook.value, circuitOpenError(name), breakerGlobs(breakers[name]))) continue;
      report({
        message: `breaker '${name}' fails the attempts it stops as the adapter error circuit_open, but no verdict matches it, so an open circuit classifies to the fallback verdict '${fallback}' like an error nobody recognised; add a verdict that matches kind circuit_open, with the action an open circuit should take (fallback to another tool, fail at once, escalate)`,
        doc: playbook.doc,
        path: ["circuit_breakers", name],
        target: "key",
        fix: circuitOpenVerdict(name, registry),
      });
    }
  },
};

/** The verdict a person completes: an open circuit recognised, not retried (the breaker is the retry policy). */
function circuitOpenVerdict(breaker: string, registry: Loaded<Registry>): FindingFix {
  const taken = new Set(registry.value.verdicts.map((v) => v.code));
  const code = taken.has("circuit_open") ? `${breaker}.circuit_open` : "circuit_open";
  const classes = Object.keys(registry.value.classes);
  return {
    title: `Add a verdict '${code}' that matches kind circuit_open`,
    add: {
      file: registry.doc.file,
      path: "/verdicts",
      value: {
        code,
        class: classes.includes("transient") ? "transient" : classes[0],
        retryable: false,
        side_effect: "none",
        summary: `A circuit breaker is open: the call was not attempted.`,
        recovery: "Wait for the breaker to close, or send the call to another tool.",
        match: [{ kind: "circuit_open" }],
      },
    },
  };
}
