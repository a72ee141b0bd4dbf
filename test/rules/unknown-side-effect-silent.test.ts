import { playbook, registry, ruleTester, yaml } from "../helpers/rule-tester.js";

const verdicts = registry(yaml`
  - { code: slow, class: transient, retryable: true }
  - { code: blip, class: transient, retryable: true, side_effect: none }
`);

ruleTester("unknown-side-effect-silent", {
  valid: [
    {
      name: "no verdict is retried",
      registry: verdicts,
      playbook: playbook(yaml`
        slow: { action: escalate_to_human, queue: oncall }
        blip: { action: fail }
      `),
    },
    {
      name: "a retried verdict whose side effect is known",
      registry: verdicts,
      playbook: playbook(yaml`
        slow: { action: escalate_to_human, queue: oncall }
        blip: { action: retry_with_backoff, max_retries: 2, backoff_ms: [100, 200] }
      `),
    },
    {
      name: "the playbook names a queue for unknown side effects",
      registry: verdicts,
      playbook: playbook(
        yaml`
        slow: { action: retry_with_backoff, max_retries: 2, backoff_ms: [100, 200] }
        blip: { action: retry_with_backoff, max_retries: 2, backoff_ms: [100, 200] }
        `,
        "on_unknown_side_effect: { queue: oncall }\n",
      ),
    },
  ],
  invalid: [
    {
      name: "a retried verdict with the default side effect (unknown)",
      registry: verdicts,
      playbook: playbook(yaml`
        slow: { action: retry_with_backoff, max_retries: 2, backoff_ms: [100, 200] }
        blip: { action: retry_with_backoff, max_retries: 2, backoff_ms: [100, 200] }
      `),
      findings: [{ message: "'slow' is retried, but its side effect is unknown", file: "playbook.yaml", line: 6, column: 19, related: [{ file: "registry.yaml", line: 12, column: 13 }] }],
    },
  ],
});
