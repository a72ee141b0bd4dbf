import { registry, ruleTester, yaml } from "../helpers/rule-tester.js";

ruleTester("duplicate-code", {
  valid: [{ name: "unique codes" }],
  invalid: [
    {
      name: "the second of two verdicts with one code, pointing back at the first",
      registry: registry(yaml`
        - { code: slow, class: transient, retryable: true }
        - { code: slow, class: permanent, retryable: false }
      `),
      findings: [{ message: "duplicate code 'slow': it is already declared by verdict #2", line: 13, column: 13, related: [{ line: 12, column: 13 }] }],
    },
  ],
});
