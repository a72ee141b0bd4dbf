/**
 * SPEC 16: redaction never hides the project's own vocabulary, in a finding, an explanation,
 * the rendered registry or an argument naming a code, even when a `redact:` pattern overlaps
 * a code (a lint error that must still read right). Values from outside stay redacted.
 */
import { describe, expect, it } from "vitest";
import { baseProject, projectFiles } from "./helpers/change-project.js";
import { adversarialProject } from "./adversarial/project.js";
import { failbook, tempProject } from "./helpers/cli.js";

function project(): string {
  const p = baseProject();
  p.config.redact = ["fraud"];
  p.registry.verdicts.splice(2, 0, { code: "card_fraud_suspected", class: "permanent", retryable: false, adr: "ADR-0001", summary: "The issuer suspects fraud.", recovery: "Ask the customer.", match: [{ kind: "fraud_check_failed" }] });
  p.playbook.verdicts.card_fraud_suspected = { action: "escalate_to_human", queue: "fraud_desk" };
  return tempProject(projectFiles(p));
}

describe("the project's vocabulary is never redacted", () => {
  const dir = project();

  it("lint's redact-pattern-invalid names the code the pattern matches, and the pattern by its place", () => {
    const r = failbook(["lint"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("redact pattern 1 matches code 'card_fraud_suspected' (playbooks/registry.yaml:");
    expect(r.stdout).not.toContain("_[REDACTED]_");
    expect(r.stdout).not.toContain("/[REDACTED]/");
    const json = JSON.parse(failbook(["lint", "--format", "json"], { cwd: dir }).stdout) as { findings: { rule: string; message: string; path: string }[] };
    expect(json.findings.find((f) => f.rule === "redact-pattern-invalid")?.message).toContain("'card_fraud_suspected'");
  });

  it.each([["card_fraud_suspected"], ["CARD_FRAUD_SUSPECTED"]])("explain %s finds the code and prints it whole", (arg) => {
    const r = failbook(["explain", arg], { cwd: dir });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n")[0]).toMatch(/^card_fraud_suspected\s+\(active\)$/);
    expect(r.stdout).toContain("The issuer suspects [REDACTED].");
  });

  it("render keeps the code and the kind, and redacts the prose", () => {
    const r = failbook(["render", "--format", "json"], { cwd: dir });
    expect(r.code).toBe(0);
    const code = (JSON.parse(r.stdout) as { codes: { code: string; summary: string }[] }).codes.find((c) => c.code === "card_fraud_suspected");
    expect(code?.summary).toBe("The issuer suspects [REDACTED].");
    expect(r.stdout).toContain('"fraud_check_failed"');
  });

  it("values from outside stay redacted around the vocabulary", () => {
    const r = failbook(["classify", "--error", '{"kind":"fraud_check_failed","message":"fraud ring 7"}'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^error\s+\{ kind: fraud_check_failed, message: \[REDACTED\] ring 7 \}$/m);
    expect(r.stdout).toMatch(/^verdict\s+card_fraud_suspected\s/m);
  });
});

describe("a file's own name is never redacted in a location (SPEC 21)", () => {
  // Names the key-value family reads as `key: value` once a location follows: `token-expired.yaml:7:20`.
  const fixture = (name: string, message: string) =>
    `apiVersion: failbook/v1\nkind: Fixture\nname: ${name}\ncall: { id: c1, tool: search.query }\nresponses:\n  - { status: error, error: { kind: timeout, message: "${message}" } }\n  - { status: ok }\n`;
  const dir = adversarialProject({
    "fixtures/token-expired.yaml": fixture("expired", "token=abcdef123456"),
    "fixtures/password-reset.yaml": fixture("expired", "slow"),
    "token-refresh.jsonl": '{"apiVersion":"failbook/v1","kind":"Record","run_id":"r1","call":{"id":"c1","tool":"search.query"},"responses":[{"status":"ok","value":true}]}\nnot json\n',
  });

  it("lint text: every location whole, the secret in the excerpt still redacted", () => {
    const r = failbook(["lint"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^fixtures\/token-expired\.yaml:6:\d+ error .*\[secret-in-project\]$/m);
    expect(r.stdout).toMatch(/^fixtures\/token-expired\.yaml:3:7 error fixture name 'expired' is already used/m);
    expect(r.stdout).toContain("first used here at fixtures/password-reset.yaml:3:7");
    expect(r.stdout).toContain("token=[REDACTED]");
    expect(r.stdout).not.toContain("abcdef123456");
    expect(r.stdout).not.toMatch(/\.yaml:\[REDACTED\]/);
  });

  it("lint json: the message and related message read whole", () => {
    const r = failbook(["lint", "--format", "json"], { cwd: dir });
    const findings = (JSON.parse(r.stdout) as { findings: { rule: string; file: string; line: number; related?: { file: string }[] }[] }).findings;
    const duplicate = findings.find((f) => f.rule === "fixture-invalid");
    expect(duplicate).toMatchObject({ file: "fixtures/token-expired.yaml", line: 3, related: [{ file: "fixtures/password-reset.yaml" }] });
    expect(r.stdout).not.toContain("[REDACTED]\"");
    expect(r.stdout).not.toContain("abcdef123456");
  });

  it.each(["json", "text", "md"])("replay --format %s keeps an invalid line's location", (format) => {
    const r = failbook(["replay", "token-refresh.jsonl", "--format", format], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("token-refresh.jsonl:2");
    expect(r.stdout).not.toContain("[REDACTED]");
    if (format === "json") expect((JSON.parse(r.stdout) as { invalid_lines: { location: string }[] }).invalid_lines[0].location).toBe("token-refresh.jsonl:2");
  });
});
