import { isRetryAction } from "failbook-runtime/model/playbook.js";
import type { LintRule } from "../rule.js";
import { playbookEntries } from "./support.js";

export const classRetryCeiling: LintRule = {
  id: "class-retry-ceiling",
  severity: "error",
  verdictFields: ["code", "class"],
  description: "max_retries above the class's max_retries.",
  check(ctx) {
    const entries = playbookEntries(ctx);
    for (let e = 0; e < entries.length; e++) {
      const { verdict, code, action } = entries[e];
      if (!isRetryAction(action) || !Object.hasOwn(ctx.registry.value.classes, verdict.class)) continue;
      const ceiling = ctx.registry.value.classes[verdict.class].max_retries;
      if (ceiling === undefined || action.max_retries <= ceiling) continue;
      ctx.report({
        message: `max_retries ${action.max_retries} for '${code}' is above the ceiling of its class '${verdict.class}' (max_retries ${ceiling}), so the runtime stops at ${ceiling}; lower it to ${ceiling}, or raise the class's max_retries in ${ctx.registry.doc.file}`,
        doc: ctx.playbook.doc,
        path: ["verdicts", code, "max_retries"],
        related: [{ message: `class '${verdict.class}' sets max_retries here`, position: ctx.registry.doc.locate(["classes", verdict.class, "max_retries"]) }],
      });
    }
  },
  example: `# playbooks/registry.yaml
classes: { transient: { description: may pass, max_retries: 3 } }
# playbooks/playbook.yaml
  rate_limited: { action: retry_with_backoff, max_retries: 5, backoff_ms: [100, 200, 400, 800, 1600] }`,
  fix: "Lower the action's max_retries to the class's ceiling, or raise the class's max_retries in the registry if the whole class may retry more.",
};
