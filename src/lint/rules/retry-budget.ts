import type { PathSegment } from "failbook-runtime/model/finding.js";
import { isRetryAction, type Playbook } from "failbook-runtime/model/playbook.js";
import { statusOf, type Registry, type Verdict } from "failbook-runtime/model/registry.js";
import { worstCase, type WorstCase } from "failbook-runtime/engine/worstcase.js";
import type { LintRule } from "../rule.js";
import { playbookEntries } from "./support.js";
import { abbreviatedSum } from "../../util/text.js";

/** How many delays a message spells out before it abbreviates. */
const SHOWN_DELAYS = 5;

export const retryBudget: LintRule = {
  id: "retry-budget",
  severity: "warning",
  verdictFields: ["code", "status", "class", "retryable", "match"],
  description: "A verdict whose worst-case backoff exceeds budgets.retry_seconds or wall_ms.",
  check(ctx) {
    const { registry, playbook } = ctx;
    for (const { verdict, code, action } of playbookEntries(ctx)) {
      if (!isRetryAction(action) || statusOf(verdict) === "reserved") continue;
      const worst = worstCaseOf(registry.value, playbook.value, verdict, code);
      if (!worst || worst.exceeds.length === 0) continue;
      const budgets = worst.exceeds.map((e) => (e.budget === "retry_seconds" ? `budgets.retry_seconds (${e.limitMs / 1000} s)` : `budgets.wall_ms (${e.limitMs} ms)`));
      const raise = worst.exceeds.map((e) => `budgets.${e.budget}`).join(" or ");
      const schedule: PathSegment = action.backoff_ms ? "backoff_ms" : action.backoff ? "backoff" : "max_retries";
      ctx.report({
        message: `worst-case backoff for '${code}' is ${worst.totalBackoffMs} ms (${spell(worst)}, jitter at its maximum), more than ${budgets.join(" and ")}, so the budget ends the dispatch before the schedule does; lower max_retries or the delays, or raise ${raise}`,
        doc: playbook.doc,
        path: ["verdicts", code, schedule],
        related: worst.exceeds.map((e) => ({ message: `budgets.${e.budget} is set here`, position: playbook.doc.locate(["budgets", e.budget]) })),
      });
    }
  },
  example: `# playbooks/playbook.yaml
budgets: { retry_seconds: 5 }
verdicts:
  rate_limited: { action: retry_with_backoff, max_retries: 3, backoff_ms: [1000, 3000, 9000] }`,
  fix: "Lower max_retries or the delays so that the worst case fits the budget, or raise budgets.retry_seconds / wall_ms if the caller can wait that long.",
};

/**
 * Each verdict's worst case, with the playbook and classes it was made under. It depends on
 * those, the verdict and its code alone; handing over just this verdict keeps the rule linear
 * on a registry of thousands of codes. After an edit (failbook lsp), the loader keeps the
 * objects of the verdicts and files the edit left alone: a rename, which runs this rule again,
 * works out the renamed verdict's worst case alone.
 */
const worstCases = new WeakMap<Verdict, { playbook: Playbook; classes: Registry["classes"]; code: string; worst: WorstCase | undefined }>();

function worstCaseOf(registry: Registry, playbook: Playbook, verdict: Verdict, code: string): WorstCase | undefined {
  const known = worstCases.get(verdict);
  if (known !== undefined && known.playbook === playbook && known.classes === registry.classes && known.code === code) return known.worst;
  const worst = worstCase({ ...registry, verdicts: [verdict] }, playbook, code);
  worstCases.set(verdict, { playbook, classes: registry.classes, code, worst });
  return worst;
}

function spell(worst: WorstCase): string {
  return `${worst.retries} ${worst.retries === 1 ? "retry" : "retries"}: ${abbreviatedSum(worst.delays.map(String), worst.retries, SHOWN_DELAYS)} ms`;
}
