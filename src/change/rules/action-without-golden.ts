import type { ChangeRule } from "../rule.js";
import { describeChange, sameValue } from "../compare.js";

export const actionWithoutGolden: ChangeRule = {
  id: "change/action-without-golden",
  severity: "error",
  description: "A playbook action added or changed with no fixture whose `expect` covers that verdict.",
  check({ baseline, current, report }) {
    const covered = new Set<string>();
    for (const f of current.fixtures) if (f.value.expect) collectVerdicts(f.value.expect, covered);
    const before = baseline.playbook.value.verdicts;
    for (const [code, action] of Object.entries(current.playbook.value.verdicts)) {
      const old = Object.hasOwn(before, code) ? before[code] : undefined;
      if ((old && sameValue(old, action)) || covered.has(code)) continue;
      const what = old ? `the playbook action for '${code}' changed (${describeChange(old, action)})` : `the new playbook action for '${code}' (${action.action})`;
      report({
        message: `${what} has no golden: no fixture's expect covers verdict '${code}'; add a fixture that fails this way with expect.verdict: ${code} (failbook simulate --update records its outcome)`,
        doc: current.playbook.doc,
        path: ["verdicts", code, "action"],
        target: "key",
        related: old ? [{ message: `the action in ${baseline.label}`, position: baseline.playbook.doc.locate(["verdicts", code, "action"], "key") }] : [],
      });
    }
  },
  example: `# playbooks/playbook.yaml, changed since the baseline:
  rate_limited: { action: retry_with_backoff, max_retries: 5 }   # no fixture's expect covers rate_limited`,
  fix: "Add a fixture that fails this way with expect: { verdict: CODE } (failbook new fixture --verdict CODE writes one; failbook simulate --update records its outcome).",
};

/** Every `verdict:` value anywhere in a golden: the outcome, its steps, calls and events. */
function collectVerdicts(node: unknown, out: Set<string>): void {
  if (node === null || typeof node !== "object") return;
  for (const [key, value] of Object.entries(node)) {
    if (key === "verdict" && typeof value === "string") out.add(value);
    else collectVerdicts(value, out);
  }
}
