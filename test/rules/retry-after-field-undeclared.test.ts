import { playbook, registry, ruleTester, yaml } from "../helpers/rule-tester.js";

const declared = registry(
  yaml`
  - code: throttled
    class: transient
    retryable: true
    match:
      - kind: throttled
`,
  yaml`
  error_fields:
    next_retry_delay: { type: number }
    retry_delay_ms: { type: integer }
    reason: { type: string }
`,
);

ruleTester("retry-after-field-undeclared", {
  valid: [
    { name: "declared numeric fields, in the playbook's policy and an action's", registry: declared, playbook: playbook("throttled: { action: retry_with_backoff, max_retries: 2, backoff_ms: [100, 200], retry_after: { fields: [retry_delay_ms] } }", "retry_after: { fields: [next_retry_delay] }\n") },
  ],
  invalid: [
    {
      name: "a field the registry does not declare, with a suggestion",
      registry: declared,
      playbook: playbook("throttled: { action: retry_with_backoff, max_retries: 2, backoff_ms: [100, 200], retry_after: { fields: [next_retry_dealy] } }"),
      findings: [{ message: "retry_after field 'next_retry_dealy' is not declared in the registry's error_fields, so it never yields a hint; declare it so, or list one of: next_retry_delay, retry_delay_ms (did you mean 'next_retry_delay'?)", file: "playbook.yaml", line: 6, column: 108 }],
    },
    {
      name: "a field declared as a string",
      registry: declared,
      playbook: playbook("throttled: { action: retry_with_backoff, max_retries: 2, backoff_ms: [100, 200] }", "retry_after: { fields: [reason] }\n"),
      findings: [{ message: "retry_after field 'reason' is declared as string, not a number, so it never yields a hint", file: "playbook.yaml", line: 7, column: 25 }],
    },
  ],
});
