import type { ChangeRule } from "../rule.js";
import { showOutcome } from "../outcome.js";

export const outcomeChanged: ChangeRule = {
  id: "change/outcome-changed",
  severity: "info",
  description: "A fixture whose outcome (kind, verdict, attempts, elapsed_ms) differs under the baseline files.",
  check({ baseline, current, outcomeChanges, report }) {
    for (const change of outcomeChanges()) {
      const fixture = current.fixtures[change.index];
      report({
        message: `fixture '${change.fixture}' ends differently: before (${baseline.label}) ${showOutcome(change.before)}; after ${showOutcome(change.after)}`,
        doc: fixture.doc,
        path: fixture.doc.has(["name"]) ? ["name"] : [],
      });
    }
  },
};
