import type { LintRule } from "../rule.js";
import { playbookEntries } from "./support.js";

const GIVE_UP = new Set(["fail", "dead_letter"]);

export const retryableNotRetried: LintRule = {
  id: "retryable-not-retried",
  severity: "info",
  verdictFields: ["code", "retryable"],
  description: "A retryable: true verdict whose action is fail or dead_letter: a failure that may pass on retry is given up at once.",
  check(ctx) {
    for (const { verdict, index, code, action } of playbookEntries(ctx)) {
      if (!verdict.retryable || !GIVE_UP.has(action.action)) continue;
      ctx.report({
        message: `'${code}' is retryable: true, but its action ${action.action} gives up on the first failure; retry it (retry_with_backoff), or mark the verdict retryable: false if repeating the call is not safe`,
        doc: ctx.playbook.doc,
        path: ["verdicts", code, "action"],
        related: [{ message: "declared retryable: true here", position: ctx.registry.doc.locate(["verdicts", index, "retryable"]) }],
      });
    }
  },
  example: `# playbooks/registry.yaml
  - { code: transient_timeout, class: transient, retryable: true }
# playbooks/playbook.yaml
  transient_timeout: { action: fail }`,
  fix: "Retry it (retry_with_backoff), or mark the verdict retryable: false if repeating the call is not safe.",
};
