import { isRetryAction } from "failbook-runtime/model/playbook.js";
import type { LintRule } from "../rule.js";

export const backoffScheduleShort: LintRule = {
  id: "backoff-schedule-short",
  severity: "error",
  verdictFields: [],
  description: "A backoff_ms list shorter than max_retries.",
  check({ playbook, report }) {
    const actions = playbook.value.verdicts;
    const codes = Object.keys(actions);
    for (let k = 0; k < codes.length; k++) {
      const code = codes[k];
      const action = actions[code];
      if (!isRetryAction(action) || !action.backoff_ms || action.backoff_ms.length >= action.max_retries) continue;
      const have = action.backoff_ms.length;
      const missing = action.max_retries - have;
      report({
        message: `backoff_ms for '${code}' lists ${have} ${have === 1 ? "delay" : "delays"} but max_retries is ${action.max_retries}, so the last delay would silently repeat; add ${missing} more ${missing === 1 ? "delay" : "delays"}, or lower max_retries to ${have}`,
        doc: playbook.doc,
        path: ["verdicts", code, "backoff_ms"],
      });
    }
  },
  example: `# playbooks/playbook.yaml
  rate_limited: { action: retry_with_backoff, max_retries: 3, backoff_ms: [200, 800] }`,
  fix: "List one delay per retry (add the missing delays), or lower max_retries to the number of delays.",
};
