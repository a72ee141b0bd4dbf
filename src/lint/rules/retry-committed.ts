import { isRetryAction } from "failbook-runtime/model/playbook.js";
import { sideEffectOf } from "failbook-runtime/model/registry.js";
import type { LintRule } from "../rule.js";
import { playbookEntries } from "./support.js";

export const retryCommitted: LintRule = {
  id: "retry-committed",
  severity: "error",
  verdictFields: ["code", "side_effect"],
  description: "A retry action on a side_effect: committed verdict.",
  check(ctx) {
    for (const { verdict, index, code, action } of playbookEntries(ctx)) {
      if (sideEffectOf(verdict) !== "committed" || !isRetryAction(action)) continue;
      ctx.report({
        message: `'${code}' means the side effect is already committed, but its action ${action.action} repeats the call; use deprecate_tool_call (re-plan from the upstream's state) or escalate_to_human instead`,
        doc: ctx.playbook.doc,
        path: ["verdicts", code, "action"],
        related: [{ message: "declared side_effect: committed here", position: ctx.registry.doc.locate(["verdicts", index, "side_effect"]) }],
      });
    }
  },
  example: `# playbooks/registry.yaml
  - { code: write_committed, class: permanent, retryable: true, side_effect: committed }
# playbooks/playbook.yaml
  write_committed: { action: retry_with_backoff, max_retries: 2 }`,
  fix: "Do not repeat a call whose effect already happened: use deprecate_tool_call (re-plan from the upstream's state), issue_reversal or escalate_to_human.",
};
