import type { LintRule } from "../rule.js";

/** SPEC 18: a jitter range `{ min, max }` whose min is above its max draws from nothing sensible. */
export const jitterRangeInverted: LintRule = {
  id: "jitter-range-inverted",
  severity: "error",
  verdictFields: [],
  description: "A jitter range whose min is above its max.",
  example: `# playbooks/playbook.yaml
verdicts:
  transient_timeout: { action: retry_with_backoff, max_retries: 3, backoff_ms: [200, 600, 1800], jitter: { min: 1.2, max: 0.8 } }`,
  fix: "Swap the bounds: min is the smallest factor a delay is multiplied by (gRPC retry jitter is { min: 0.8, max: 1.2 }).",
  check({ playbook, report }) {
    const actions = playbook.value.verdicts;
    const codes = Object.keys(actions);
    for (let k = 0; k < codes.length; k++) {
      const code = codes[k];
      const action = actions[code];
      const jitter = "backoff" in action ? action.backoff?.strategy !== "decorrelated" && action.backoff?.jitter : undefined;
      if (typeof jitter !== "object" || !jitter || jitter.min <= jitter.max) continue;
      report({
        message: `the jitter of '${code}' multiplies the delay by a draw from min ${jitter.min} to max ${jitter.max}, but min is above max; swap them (gRPC's retry jitter is { min: 0.8, max: 1.2 })`,
        doc: playbook.doc,
        path: ["verdicts", code, "backoff", "jitter", "min"],
      });
    }
  },
};
