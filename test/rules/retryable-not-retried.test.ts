import { playbook, registry, ruleTester, yaml } from "../helpers/rule-tester.js";

const verdicts = registry(yaml`
  - { code: blip, class: transient, retryable: true, side_effect: none }
  - { code: refused, class: permanent, retryable: false }
`);

ruleTester("retryable-not-retried", {
  valid: [
    {
      name: "a retryable verdict that is retried, and a non-retryable one that fails",
      registry: verdicts,
      playbook: playbook(yaml`
        blip: { action: retry_with_backoff, max_retries: 2, backoff_ms: [100, 200] }
        refused: { action: fail }
      `),
    },
    {
      name: "a retryable verdict escalated to a person",
      registry: verdicts,
      playbook: playbook(yaml`
        blip: { action: escalate_to_human, queue: oncall }
        refused: { action: dead_letter, queue: dlq }
      `),
    },
  ],
  invalid: [
    {
      name: "fail and dead_letter on retryable verdicts",
      registry: verdicts,
      playbook: playbook(yaml`
        blip: { action: fail }
        refused: { action: fail }
      `),
      findings: [{ message: "'blip' is retryable: true, but its action fail gives up on the first failure", file: "playbook.yaml", line: 6, column: 19, related: [{ line: 12, column: 48 }] }],
    },
    {
      name: "dead_letter",
      registry: verdicts,
      playbook: playbook(yaml`
        blip: { action: dead_letter, queue: dlq }
        refused: { action: fail }
      `),
      findings: [{ message: "its action dead_letter gives up", file: "playbook.yaml", line: 6, column: 19, related: [{ line: 12, column: 48 }] }],
    },
  ],
});
