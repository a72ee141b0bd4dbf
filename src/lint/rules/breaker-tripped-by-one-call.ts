import { outcomeFor } from "failbook-runtime/engine/policies/breakers.js";
import { BREAKER_DEFAULTS } from "failbook-runtime/engine/policies/circuit.js";
import { worstCase } from "failbook-runtime/engine/worstcase.js";
import { isRetryAction } from "failbook-runtime/model/playbook.js";
import type { LintRule } from "../rule.js";
import { playbookEntries } from "./support.js";

/**
 * SPEC 18: a breaker counts attempts, not calls. When one call's attempts, under a counted
 * verdict's retry limits, can reach `minimum_throughput`, a single failing call opens the
 * breaker for every caller (with tolerate: 5 and 8 attempts per call, the first failing
 * call opens it: jvoegele/external_service#93).
 */
export const breakerTrippedByOneCall: LintRule = {
  id: "breaker-tripped-by-one-call",
  severity: "warning",
  verdictFields: ["code", "status", "class", "retryable", "match"],
  description: "One call's attempts under its verdicts' retry limits can reach a breaker's minimum_throughput, so a single failing call opens it.",
  example: `# playbooks/playbook.yaml
circuit_breakers: { payments: { tools: "payments.*", failure_ratio: 0.5, minimum_throughput: 3, sampling_ms: 30000, break_ms: 5000 } }
verdicts:
  transient_timeout: { action: retry_with_backoff, max_retries: 5 }   # one call makes 6 attempts`,
  fix: "Raise minimum_throughput above the attempts one call can make (its retries plus one), or lower the retries of the verdicts the breaker counts.",
  check(ctx) {
    const { registry, playbook, report } = ctx;
    const breakers = playbook.value.circuit_breakers ?? {};
    for (const name of Object.keys(breakers)) {
      const policy = breakers[name];
      const minimum = policy.minimum_throughput ?? BREAKER_DEFAULTS.minimum_throughput;
      let worst: { code: string; attempts: number } | undefined;
      for (const { verdict, code, action } of playbookEntries(ctx)) {
        if (!isRetryAction(action)) continue;
        const counted = outcomeFor(policy, { verdictClass: verdict.class, retryable: verdict.retryable, errorKind: undefined }) === "failure";
        const attempts = counted ? (worstCase(registry.value, playbook.value, code)?.attempts ?? 1) : 0;
        if (attempts >= minimum && (worst === undefined || attempts > worst.attempts)) worst = { code, attempts };
      }
      if (worst === undefined) continue;
      const set = policy.minimum_throughput !== undefined;
      report({
        message: `breaker '${name}' may open after ${minimum} counted attempts${set ? "" : " (the default minimum_throughput)"}, but one call failing with '${worst.code}' makes up to ${worst.attempts} attempts under its retry limits, so a single failing call opens the breaker for every caller; raise minimum_throughput above ${worst.attempts}, or retry '${worst.code}' fewer times`,
        doc: playbook.doc,
        path: set ? ["circuit_breakers", name, "minimum_throughput"] : ["circuit_breakers", name],
        ...(set ? {} : { target: "key" as const }),
        related: [{ message: `'${worst.code}' retried here`, position: playbook.doc.locate(["verdicts", worst.code, "max_retries"]) }],
      });
    }
  },
};
