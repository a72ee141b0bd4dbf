import type { ChangeRule } from "../rule.js";
import { sameValue, withoutRevision } from "../compare.js";

export const revisionNotBumped: ChangeRule = {
  id: "change/revision-not-bumped",
  severity: "error",
  description: "The registry changed but `revision` did not increase.",
  check({ baseline, current, report }) {
    const was = baseline.registry.value.revision;
    const now = current.registry.value.revision;
    if (now > was || sameValue(withoutRevision(baseline), withoutRevision(current))) return;
    report({
      message: `the registry changed but revision is ${now} (${was} in ${baseline.label}); raise it to ${was + 1} so generated bindings and runtimes can tell the taxonomies apart`,
      doc: current.registry.doc,
      path: ["revision"],
      related: [{ message: `revision ${was} in ${baseline.label}`, position: baseline.registry.doc.locate(["revision"]) }],
    });
  },
  example: `# baseline: revision: 3; now the verdicts changed, and still:
revision: 3`,
  fix: "Raise revision: by one, so that generated bindings and runtimes can tell the taxonomies apart.",
};
