import { playbook, registry, ruleTester, yaml } from "../helpers/rule-tester.js";

const denied = (status = "active") =>
  registry(yaml`
    - { code: policy_denied, class: policy, retryable: false, status: ${status} }
  `);

/** A registry whose classes are written out: `compliance` says requires_human (line 6), `policy` says `policyFlag`. */
const withClasses = (policyFlag: string) => yaml`
  apiVersion: failbook/v1
  kind: Registry
  name: test
  revision: 1
  classes:
    compliance: { description: A regulator decides., requires_human: true }
    policy: { description: Not ours to decide.${policyFlag} }
    unknown: { description: Nothing recognised it. }
  verdicts:
    - { code: unknown_error, class: unknown, retryable: false, summary: Nothing matched., recovery: A human looks. }
    - { code: kyc_hold, class: compliance, retryable: false }
    - { code: policy_denied, class: policy, retryable: false }
  fallback: unknown_error
`;

ruleTester("policy-must-escalate", {
  valid: [
    { name: "a policy verdict that escalates", registry: denied(), playbook: playbook("policy_denied: { action: escalate_to_human, queue: policy_review }") },
    { name: "another class may fail", registry: registry("- { code: declined, class: permanent, retryable: false }"), playbook: playbook("declined: { action: fail }") },
    { name: "a reserved policy verdict keeps its fail placeholder", registry: denied("reserved"), playbook: playbook("policy_denied: { action: fail }") },
    {
      name: "a requires_human class whose verdicts escalate, and a policy class that says requires_human: false",
      registry: withClasses(", requires_human: false"),
      playbook: playbook("kyc_hold: { action: escalate_to_human, queue: compliance }\npolicy_denied: { action: fail }"),
    },
  ],
  invalid: [
    {
      name: "a policy verdict that fails",
      registry: denied(),
      playbook: playbook("policy_denied: { action: fail }"),
      findings: [{ message: "'policy_denied' is a policy refusal, which is not the runtime's to work around, but its action is fail; use action: escalate_to_human", file: "playbook.yaml", line: 6, column: 28, related: [{ line: 12, column: 35 }] }],
    },
    {
      name: "a deprecated policy verdict still classifies",
      registry: denied("deprecated"),
      playbook: playbook("policy_denied: { action: dead_letter, queue: dlq }"),
      findings: [{ message: "its action is dead_letter", file: "playbook.yaml", line: 6, column: 28 }],
    },
    {
      name: "a verdict of a class with requires_human: true that fails, whatever the class is called",
      registry: withClasses(""),
      playbook: playbook("kyc_hold: { action: fail }\npolicy_denied: { action: escalate_to_human, queue: policy_review }"),
      findings: [
        {
          message: "'kyc_hold' is of class compliance, which says requires_human: true (a person decides its failures), but its action is fail; use action: escalate_to_human",
          file: "playbook.yaml",
          line: 6,
          column: 23,
          related: [
            { line: 11, column: 30 },
            { line: 6, column: 68 },
          ],
        },
      ],
    },
    {
      name: "a policy class that says requires_human: true, explicitly",
      registry: withClasses(", requires_human: true"),
      playbook: playbook("kyc_hold: { action: escalate_to_human, queue: compliance }\npolicy_denied: { action: dead_letter, queue: dlq }"),
      findings: [{ message: "'policy_denied' is of class policy, which says requires_human: true (a person decides its failures), but its action is dead_letter", file: "playbook.yaml", line: 7, column: 28 }],
    },
  ],
});
