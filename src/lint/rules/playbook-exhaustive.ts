import { statusOf } from "failbook-runtime/model/registry.js";
import type { FindingFix } from "failbook-runtime/model/finding.js";
import type { LintRule } from "../rule.js";

export const playbookExhaustive: LintRule = {
  id: "playbook-exhaustive",
  severity: "error",
  verdictFields: ["code", "status"],
  description: "An active or deprecated verdict with no playbook action.",
  check({ registry, playbook, report }) {
    const verdicts = registry.value.verdicts;
    for (let i = 0; i < verdicts.length; i++) {
      const v = verdicts[i];
      if (statusOf(v) === "reserved" || Object.hasOwn(playbook.value.verdicts, v.code)) continue;
      report({
        message: `verdict '${v.code}' has no playbook action; add an entry for it under verdicts: in ${playbook.doc.file}`,
        doc: registry.doc,
        path: ["verdicts", i, "code"],
        fix: addEntry(v.code, playbook.doc.file, playbook.value.escalation_queue),
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

/** The entry a person completes: escalation is the one action that is never wrong to start from. */
const addEntry = (code: string, file: string, queue: string | undefined): FindingFix => ({
  title: `Add a playbook entry for '${code}' (escalate_to_human; choose its action)`,
  add: { file, path: "/verdicts", key: code, value: { action: "escalate_to_human", queue: queue ?? "oncall" } },
});
