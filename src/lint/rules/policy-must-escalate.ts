import { statusOf } from "failbook-runtime/model/registry.js";
import type { LintRule } from "../rule.js";
import { playbookEntries } from "./support.js";

/** The class whose verdicts a person, not the runtime, must decide. */
const POLICY_CLASS = "policy";

export const policyMustEscalate: LintRule = {
  id: "policy-must-escalate",
  severity: "error",
  description: "A verdict of class policy whose action is not escalate_to_human.",
  check(ctx) {
    for (const { verdict, index, code, action } of playbookEntries(ctx)) {
      // A reserved verdict never classifies; reserved-in-use wants `fail` for it.
      if (verdict.class !== POLICY_CLASS || action.action === "escalate_to_human" || statusOf(verdict) === "reserved") continue;
      ctx.report({
        message: `'${code}' is a policy refusal, which is not the runtime's to work around, but its action is ${action.action}; use action: escalate_to_human with a queue`,
        doc: ctx.playbook.doc,
        path: ["verdicts", code, "action"],
        related: [{ message: "class policy declared here", position: ctx.registry.doc.locate(["verdicts", index, "class"]) }],
      });
    }
  },
};
