import type { ChangeRule } from "../rule.js";
import { reportAtField, verdictPairs } from "../compare.js";

export const classChanged: ChangeRule = {
  id: "change/class-changed",
  severity: "error",
  description: "A verdict moved to another class without a changed `adr`.",
  check(ctx) {
    for (const p of verdictPairs(ctx.baseline, ctx.current)) {
      if (p.before.class === p.after.class || (p.after.adr && p.after.adr !== p.before.adr)) continue;
      const message = `verdict '${p.code}' moved from class '${p.before.class}' to '${p.after.class}' without a new adr; a class decides routing and the retry ceiling, so record the move in a decision record and point adr: at it`;
      reportAtField(ctx, p, "class", message, `class '${p.before.class}'`);
    }
  },
  example: `# baseline: class: transient; now:
  - { code: rate_limited, class: permanent, retryable: false, adr: ADR-0003 }   # same adr as before`,
  fix: "Record the move in a new decision record and point the verdict's adr: at it: a class decides routing and the retry ceiling.",
};
