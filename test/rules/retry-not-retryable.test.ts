import { playbook, registry, ruleTester, yaml } from "../helpers/rule-tester.js";

const declined = registry(yaml`
  - code: card_declined
    class: permanent
    retryable: false
`);

ruleTester("retry-not-retryable", {
  valid: [
    { name: "a retry on a retryable verdict" },
    { name: "a non-retryable verdict that re-plans", registry: declined, playbook: playbook("card_declined: { action: deprecate_tool_call, reason: declined, replan: true }") },
  ],
  invalid: [
    {
      name: "retry_with_backoff on retryable: false, at the action, noting the flag",
      registry: declined,
      playbook: playbook("card_declined: { action: retry_with_backoff, max_retries: 0, backoff_ms: [] }"),
      findings: [{ message: "'card_declined' is retryable: false, but its action retry_with_backoff retries it", file: "playbook.yaml", line: 6, column: 28, related: [{ line: 14, column: 16 }] }],
    },
    {
      name: "retry_with_hint too",
      registry: declined,
      playbook: playbook(yaml`
        card_declined:
          action: retry_with_hint
          hint: try another card
          max_retries: 0
          backoff_ms: []
      `),
      findings: [{ message: "its action retry_with_hint retries it", file: "playbook.yaml", line: 7, column: 13 }],
    },
  ],
});
