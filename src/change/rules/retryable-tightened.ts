import type { ChangeRule } from "../rule.js";
import { reportAtField, verdictPairs } from "../compare.js";

export const retryableTightened: ChangeRule = {
  id: "change/retryable-tightened",
  severity: "warning",
  description: "`retryable` true -> false.",
  check(ctx) {
    for (const p of verdictPairs(ctx.baseline, ctx.current)) {
      if (p.before.retryable !== true || p.after.retryable !== false) continue;
      const message = `verdict '${p.code}' is no longer retryable (true in ${ctx.baseline.label}); failures that used to recover by a retry will now end at once. Check its playbook action and the fixtures that retry it`;
      reportAtField(ctx, p, "retryable", message, "retryable: true");
    }
  },
  example: `# baseline: retryable: true; now:
  - { code: transient_timeout, class: transient, retryable: false }`,
  fix: "Check the verdict's playbook action and the fixtures that retry it: failures that recovered by a retry now end at once.",
};
