import { playbook, registry, ruleTester, yaml } from "../helpers/rule-tester.js";

const committed = (sideEffect: string) =>
  registry(yaml`
    - code: write_landed
      class: transient
      retryable: true
      side_effect: ${sideEffect}
  `);

ruleTester("retry-committed", {
  valid: [
    { name: "a retry where nothing happened", registry: committed("none"), playbook: playbook("write_landed: { action: retry_with_backoff, max_retries: 1, backoff_ms: [10] }") },
    { name: "a committed write that re-plans", registry: committed("committed"), playbook: playbook("write_landed: { action: deprecate_tool_call, reason: landed, replan: true }") },
  ],
  invalid: [
    {
      name: "a retry of a committed write, noting the side effect",
      registry: committed("committed"),
      playbook: playbook("write_landed: { action: retry_with_backoff, max_retries: 1, backoff_ms: [10] }"),
      findings: [{ message: "'write_landed' means the side effect is already committed, but its action retry_with_backoff repeats the call", file: "playbook.yaml", line: 6, column: 27, related: [{ line: 15, column: 18 }] }],
    },
  ],
});
