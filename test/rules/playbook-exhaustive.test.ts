import { BASE_PLAYBOOK, registry, ruleTester, yaml } from "../helpers/rule-tester.js";

const withVerdict = (line: string) =>
  registry(yaml`
    - { code: transient_timeout, class: transient, retryable: true, summary: s, recovery: r, match: [{ kind: timeout }] }
    ${line}
  `);

ruleTester("playbook-exhaustive", {
  valid: [
    { name: "every verdict has an action" },
    { name: "a reserved verdict needs none", registry: withVerdict("- { code: later, class: transient, retryable: true, status: reserved }"), playbook: BASE_PLAYBOOK },
  ],
  invalid: [
    {
      name: "an active verdict without an action",
      registry: withVerdict("- { code: card_declined, class: permanent, retryable: false }"),
      findings: [{ message: "verdict 'card_declined' has no playbook action; add an entry for it under verdicts: in playbook.yaml", line: 13, column: 13 }],
    },
    {
      name: "a deprecated verdict still classifies, so it needs one too",
      registry: withVerdict("- { code: old, class: permanent, retryable: false, status: deprecated, replaced_by: transient_timeout }"),
      findings: [{ message: "verdict 'old' has no playbook action", line: 13, column: 13 }],
    },
  ],
});
