import { isRetryAction } from "failbook-runtime/model/playbook.js";
import type { LintRule } from "../rule.js";

export const fallbackRetried: LintRule = {
  id: "fallback-retried",
  severity: "warning",
  verdictFields: [],
  description: "The fallback (unknown-error) verdict is retried automatically.",
  check({ registry, playbook, report }) {
    const code = registry.value.fallback;
    const action = Object.hasOwn(playbook.value.verdicts, code) ? playbook.value.verdicts[code] : undefined;
    if (!action || !isRetryAction(action)) return;
    report({
      message: `'${code}' is the fallback for errors no rule recognises, and its action ${action.action} repeats them blindly, even writes that may have happened; escalate_to_human or fail instead, and add a match rule for any failure that is known to be safe to retry`,
      doc: playbook.doc,
      path: ["verdicts", code, "action"],
      related: [{ message: "the registry's fallback is named here", position: registry.doc.locate(["fallback"]) }],
    });
  },
  example: `# playbooks/registry.yaml
fallback: unknown_error
# playbooks/playbook.yaml
  unknown_error: { action: retry_with_backoff, max_retries: 3 }`,
  fix: "Give the fallback escalate_to_human or fail, and add match rules for the failures that are known to be safe to retry.",
};
