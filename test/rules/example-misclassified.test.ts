import { playbook, registry, ruleTester, yaml } from "../helpers/rule-tester.js";

const PLAYBOOK = playbook(yaml`
  throttled: { action: escalate_to_human, queue: oncall }
  rate_limited: { action: escalate_to_human, queue: oncall }
`);

ruleTester("example-misclassified", {
  valid: [
    {
      name: "examples that classify to their verdict, with a tool, headers, fields and a cause",
      registry: registry(
        yaml`
          - code: throttled
            class: transient
            retryable: true
            match:
              - { kind: http_error, headers: { x-should-retry: "true" }, tool: payments.* }
              - { kind: wrapped, cause: { fields: { errno: ECONNRESET } } }
            examples:
              - { tool: payments.refund, kind: http_error, headers: { X-Should-Retry: "true" } }
              - { kind: wrapped, message: socket hang up, cause: { kind: socket, fields: { errno: ECONNRESET } } }
          - code: rate_limited
            class: transient
            retryable: true
            match:
              - http_status: 429
            examples:
              - { kind: http_error, http_status: 429 }
        `,
        "error_fields:\n  errno: { type: string }\n",
      ),
      playbook: PLAYBOOK,
    },
    {
      name: "an example of the fallback verdict that no rule matches",
      registry: registry(yaml`
        - { code: throttled, class: transient, retryable: true, match: [{ http_status: 429 }] }
        - { code: rate_limited, class: transient, retryable: true, match: [{ http_status: 503 }] }
      `).replace("{ code: unknown_error, class: unknown, retryable: false,", "{ code: unknown_error, class: unknown, retryable: false, examples: [{ kind: weird }],"),
      playbook: PLAYBOOK,
    },
  ],
  invalid: [
    {
      name: "an earlier verdict's broader rule wins: the message names the verdict and the rule's position",
      registry: registry(yaml`
        - code: throttled
          class: transient
          retryable: true
          match:
            - kind: http_error
        - code: rate_limited
          class: transient
          retryable: true
          match:
            - http_status: 429
          examples:
            - { kind: http_error, http_status: 429 }
      `),
      playbook: PLAYBOOK,
      findings: [
        {
          message: "example 1 of 'rate_limited' classifies as 'throttled': match rule #1 of 'throttled' (registry.yaml:16:9) wins",
          line: 23,
          column: 9,
          related: [{ line: 16, column: 9 }],
        },
      ],
    },
    {
      name: "no rule holds: the example falls back",
      registry: registry(yaml`
        - { code: throttled, class: transient, retryable: true, match: [{ http_status: 503 }] }
        - code: rate_limited
          class: transient
          retryable: true
          match:
            - { http_status: 429, tool: payments.* }
          examples:
            - { kind: http_error, http_status: 429, tool: payments.refund }
            - { kind: http_error, http_status: 429 }
      `),
      playbook: PLAYBOOK,
      findings: [{ message: "example 2 of 'rate_limited' classifies as 'unknown_error', the fallback: no match rule holds for it", line: 20, column: 9 }],
    },
    {
      name: "an example on a reserved verdict",
      registry: registry(yaml`
        - { code: throttled, class: transient, retryable: true, match: [{ http_status: 429 }] }
        - { code: rate_limited, class: transient, retryable: true, status: reserved, examples: [{ kind: http_error, http_status: 429 }] }
      `),
      playbook: playbook("throttled: { action: escalate_to_human, queue: oncall }\n"),
      findings: [{ message: "(a reserved verdict never matches; move the example to the verdict that will)", line: 13, column: 91 }],
    },
  ],
});
