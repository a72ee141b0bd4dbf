import { statusOf } from "failbook-runtime/model/registry.js";
import { classifiedFailures, exercisedVerdicts } from "../../simulate/coverage.js";
import { perVerdict, type RuleContext } from "../rule.js";

/** What each check's fixtures exercise, made once a check (and only when a verdict needs it). */
const exercisedIn = new WeakMap<RuleContext, Set<string>>();

export const verdictUntested = perVerdict({
  id: "verdict-untested",
  severity: "info",
  // Verdict by verdict; what the fixtures exercise reads the other verdicts through the classifier.
  verdictFields: ["code", "status", "match"],
  // ... and through the set of codes the fixtures exercise alone: after a rename, only the verdicts of a code that went into or out of it are checked again.
  codeSet: (ctx) => exercised(ctx),
  description: "An active verdict that no example and no fixture exercises (no fixture with a golden records a failure that classifies as it): nothing shows which errors it is for.",
  checkVerdict(ctx, verdict, v) {
    if (statusOf(verdict) !== "active" || (verdict.examples ?? []).length > 0 || exercised(ctx).has(verdict.code)) return;
    ctx.report({
      message: `verdict '${verdict.code}' has no examples and no fixture exercises it (none with a golden records a failure that classifies as it), so nothing checks which errors it is for; add examples: (an adapter error that classifies to it), or a fixture (failbook new fixture --verdict ${verdict.code})`,
      doc: ctx.registry.doc,
      path: ["verdicts", v, "code"],
    });
  },
  example: `# playbooks/registry.yaml
  - code: card_declined        # no examples:, and no fixture exercises it
    class: permanent
    retryable: false
    match: [{ kind: card_error }]`,
  fix: "Add examples: (an adapter error that classifies to the verdict), or a fixture for it: failbook new fixture --verdict CODE.",
});

/** The codes the fixtures exercise: what simulate --coverage counts, with the goldens left to simulate to check. */
function exercised(ctx: RuleContext): Set<string> {
  let codes = exercisedIn.get(ctx);
  if (codes === undefined) {
    codes = new Set<string>();
    for (const { value: fixture } of ctx.fixtures) {
      // Without a golden a fixture exercises nothing (exercisedVerdicts): its failures need no classifying.
      if (fixture.expect === undefined) continue;
      const classified = classifiedFailures(fixture, ctx.registry.value, ctx.playbook.value);
      for (const code of exercisedVerdicts({ classified, golden: "unchecked" })) codes.add(code);
    }
    exercisedIn.set(ctx, codes);
  }
  return codes;
}
