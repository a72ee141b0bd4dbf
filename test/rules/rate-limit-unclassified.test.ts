import { BASE_PLAYBOOK, registry, ruleTester, yaml } from "../helpers/rule-tester.js";

/** The base playbook plus a rate limit on payments.* (its name's key is on line 8). */
const WITH_LIMIT = BASE_PLAYBOOK + yaml`
  rate_limits:
    payments:
      tools: "payments.*"
      limit: { requests: 10, per_ms: 1000 }
`;
const TIMEOUT = yaml`
  - { code: transient_timeout, class: transient, retryable: true, summary: Timed out., recovery: Retry., match: [{ kind: timeout }] }
`;
const LIMITED = registry(TIMEOUT + "- { code: paced_out, class: permanent, retryable: false, summary: Our own rate limit is empty., recovery: Try later., match: [{ kind: rate_limited }] }\n");
const LIMITED_PLAYBOOK = WITH_LIMIT.replace("verdicts:\n", "verdicts:\n  paced_out: { action: fail }\n");

ruleTester("rate-limit-unclassified", {
  valid: [
    { name: "no rate limit" },
    { name: "a verdict matches rate_limited", registry: LIMITED, playbook: LIMITED_PLAYBOOK },
  ],
  invalid: [
    {
      name: "a rate limit, and rate_limited reaches only the fallback verdict",
      playbook: WITH_LIMIT,
      findings: [{ message: "rate limit 'payments' fails an attempt that finds it empty as the adapter error rate_limited, but no verdict matches it, so an empty bucket classifies to the fallback verdict 'unknown_error'", file: "playbook.yaml", line: 8, column: 3 }],
    },
  ],
});
