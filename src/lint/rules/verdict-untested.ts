import { statusOf } from "failbook-runtime/model/registry.js";
import type { LintRule } from "../rule.js";
import { expectedVerdicts } from "./fixture-invalid.js";

export const verdictUntested: LintRule = {
  id: "verdict-untested",
  severity: "info",
  description: "An active verdict that no example and no fixture expect exercises: nothing shows which errors it is for.",
  check({ registry, fixtures, report }) {
    const named = new Set<string>();
    for (const { value: fixture } of fixtures) {
      for (const { value } of expectedVerdicts(fixture.expect)) if (typeof value === "string") named.add(value);
    }
    for (const [v, verdict] of registry.value.verdicts.entries()) {
      if (statusOf(verdict) !== "active" || (verdict.examples ?? []).length > 0 || named.has(verdict.code)) continue;
      report({
        message: `verdict '${verdict.code}' has no examples and no fixture's expect names it, so nothing checks which errors it is for; add examples: (an adapter error that classifies to it), or a fixture (failbook new fixture --verdict ${verdict.code})`,
        doc: registry.doc,
        path: ["verdicts", v, "code"],
      });
    }
  },
};
