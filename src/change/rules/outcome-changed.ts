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
  example: `# a fixture ended recovered after 2 attempts under the baseline's playbook;
# under today's it ends exhausted after 4 (max_retries was raised)`,
  fix: "Nothing to fix when the change is meant: this lists what behaves differently. Check each changed fixture, then record its new golden with failbook simulate --update.",
};
