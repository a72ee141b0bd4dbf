import { expect, it } from "vitest";
import { failbook, tempProject } from "../helpers/cli.js";
import { BASE_PLAYBOOK, lintCase, playbook, registry, ruleTester, yaml } from "../helpers/rule-tester.js";

// Fake secrets of the built-in families, split so that no scanner reads this file as holding one.
const STRIPE = "sk_" + "live_4eC39HqLyjWDarjtT1zdp7dc";
const SLACK = "xo" + "xb-2048-deadbeef";
const OPENAI = "sk-" + "proj-abcdefghijklmnop1234";
const HEAD = "apiVersion: failbook/v1\nkind: Fixture\n";

const withSummary = (summary: string) => registry(`- { code: declined, class: permanent, retryable: false, summary: "${summary}", recovery: Re-plan. }\n`);
const DECLINED = playbook("declined: { action: fail }");

ruleTester("secret-in-project", {
  valid: [
    { name: "the base project" },
    {
      name: "prose and vocabulary about tokens and passwords, with no secret in them",
      registry: registry(yaml`
        - code: auth.token_expired
          class: transient
          retryable: true
          summary: "The token expired; the password may need a reset (see https://example.com/reset)."
          match:
            - { kind: token_expired, headers: { authorization: "*" } }
      `),
      playbook: playbook("auth.token_expired: { action: retry_with_backoff, max_retries: 1, backoff_ms: [100] }"),
    },
  ],
  invalid: [
    {
      name: "a Stripe key in a verdict's summary, at the string",
      registry: withSummary(`Rotate ${STRIPE} now.`),
      playbook: DECLINED,
      findings: [{ message: "this string holds a secret (Stripe key): the project's own text is never redacted", line: 12, column: 68 }],
    },
    {
      name: "a Slack token as an escalation queue",
      playbook: BASE_PLAYBOOK + `escalation_queue: "${SLACK}"\n`,
      findings: [{ file: "playbook.yaml", message: "(Slack token)", line: 7, column: 19 }],
    },
    {
      name: "a bearer token in a fixture's argument",
      fixtures: { "a.yaml": HEAD + "name: a\ncall: { id: c1, tool: t, args: { note: \"Authorization: Bearer abcdef123456\" } }\nresponses: [{ status: ok }]\n" },
      findings: [{ file: "fixtures/a.yaml", message: "(bearer token)", line: 4, column: 40 }],
    },
    {
      name: "a key in the config, and a tool glob that is a key in the playbook",
      config: `redact:\n  - '${OPENAI}'`,
      playbook: BASE_PLAYBOOK + `tools:\n  "${STRIPE}.*": { idempotent: false }\n`,
      findings: [
        { file: "failbook.yaml", message: "this string holds a secret (Anthropic and OpenAI key)", line: 4, column: 5 },
        { file: "playbook.yaml", message: "this key holds a secret (Stripe key)", line: 8, column: 3 },
      ],
    },
  ],
});

it("lint never echoes the secret: not in the message, the path or the excerpt, not even as a tool glob (vocabulary)", () => {
  const files = {
    "failbook.yaml": "registry: registry.yaml\nplaybook: playbook.yaml\n",
    "registry.yaml": withSummary(`Rotate ${STRIPE} now.`),
    "playbook.yaml": DECLINED + `tools:\n  "${STRIPE}.*": { idempotent: false }\n`,
  };
  const messages = lintCase({ registry: files["registry.yaml"], playbook: files["playbook.yaml"] }).filter((f) => f.rule === "secret-in-project");
  expect(messages.map((f) => `${f.file}:${f.line}:${f.column}`)).toEqual(["playbook.yaml:8:3", "registry.yaml:12:68"]);
  const dir = tempProject(files);
  for (const format of ["text", "json", "sarif", "github"]) {
    const r = failbook(["lint", "--format", format], { cwd: dir });
    expect(r.code, format).toBe(1);
    expect(r.stdout, format).toContain("secret-in-project");
    expect(r.stdout + r.stderr, format).not.toContain("4eC39HqLyjWDarjtT1zdp7dc");
  }
});

it("a JSON pointer through a key holding a secret shows the key redacted and escaped: a password in a URL, its slashes as ~1", () => {
  // In a pointer the URL's slashes are `~1`, which the output's own redaction does not read as a URL.
  const key = "https://svc:" + "Hunter2Secret@api.example.com/x";
  const dir = tempProject({
    "failbook.yaml": "registry: registry.yaml\nplaybook: playbook.yaml\n",
    "registry.yaml": withSummary("Card declined."),
    "playbook.yaml": DECLINED + `tools:\n  "${key}": { idempotent: false }\n`,
  });
  const r = failbook(["lint", "--format", "json"], { cwd: dir });
  expect(r.code).toBe(1);
  expect(r.stdout).not.toContain("Hunter2");
  const findings = JSON.parse(r.stdout).findings as { rule: string; path: string }[];
  expect(findings.filter((f) => f.rule === "secret-in-project").map((f) => f.path)).toEqual(["/tools/https:~1~1[REDACTED]@api.example.com~1x"]);
});
