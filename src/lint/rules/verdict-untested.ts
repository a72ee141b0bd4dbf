import { statusOf } from "failbook-runtime/model/registry.js";
import { classifiedFailures, exercisedVerdicts } from "../../simulate/coverage.js";
import type { LintRule } from "../rule.js";

export const verdictUntested: LintRule = {
  id: "verdict-untested",
  severity: "info",
  verdictFields: ["code", "status", "match", "examples"],
  description: "An active verdict that no example and no fixture exercises (no fixture with a golden records a failure that classifies as it): nothing shows which errors it is for.",
  check({ registry, playbook, fixtures, report }) {
    const candidates = registry.value.verdicts.flatMap((verdict, v) => (statusOf(verdict) === "active" && (verdict.examples ?? []).length === 0 ? [{ verdict, v }] : []));
    if (candidates.length === 0) return;
    // What simulate --coverage counts, with the goldens left to simulate to check.
    const exercised = new Set<string>();
    for (const { value: fixture } of fixtures) {
      const classified = classifiedFailures(fixture, registry.value, playbook.value);
      for (const code of exercisedVerdicts({ classified, golden: fixture.expect === undefined ? "none" : "unchecked" })) exercised.add(code);
    }
    for (const { verdict, v } of candidates) {
      if (exercised.has(verdict.code)) continue;
      report({
        message: `verdict '${verdict.code}' has no examples and no fixture exercises it (none with a golden records a failure that classifies as it), so nothing checks which errors it is for; add examples: (an adapter error that classifies to it), or a fixture (failbook new fixture --verdict ${verdict.code})`,
        doc: registry.doc,
        path: ["verdicts", v, "code"],
      });
    }
  },
  example: `# playbooks/registry.yaml
  - code: card_declined        # no examples:, and no fixture exercises it
    class: permanent
    retryable: false
    match: [{ kind: card_error }]`,
  fix: "Add examples: (an adapter error that classifies to the verdict), or a fixture for it: failbook new fixture --verdict CODE.",
};
