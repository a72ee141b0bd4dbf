import { registry, ruleTester, yaml } from "../helpers/rule-tester.js";

const declared = yaml`
  error_fields:
    decline_code: { type: string }
    errno: { type: integer }
    retryable_trait: { type: boolean }
    score: { type: number }
`;

ruleTester("field-type-mismatch", {
  valid: [
    {
      name: "every value of its declared type",
      registry: registry(
        yaml`
        - code: card_declined
          class: permanent
          retryable: false
          match:
            - { fields: { decline_code: lost_card, errno: [104, 110], retryable_trait: true, score: 0.5 } }
        `,
        declared,
      ),
    },
    {
      name: "an undeclared field is field-undeclared's, not this rule's",
      registry: registry(yaml`
        - code: x
          class: permanent
          retryable: false
          match:
            - { fields: { other: 1 } }
      `),
    },
  ],
  invalid: [
    {
      name: "a string for an integer, and a fraction in a list of integers",
      registry: registry(
        yaml`
        - code: reset
          class: transient
          retryable: true
          match:
            - fields: { errno: "104" }
            - fields: { errno: [104, 1.5] }
        `,
        declared,
      ),
      findings: [
        { message: `field 'errno' is declared integer, but this rule tests "104", which an adapter error's errno can never equal; write a integer value`, line: 16, column: 26 },
        { message: "field 'errno' is declared integer, but this rule tests 1.5", line: 17, column: 32 },
      ],
    },
    {
      name: "a string for a boolean",
      registry: registry(
        yaml`
        - code: throttled
          class: transient
          retryable: true
          match:
            - fields: { retryable_trait: "true" }
        `,
        declared,
      ),
      findings: [{ message: "field 'retryable_trait' is declared boolean", line: 16, column: 36 }],
    },
  ],
});
