import { playbook, registry, ruleTester, yaml } from "../helpers/rule-tester.js";

const reserved = (more = "") =>
  registry(yaml`
    - code: later
      class: transient
      retryable: true
      status: reserved
  ` + more);

ruleTester("reserved-in-use", {
  valid: [
    { name: "reserved, no rules, no action", registry: reserved() },
    { name: "reserved with the fail placeholder", registry: reserved(), playbook: playbook("later: { action: fail, message: not in use yet }") },
    { name: "an empty match list", registry: registry("- { code: later, class: transient, retryable: true, status: reserved, match: [] }") },
  ],
  invalid: [
    {
      name: "match rules on a reserved verdict, at the match key",
      registry: registry(yaml`
        - code: later
          class: transient
          retryable: true
          status: reserved
          match:
            - kind: later
      `),
      findings: [{ message: "reserved verdict 'later' has match rules, but reserved verdicts never match, so errors meant for it fall through to other rules; remove the rules, or set status: active", line: 16, column: 5 }],
    },
    {
      name: "an action other than fail, noting the status",
      registry: reserved(),
      playbook: playbook("later: { action: retry_with_backoff, max_retries: 1, backoff_ms: [1] }"),
      findings: [{ message: "'later' is reserved, so it is never classified and its action retry_with_backoff never runs; use action: fail", file: "playbook.yaml", line: 6, column: 20, related: [{ line: 15, column: 13 }] }],
    },
  ],
});
