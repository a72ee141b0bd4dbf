import { registry, ruleTester, yaml } from "../helpers/rule-tester.js";

ruleTester("code-format", {
  valid: [
    { name: "snake_case codes" },
    { name: "dotted namespaces", registry: registry(yaml`- { code: payments.refund_failed, class: transient, retryable: true, summary: s, recovery: r }`) },
    {
      name: "a custom code_pattern",
      config: "code_pattern: '^[a-zA-Z_]+$'",
      registry: registry(yaml`- { code: Timeout, class: transient, retryable: true, summary: s, recovery: r }`),
    },
  ],
  invalid: [
    {
      name: "a code with capitals and a dash, with a suggested name",
      registry: registry(yaml`- { code: Transient-Timeout, class: transient, retryable: true, summary: s, recovery: r }`),
      findings: [{ message: "code 'Transient-Timeout' does not match the default code_pattern", line: 12, column: 13 }],
    },
    {
      name: "the suggestion is spelled",
      registry: registry(yaml`- { code: rateLimited, class: transient, retryable: true, summary: s, recovery: r }`),
      findings: [{ message: "rename it, e.g. 'rate_limited'", line: 12, column: 13 }],
    },
    {
      name: "a code starting with a digit gets no made-up suggestion",
      registry: registry(yaml`- { code: 2fa_required, class: transient, retryable: true, summary: s, recovery: r }`),
      findings: [{ message: /does not match the default code_pattern .*; rename it \(/, line: 12, column: 13 }],
    },
    {
      name: "the config's pattern, in block style",
      config: "code_pattern: '^[a-z]+\\.[a-z_]+$'",
      registry: registry(yaml`
        - { code: billing.card_declined, class: transient, retryable: true, summary: s, recovery: r }
        - code: timeout
          class: transient
          retryable: true
      `),
      // unknown_error (line 11) breaks the namespace rule too.
      findings: [
        { message: "code 'unknown_error' does not match code_pattern in the config", line: 11, column: 13 },
        { message: "code 'timeout' does not match code_pattern in the config /^[a-z]+\\.[a-z_]+$/", line: 13, column: 11 },
      ],
    },
  ],
});
