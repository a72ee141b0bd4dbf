import { statusOf } from "failbook-runtime/model/registry.js";
import type { ChangeRule } from "../rule.js";
import { reportAtField, verdictPairs } from "../compare.js";

export const reservedActivated: ChangeRule = {
  id: "change/reserved-activated",
  severity: "warning",
  description: "A reserved verdict made active.",
  check(ctx) {
    for (const p of verdictPairs(ctx.baseline, ctx.current)) {
      if (statusOf(p.before) !== "reserved" || statusOf(p.after) !== "active") continue;
      // Without a status key (active by default) the finding points at the verdict itself.
      const message = `verdict '${p.code}' was reserved in ${ctx.baseline.label} and is now active: its match rules start classifying errors and its playbook action starts running; make sure adapters and fixtures are ready for it`;
      reportAtField(ctx, p, "status", message, "reserved");
    }
  },
  example: `# baseline: status: reserved; now:
  - { code: quota_exceeded, class: transient, retryable: true, status: active, match: [{ kind: quota }] }`,
  fix: "Make sure adapters report the errors its rules match and that fixtures cover its action: it now classifies errors and its action runs.",
};
