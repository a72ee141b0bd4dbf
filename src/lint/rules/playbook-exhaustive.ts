import { statusOf } from "failbook-runtime/model/registry.js";
import type { LintRule } from "../rule.js";

export const playbookExhaustive: LintRule = {
  id: "playbook-exhaustive",
  severity: "error",
  description: "An active or deprecated verdict with no playbook action.",
  check({ registry, playbook, report }) {
    for (const [i, v] of registry.value.verdicts.entries()) {
      if (statusOf(v) === "reserved" || Object.hasOwn(playbook.value.verdicts, v.code)) continue;
      report({
        message: `verdict '${v.code}' has no playbook action; add an entry for it under verdicts: in ${playbook.doc.file}`,
        doc: registry.doc,
        path: ["verdicts", i, "code"],
      });
    }
  },
  example: `# playbooks/registry.yaml
verdicts:
  - { code: rate_limited, class: transient, retryable: true }
# playbooks/playbook.yaml
verdicts: {}                  # nothing for rate_limited`,
  fix: "Add an entry for the verdict under verdicts: in the playbook, e.g. rate_limited: { action: retry_with_backoff, max_retries: 3 }.",
};
