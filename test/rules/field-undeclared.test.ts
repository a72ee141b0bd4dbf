import { registry, ruleTester, yaml } from "../helpers/rule-tester.js";

const declared = yaml`
  error_fields:
    decline_code: { type: string, description: The card network's decline code. }
    errno: { type: integer }
`;

ruleTester("field-undeclared", {
  valid: [
    { name: "no fields anywhere" },
    {
      name: "declared fields, in a rule and in its cause",
      registry: registry(
        yaml`
        - code: card_declined
          class: permanent
          retryable: false
          match:
            - { fields: { decline_code: [insufficient_funds, lost_card] } }
            - { kind: wrapped, cause: { fields: { errno: 104 } } }
        `,
        declared,
      ),
    },
  ],
  invalid: [
    {
      name: "a field the registry does not declare, with a suggestion",
      registry: registry(
        yaml`
        - code: card_declined
          class: permanent
          retryable: false
          match:
            - fields: { decline_cod: insufficient_funds }
        `,
        declared,
      ),
      findings: [{ message: "field 'decline_cod' is not declared in error_fields, so no adapter error can carry it; declare it under error_fields:, or use one of: decline_code, errno (did you mean 'decline_code'?)", line: 16, column: 19 }],
    },
    {
      name: "no error_fields at all, in a cause",
      registry: registry(yaml`
        - code: reset
          class: transient
          retryable: true
          match:
            - kind: wrapped
              cause: { fields: { errno: 104 } }
      `),
      findings: [{ message: "field 'errno' is not declared in error_fields, so no adapter error can carry it; declare it under error_fields: with its type", line: 17, column: 28 }],
    },
  ],
});
