import { isRetryAction } from "failbook-runtime/model/playbook.js";
import type { LintRule } from "../rule.js";
import { playbookEntries } from "./support.js";

export const retryNotRetryable: LintRule = {
  id: "retry-not-retryable",
  severity: "error",
  verdictFields: ["code", "retryable"],
  description: "A retry action on a retryable: false verdict.",
  check(ctx) {
    const entries = playbookEntries(ctx);
    for (let e = 0; e < entries.length; e++) {
      const { verdict, index, code, action } = entries[e];
      if (verdict.retryable || !isRetryAction(action)) continue;
      ctx.report({
        message: `'${code}' is retryable: false, but its action ${action.action} retries it; choose an action that does not retry (deprecate_tool_call, escalate_to_human, fail), or mark the verdict retryable if repeating the call is safe`,
        doc: ctx.playbook.doc,
        path: ["verdicts", code, "action"],
        related: [{ message: "declared retryable: false here", position: ctx.registry.doc.locate(["verdicts", index, "retryable"]) }],
      });
    }
  },
  example: `# playbooks/registry.yaml
  - { code: card_declined, class: permanent, retryable: false }
# playbooks/playbook.yaml
  card_declined: { action: retry_with_backoff, max_retries: 2 }`,
  fix: "Choose an action that does not retry (deprecate_tool_call, escalate_to_human, fail), or mark the verdict retryable: true if repeating the call is safe.",
};
