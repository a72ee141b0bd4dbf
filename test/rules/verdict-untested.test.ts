import { playbook, registry, ruleTester, yaml } from "../helpers/rule-tester.js";

const HEAD = "apiVersion: failbook/v1\nkind: Fixture\n";
const fixture = (name: string, body: string) => HEAD + `name: ${name}\n` + yaml`${body}`;
const ONE_CALL = "call: { id: c1, tool: t }\nresponses: [{ status: error, error: { kind: http_error, http_status: 429 } }]\n";
/** unknown_error (the base's fallback) has an example, so only the verdicts a case adds are in question. */
const withFallbackExample = (text: string) => text.replace("recovery: A human looks. }", "recovery: A human looks., examples: [{ kind: weird }] }");
const PLAYBOOK = playbook(yaml`
  rate_limited: { action: escalate_to_human, queue: oncall }
`);

ruleTester("verdict-untested", {
  valid: [
    {
      name: "a verdict with an example",
      registry: withFallbackExample(registry("- { code: rate_limited, class: transient, retryable: true, match: [{ http_status: 429 }], examples: [{ kind: http_error, http_status: 429 }] }\n")),
      playbook: PLAYBOOK,
    },
    {
      name: "a verdict a fixture's golden names (in the outcome, or in a step)",
      registry: withFallbackExample(registry("- { code: rate_limited, class: transient, retryable: true, match: [{ http_status: 429 }] }\n")),
      playbook: PLAYBOOK,
      fixtures: { "a.yaml": fixture("a", ONE_CALL + "expect: { outcome: escalated, steps: [{ id: c1, verdict: rate_limited }] }\n") },
    },
    {
      name: "deprecated and reserved verdicts need neither",
      registry: withFallbackExample(
        registry(yaml`
          - { code: rate_limited, class: transient, retryable: true, status: deprecated, replaced_by: unknown_error }
          - { code: later, class: transient, retryable: true, status: reserved }
        `),
      ),
      playbook: PLAYBOOK,
    },
  ],
  invalid: [
    {
      name: "an active verdict with no example, and a golden that names another",
      registry: withFallbackExample(registry("- { code: rate_limited, class: transient, retryable: true, match: [{ http_status: 429 }] }\n")),
      playbook: PLAYBOOK,
      fixtures: { "a.yaml": fixture("a", ONE_CALL + "expect: { outcome: escalated, verdict: unknown_error }\n") },
      findings: [{ message: "verdict 'rate_limited' has no examples and no fixture's expect names it", line: 12, column: 13 }],
    },
    {
      name: "the fallback verdict counts too",
      registry: registry("- { code: rate_limited, class: transient, retryable: true, match: [{ http_status: 429 }], examples: [{ kind: http_error, http_status: 429 }] }\n"),
      playbook: PLAYBOOK,
      findings: [{ message: "verdict 'unknown_error' has no examples", line: 11, column: 13 }],
    },
  ],
});
