import { RETRY_BUDGET_DEFAULTS } from "failbook-runtime/engine/policies/retry-budget.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import type { ChangeRule } from "../rule.js";

type Key = "retry_budget" | "retry_throttling";

export const budgetLoosened: ChangeRule = {
  id: "change/budget-loosened",
  severity: "warning",
  description: "The retry budget or retry throttling removed or made looser: more retries reach an upstream that is already failing.",
  example: `# playbooks/playbook.yaml, before
retry_budget: { percent: 20, min_concurrency: 3 }
# after
retry_budget: { percent: 50, min_concurrency: 10 }`,
  fix: "Keep the budget or throttling as tight as before, or record why more retries are safe (an ADR); a looser budget lets retries multiply the load on an upstream that is already failing.",
  check({ baseline, current, report }) {
    const before = baseline.playbook.value;
    const after = current.playbook.value;
    for (const key of ["retry_budget", "retry_throttling"] as const) {
      if (before[key] === undefined) continue;
      const related = [{ message: `${key} in ${baseline.label}`, position: baseline.playbook.doc.locate([key], "key") }];
      if (after[key] === undefined) {
        report({
          message: `${key} is gone (${settings(before, key)} in ${baseline.label}): during an outage every call now retries up to its own limit, and nothing stops a retry storm. Keep it, or say why none is needed in an adr`,
          doc: current.playbook.doc,
          path: [],
          target: "key",
          related,
        });
        continue;
      }
      for (const [field, was, now] of loosenings(before, after, key)) {
        report({
          message: `${key} is looser: ${field} ${was} → ${now} lets more retries through while an upstream fails. If the upstream can take them, say why in an adr; otherwise keep ${was}`,
          doc: current.playbook.doc,
          path: [key, field],
          related,
        });
      }
    }
  },
};

function settings(p: Playbook, key: Key): string {
  if (key === "retry_budget") return `${p.retry_budget?.percent ?? RETRY_BUDGET_DEFAULTS.percent} %, at least ${p.retry_budget?.min_concurrency ?? RETRY_BUDGET_DEFAULTS.min_concurrency}`;
  return `${p.retry_throttling?.max_tokens} tokens, ${p.retry_throttling?.token_ratio} back a success`;
}

/** Higher is looser for every field of both: more retries in progress, more tokens, faster refills. */
function loosenings(b: Playbook, a: Playbook, key: Key): [string, number, number][] {
  const pairs: [string, number, number][] =
    key === "retry_budget"
      ? [
          ["percent", b.retry_budget?.percent ?? RETRY_BUDGET_DEFAULTS.percent, a.retry_budget?.percent ?? RETRY_BUDGET_DEFAULTS.percent],
          ["min_concurrency", b.retry_budget?.min_concurrency ?? RETRY_BUDGET_DEFAULTS.min_concurrency, a.retry_budget?.min_concurrency ?? RETRY_BUDGET_DEFAULTS.min_concurrency],
        ]
      : [
          ["max_tokens", b.retry_throttling!.max_tokens, a.retry_throttling!.max_tokens],
          ["token_ratio", b.retry_throttling!.token_ratio, a.retry_throttling!.token_ratio],
        ];
  return pairs.filter(([, was, now]) => now > was);
}
