import { statusOf } from "failbook-runtime/model/registry.js";
import type { ChangeRule } from "../rule.js";

export const codeRemoved: ChangeRule = {
  id: "change/code-removed",
  severity: "error",
  description: "A code in the baseline missing now, unless the baseline had it deprecated.",
  check({ baseline, current, report }) {
    const now = new Set(current.registry.value.verdicts.map((v) => v.code));
    const seen = new Set<string>();
    for (const [i, v] of baseline.registry.value.verdicts.entries()) {
      if (now.has(v.code) || seen.has(v.code) || statusOf(v) === "deprecated") continue;
      seen.add(v.code);
      report({
        message: `code '${v.code}' was removed while still ${statusOf(v)} in ${baseline.label}; adapters and runtimes may still report it. Remove a code in two steps: first mark it status: deprecated with replaced_by, release that, then remove it`,
        doc: current.registry.doc,
        path: ["verdicts"],
        target: "key",
        related: [{ message: `'${v.code}' in ${baseline.label}`, position: baseline.registry.doc.locate(["verdicts", i, "code"]) }],
      });
    }
  },
  example: `# baseline (git:origin/main): playbooks/registry.yaml
  - { code: card_expired, class: permanent, retryable: false }
# now: the verdict is gone`,
  fix: "Remove a code in two steps: first mark it status: deprecated with replaced_by, release that, then remove it.",
};
