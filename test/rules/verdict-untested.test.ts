import { describe, expect, it } from "vitest";
import { failbook, tempProject } from "../helpers/cli.js";
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
      name: "a verdict a fixture's dispatch classifies, under a golden that pins only the outcome",
      registry: withFallbackExample(registry("- { code: rate_limited, class: transient, retryable: true, match: [{ http_status: 429 }] }\n")),
      playbook: PLAYBOOK,
      fixtures: { "a.yaml": fixture("a", ONE_CALL + "expect: { outcome: escalated }\n") },
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
      name: "an active verdict with no example, and a fixture whose failure classifies as another",
      registry: withFallbackExample(registry("- { code: rate_limited, class: transient, retryable: true, match: [{ http_status: 429 }] }\n")),
      playbook: PLAYBOOK,
      fixtures: { "a.yaml": fixture("a", ONE_CALL.replace("http_status: 429", "http_status: 418") + "expect: { outcome: escalated, verdict: unknown_error }\n") },
      findings: [{ message: "verdict 'rate_limited' has no examples and no fixture exercises it", line: 12, column: 13 }],
    },
    {
      name: "a fixture without a golden exercises nothing",
      registry: withFallbackExample(registry("- { code: rate_limited, class: transient, retryable: true, match: [{ http_status: 429 }] }\n")),
      playbook: PLAYBOOK,
      fixtures: { "a.yaml": fixture("a", ONE_CALL) },
      findings: [{ message: "verdict 'rate_limited' has no examples and no fixture exercises it", line: 12, column: 13 }],
    },
    {
      name: "the fallback verdict counts too",
      registry: registry("- { code: rate_limited, class: transient, retryable: true, match: [{ http_status: 429 }], examples: [{ kind: http_error, http_status: 429 }] }\n"),
      playbook: PLAYBOOK,
      findings: [{ message: "verdict 'unknown_error' has no examples", line: 11, column: 13 }],
    },
  ],
});

describe("verdict-untested and simulate --coverage", () => {
  it("agree on what a fixture exercises: a golden that pins the outcome of a run that classified the verdict", () => {
    const dir = tempProject({
      "failbook.yaml": "registry: registry.yaml\nplaybook: playbook.yaml\nfixtures: [fixtures]\n",
      "registry.yaml": withFallbackExample(registry("- { code: rate_limited, class: transient, retryable: true, summary: Slow down., recovery: Wait., match: [{ http_status: 429 }] }\n")),
      "playbook.yaml": PLAYBOOK,
      "fixtures/a.yaml": fixture("a", ONE_CALL + "expect: { outcome: escalated }\n"),
    });
    const coverage = JSON.parse(failbook(["simulate", "--coverage", "--format", "json"], { cwd: dir }).stdout) as { coverage: { verdicts: { code: string; fixtures: string[] }[]; verdict_coverage: { untested: string[] } } };
    expect(coverage.coverage.verdicts.find((v) => v.code === "rate_limited")?.fixtures).toEqual(["a"]);
    expect(coverage.coverage.verdict_coverage.untested).not.toContain("rate_limited");
    const lint = JSON.parse(failbook(["lint", "--format", "json"], { cwd: dir }).stdout) as { findings: { rule: string; message: string }[] };
    expect(lint.findings.filter((f) => f.rule === "verdict-untested").map((f) => f.message)).toEqual([]);
  });
});
