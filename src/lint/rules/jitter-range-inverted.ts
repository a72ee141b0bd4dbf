import type { LintRule } from "../rule.js";

/** SPEC 18: a jitter range `{ min, max }` whose min is above its max draws from nothing sensible. */
export const jitterRangeInverted: LintRule = {
  id: "jitter-range-inverted",
  severity: "error",
  description: "A jitter range whose min is above its max.",
  check({ playbook, report }) {
    for (const [code, action] of Object.entries(playbook.value.verdicts)) {
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
