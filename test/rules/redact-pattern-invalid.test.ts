import { BASE_PLAYBOOK, playbook, registry, ruleTester, yaml } from "../helpers/rule-tester.js";

// A registry whose kinds and codes look like secrets' names: patterns must leave them alone.
const TOKEN_REGISTRY = registry(yaml`
  - code: auth.token_expired
    class: transient
    retryable: true
    match:
      - kind: [unauthorized, token_expired]
`);
const TOKEN_PLAYBOOK = playbook(yaml`
  auth.token_expired: { action: retry_with_backoff, max_retries: 1, backoff_ms: [100] }
`);

// failbook.yaml: registry (line 1), playbook (line 2), then `redact:` (line 3) and its patterns from line 4.
ruleTester("redact-pattern-invalid", {
  valid: [
    { name: "no redact patterns" },
    { name: "a pattern for the deploy service's session tokens", config: "redact:\n  - 'deploy-[a-z0-9]{8}'" },
    { name: "patterns that match no code and no kind", config: "redact:\n  - 'xoxb-[A-Za-z0-9-]+'\n  - 'tok_[0-9a-f]{32}'", registry: TOKEN_REGISTRY, playbook: TOKEN_PLAYBOOK },
  ],
  invalid: [
    {
      name: "a pattern that matches a code and a kind (gen ts once wrote kind: [\"[REDACTED]\"]), reported at the first",
      config: "redact:\n  - 'token_[a-z]+'",
      registry: TOKEN_REGISTRY,
      playbook: TOKEN_PLAYBOOK,
      findings: [
        {
          file: "failbook.yaml",
          message: "redact pattern 1 matches code 'auth.token_expired' (registry.yaml:12:11): redaction must never hide the project's own codes and kinds",
          line: 4,
          column: 5,
          related: [{ line: 12, column: 11 }],
        },
      ],
    },
    {
      name: "a kind in a list",
      config: "redact:\n  - 'unauth'",
      registry: TOKEN_REGISTRY,
      playbook: TOKEN_PLAYBOOK,
      findings: [{ file: "failbook.yaml", message: "matches kind 'unauthorized'", line: 4, column: 5, related: [{ line: 16, column: 16 }] }],
    },
    {
      name: "part of a code is enough: redaction replaces what it finds",
      config: "redact:\n  - 'time'",
      findings: [{ file: "failbook.yaml", message: "matches code 'transient_timeout'", line: 4, column: 5, related: [{ line: 12, column: 11 }] }],
    },
    {
      name: "patterns that match the empty string, one finding each, at each pattern",
      config: "redact:\n  - 'xoxb-[a-z]+'\n  - 'x*'\n  - '\\b'\n  - '^'",
      playbook: BASE_PLAYBOOK,
      findings: [
        { file: "failbook.yaml", message: "redact pattern 2 matches the empty string: it would put [REDACTED] between the characters of every output", line: 5, column: 5 },
        { file: "failbook.yaml", message: "redact pattern 3 matches the empty string", line: 6, column: 5 },
        { file: "failbook.yaml", message: "redact pattern 4 matches the empty string", line: 7, column: 5 },
      ],
    },
  ],
});
