import type { ChangeRule } from "../rule.js";
import { reportAtField, verdictPairs } from "../compare.js";

export const retryableLoosened: ChangeRule = {
  id: "change/retryable-loosened",
  severity: "error",
  description: "`retryable` false -> true.",
  check(ctx) {
    for (const p of verdictPairs(ctx.baseline, ctx.current)) {
      if (p.before.retryable !== false || p.after.retryable !== true) continue;
      const message = `verdict '${p.code}' became retryable (false in ${ctx.baseline.label}); runtimes will now repeat calls that failed this way. If a retry is really safe, say why in a new adr, or keep retryable: false`;
      reportAtField(ctx, p, "retryable", message, "retryable: false");
    }
  },
  example: `# baseline: retryable: false; now:
  - { code: card_declined, class: permanent, retryable: true, adr: ADR-0007 }   # same adr as before`,
  fix: "Keep retryable: false, or record why a retry is now safe in a new decision record and point adr: at it.",
};
