import type { LintRule } from "../rule.js";
import { didYouMean, verdictIndex } from "./support.js";

export const playbookUnknownVerdict: LintRule = {
  id: "playbook-unknown-verdict",
  severity: "error",
  verdictFields: ["code"],
  description: "A playbook entry for no registry verdict.",
  check({ registry, playbook, report }) {
    const known = verdictIndex(registry.value);
    const codes = [...known.keys()];
    for (const code of Object.keys(playbook.value.verdicts)) {
      if (known.has(code)) continue;
      const { hint, fix } = didYouMean(code, codes);
      report({
        message: `playbook entry '${code}' names no verdict of the registry; fix the name, or add the verdict to ${registry.doc.file}${hint}`,
        doc: playbook.doc,
        path: ["verdicts", code],
        target: "key",
        fix,
      });
    }
  },
  example: `# playbooks/playbook.yaml
verdicts:
  rate_limit: { action: retry_with_backoff, max_retries: 3 }   # the registry says rate_limited`,
  fix: "Fix the entry's name to a code of the registry (the message suggests the nearest), or add the verdict to the registry.",
};
