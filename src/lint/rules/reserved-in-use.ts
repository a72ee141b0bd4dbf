import { statusOf } from "failbook-runtime/model/registry.js";
import type { LintRule } from "../rule.js";

export const reservedInUse: LintRule = {
  id: "reserved-in-use",
  severity: "error",
  verdictFields: ["code", "status", "match"],
  description: "A reserved verdict with match rules or a playbook action other than fail.",
  check({ registry, playbook, report }) {
    const verdicts = registry.value.verdicts;
    for (let i = 0; i < verdicts.length; i++) {
      const v = verdicts[i];
      if (statusOf(v) !== "reserved") continue;
      if ((v.match ?? []).length > 0) {
        report({
          message: `reserved verdict '${v.code}' has match rules, but reserved verdicts never match, so errors meant for it fall through to other rules; remove the rules, or set status: active to put it in use`,
          doc: registry.doc,
          path: ["verdicts", i, "match"],
          target: "key",
        });
      }
      const action = Object.hasOwn(playbook.value.verdicts, v.code) ? playbook.value.verdicts[v.code] : undefined;
      if (action && action.action !== "fail") {
        report({
          message: `'${v.code}' is reserved, so it is never classified and its action ${action.action} never runs; use action: fail as the placeholder, or activate the verdict`,
          doc: playbook.doc,
          path: ["verdicts", v.code, "action"],
          related: [{ message: "declared reserved here", position: registry.doc.locate(["verdicts", i, "status"]) }],
        });
      }
    }
  },
  example: `# playbooks/registry.yaml
  - { code: quota_exceeded, class: transient, retryable: true, status: reserved, match: [{ kind: quota }] }`,
  fix: "Remove the match rules and give the reserved verdict action: fail as a placeholder, or set status: active to put it in use.",
};
