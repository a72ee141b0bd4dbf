import { playbook, registry, ruleTester, yaml } from "../helpers/rule-tester.js";

const denied = (status = "active") =>
  registry(yaml`
    - { code: policy_denied, class: policy, retryable: false, status: ${status} }
  `);

ruleTester("policy-must-escalate", {
  valid: [
    { name: "a policy verdict that escalates", registry: denied(), playbook: playbook("policy_denied: { action: escalate_to_human, queue: policy_review }") },
    { name: "another class may fail", registry: registry("- { code: declined, class: permanent, retryable: false }"), playbook: playbook("declined: { action: fail }") },
    { name: "a reserved policy verdict keeps its fail placeholder", registry: denied("reserved"), playbook: playbook("policy_denied: { action: fail }") },
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
  ],
});
