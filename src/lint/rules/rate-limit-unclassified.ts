import { rateLimitedError } from "failbook-runtime/engine/policies/rate-limits.js";
import type { LintRule } from "../rule.js";
import { onlyFallbackClassifies, toolGlobs } from "./tools-mentioned.js";

/**
 * SPEC 22: an attempt that finds its rate limit empty (`when_empty: fail`, or a wait past
 * `max_wait_ms` or the deadline) fails as the adapter error `rate_limited`, and the registry
 * decides what that means. When only the fallback verdict catches it, nobody decided: our own
 * pacing is handled like an error nobody recognised.
 */
export const rateLimitUnclassified: LintRule = {
  id: "rate-limit-unclassified",
  severity: "warning",
  verdictFields: ["code", "status", "match", "examples"],
  description: "A rate limit whose rate_limited error classifies only to the fallback verdict: nobody said what an empty bucket means.",
  example: `# playbooks/playbook.yaml
rate_limits: { github: { tools: "github.*", limit: { requests: 5000, per_ms: 3600000 }, when_empty: fail } }
# playbooks/registry.yaml: no verdict matches { kind: rate_limited }`,
  fix: "Add a verdict that matches { kind: rate_limited } and give it an action (fail, a fallback tool, escalate_to_human): an empty bucket is our own pacing, not an unknown failure.",
  check({ registry, playbook, project, report }) {
    const limits = playbook.value.rate_limits ?? {};
    const fallback = registry.value.fallback;
    for (const name of Object.keys(limits)) {
      if (!onlyFallbackClassifies(project, registry.value, playbook.value, rateLimitedError(name), toolGlobs(limits[name]!.tools))) continue;
      report({
        message: `rate limit '${name}' fails an attempt that finds it empty as the adapter error rate_limited, but no verdict matches it, so an empty bucket classifies to the fallback verdict '${fallback}' like an error nobody recognised; add a verdict that matches kind rate_limited, with the action an empty bucket should take (fail at once, fall back to another tool, escalate)`,
        doc: playbook.doc,
        path: ["rate_limits", name],
        target: "key",
      });
    }
  },
};
