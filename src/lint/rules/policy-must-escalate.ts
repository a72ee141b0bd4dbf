import { requiresHuman, statusOf } from "failbook-runtime/model/registry.js";
import type { LintRule } from "../rule.js";
import { playbookEntries } from "./support.js";

export const policyMustEscalate: LintRule = {
  id: "policy-must-escalate",
  severity: "error",
  verdictFields: ["code", "class", "status"],
  description: "A verdict of a class that requires a human (requires_human: true, or a class named policy unless it says false) whose action is not escalate_to_human.",
  check(ctx) {
    const registry = ctx.registry.value;
    const entries = playbookEntries(ctx);
    for (let e = 0; e < entries.length; e++) {
      const { verdict, index, code, action } = entries[e];
      // A reserved verdict never classifies; reserved-in-use wants `fail` for it.
      if (action.action === "escalate_to_human" || statusOf(verdict) === "reserved" || !requiresHuman(registry, verdict.class)) continue;
      const flagged = registry.classes[verdict.class].requires_human === true;
      // The policy class keeps its message (a baseline's fingerprints hash it).
      const what = flagged ? `of class ${verdict.class}, which says requires_human: true (a person decides its failures)` : "a policy refusal, which is not the runtime's to work around";
      ctx.report({
        message: `'${code}' is ${what}, but its action is ${action.action}; use action: escalate_to_human with a queue`,
        doc: ctx.playbook.doc,
        path: ["verdicts", code, "action"],
        related: [
          { message: `class ${verdict.class} declared here`, position: ctx.registry.doc.locate(["verdicts", index, "class"]) },
          ...(flagged ? [{ message: "requires_human set here", position: ctx.registry.doc.locate(["classes", verdict.class, "requires_human"]) }] : []),
        ],
      });
    }
  },
  example: `# playbooks/registry.yaml
  - { code: policy_denied, class: policy, retryable: false }
# playbooks/playbook.yaml
  policy_denied: { action: fail }`,
  fix: "Give the verdict action: escalate_to_human with a queue: a refusal a person must decide is not the runtime's to work around.",
};
