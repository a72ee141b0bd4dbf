import type { ChangeRule } from "../rule.js";
import { verdictIndex } from "../compare.js";

export const codeAddedWithoutAdr: ChangeRule = {
  id: "change/code-added-without-adr",
  severity: "error",
  description: "A new code without `adr`.",
  check({ baseline, current, report }) {
    const before = verdictIndex(baseline);
    for (const [code, i] of verdictIndex(current)) {
      if (before.has(code) || current.registry.value.verdicts[i].adr) continue;
      report({
        message: `new code '${code}' has no adr; a new verdict goes through change control: add adr: naming the decision record that says what failure it captures and why no existing code covers it`,
        doc: current.registry.doc,
        path: ["verdicts", i, "code"],
      });
    }
  },
  example: `# now, not in the baseline: playbooks/registry.yaml
  - { code: card_frozen, class: permanent, retryable: false }   # no adr:`,
  fix: "Add adr: naming the decision record that says what failure the code captures and why no existing code covers it.",
};
