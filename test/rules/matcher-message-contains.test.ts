import { registry, ruleTester, yaml } from "../helpers/rule-tester.js";

ruleTester("matcher-message-contains", {
  valid: [
    { name: "structured fields only" },
    { name: "a reserved verdict never classifies", registry: registry("- { code: later, class: transient, retryable: true, status: reserved, match: [{ message_contains: later }] }") },
  ],
  invalid: [
    {
      name: "one finding per rule that reads the message, at the key",
      registry: registry(yaml`
        - code: conflict
          class: permanent
          retryable: false
          match:
            - kind: 409_conflict
            - kind: 409_conflict
              message_contains: idempotency
            - { message_contains: [already processed, duplicate] }
      `),
      findings: [
        { message: "match rule #2 of 'conflict' classifies by message text, which changes with upstream wording and language; prefer kind, http_status or provider_code", line: 18, column: 9 },
        { message: "match rule #3 of 'conflict'", line: 19, column: 11 },
      ],
    },
  ],
});
