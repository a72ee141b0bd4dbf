/**
 * End to end: a small valid project, broken one way at a time, linted through the CLI. Each
 * break must name the right rule at the right file:line:column and exit 1; input that is not
 * a project at all must fail with one clear line and the SPEC's exit status, never a stack.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { failbook, tempProject, type RunResult } from "./helpers/cli.js";

const CONFIG = "registry: registry.yaml\nplaybook: playbook.yaml\nfixtures: [fixtures]\n";

const REGISTRY = `apiVersion: failbook/v1
kind: Registry
name: shop
revision: 1
classes:
  transient: { description: Temporary fault., max_retries: 3 }
  permanent: { description: Refused. }
  policy: { description: A policy said no. }
  unknown: { description: Nothing recognised it. }
verdicts:
  - code: upstream_timeout
    class: transient
    retryable: true
    summary: The upstream did not answer in time.
    recovery: Retry with the same idempotency key.
    match:
      - kind: timeout
  - code: card_declined
    class: permanent
    retryable: false
    summary: The card was declined.
    recovery: Ask for another payment method.
    match:
      - kind: declined
    examples:
      - { kind: declined, message: insufficient funds }
  - code: policy_denied
    class: policy
    retryable: false
    summary: A policy refused the call.
    recovery: A human reviews the request.
    match:
      - http_status: 403
    examples:
      - { kind: http_error, http_status: 403 }
  - code: unknown_error
    class: unknown
    retryable: false
    summary: Nothing recognised the failure.
    recovery: A human looks before anything is repeated.
    examples:
      - { kind: teapot }
fallback: unknown_error
`;

const PLAYBOOK = `apiVersion: failbook/v1
kind: Playbook
name: shop
budgets: { retries: 5, retry_seconds: 30 }
verdicts:
  upstream_timeout:
    action: retry_with_backoff
    max_retries: 2
    backoff_ms: [100, 400]
  card_declined: { action: deprecate_tool_call, reason: the card was declined, replan: true }
  policy_denied: { action: escalate_to_human, queue: policy_review }
  unknown_error: { action: escalate_to_human, queue: oncall }
on_unknown_side_effect: { queue: oncall }
`;

const FIXTURE = `apiVersion: failbook/v1
kind: Fixture
name: timeout-then-ok
call: { id: c1, tool: payments.charge }
responses:
  - { status: error, error: { kind: timeout } }
  - { status: ok }
expect: { outcome: recovered, verdict: upstream_timeout }
`;

function project(files: { registry?: string; playbook?: string } = {}): string {
  return tempProject({
    "failbook.yaml": CONFIG,
    "registry.yaml": files.registry ?? REGISTRY,
    "playbook.yaml": files.playbook ?? PLAYBOOK,
    "fixtures/timeout.yaml": FIXTURE,
  });
}

/** `text` with `from` replaced, failing loudly when `from` is not there (a test that cannot break is a defect). */
function edit(text: string, from: string, to: string): string {
  expect(text, `the base text holds ${JSON.stringify(from)}`).toContain(from);
  return text.replace(from, to);
}

/** Where the `nth` occurrence (1-based) of `needle` stands in `text`, as line:column. */
function at(text: string, needle: string, nth = 1): string {
  let offset = -1;
  for (let i = 0; i < nth; i++) offset = text.indexOf(needle, offset + 1);
  expect(offset, `${JSON.stringify(needle)} occurs ${nth} times`).toBeGreaterThanOrEqual(0);
  const before = text.slice(0, offset).split("\n");
  return `${before.length}:${before[before.length - 1].length + 1}`;
}

const noStack = (r: RunResult) => {
  expect(r.stdout).not.toContain("    at ");
  expect(r.stderr).not.toContain("    at ");
};

interface Break {
  what: string;
  registry?: string;
  playbook?: string;
  rule: string;
  file: "registry.yaml" | "playbook.yaml";
  /** The text the finding must point at (its first character), in the broken file. */
  needle: string;
  nth?: number;
}

const BREAKS: Break[] = [
  {
    what: "a verdict with no action",
    playbook: edit(PLAYBOOK, "  card_declined: { action: deprecate_tool_call, reason: the card was declined, replan: true }\n", ""),
    rule: "playbook-exhaustive",
    file: "registry.yaml",
    needle: "card_declined",
  },
  {
    what: "a retry on a non-retryable verdict",
    playbook: edit(PLAYBOOK, "card_declined: { action: deprecate_tool_call, reason: the card was declined, replan: true }", "card_declined: { action: retry_with_backoff, max_retries: 1, backoff_ms: [100] }"),
    rule: "retry-not-retryable",
    file: "playbook.yaml",
    needle: "retry_with_backoff",
    nth: 2,
  },
  {
    what: "a policy verdict that does not escalate",
    playbook: edit(PLAYBOOK, "policy_denied: { action: escalate_to_human, queue: policy_review }", "policy_denied: { action: fail }"),
    rule: "policy-must-escalate",
    file: "playbook.yaml",
    needle: "fail }",
  },
  {
    what: "a backoff_ms shorter than max_retries",
    playbook: edit(PLAYBOOK, "backoff_ms: [100, 400]", "backoff_ms: [100]"),
    rule: "backoff-schedule-short",
    file: "playbook.yaml",
    needle: "[100]",
  },
  {
    what: "a shadowed match rule",
    registry: edit(REGISTRY, "      - kind: declined\n", "      - kind: declined\n      - { kind: timeout, http_status: 504 }\n"),
    rule: "matcher-shadowed",
    file: "registry.yaml",
    needle: "{ kind: timeout, http_status: 504 }",
  },
  {
    what: "a duplicate code",
    registry: edit(REGISTRY, "  - code: card_declined", "  - code: upstream_timeout"),
    rule: "duplicate-code",
    file: "registry.yaml",
    needle: "upstream_timeout",
    nth: 2,
  },
  {
    what: "a YAML syntax error (a key indented one space short)",
    registry: edit(REGISTRY, "    recovery: Ask for another payment method.", "   recovery: Ask for another payment method."),
    rule: "yaml-syntax",
    file: "registry.yaml",
    needle: "recovery: Ask",
  },
  {
    what: "a duplicate key",
    registry: edit(REGISTRY, "    retryable: false\n    summary: The card was declined.", "    retryable: false\n    retryable: true\n    summary: The card was declined."),
    rule: "yaml-syntax",
    file: "registry.yaml",
    needle: "retryable: true",
    nth: 2,
  },
  {
    what: "a wrong type (max_retries: three)",
    playbook: edit(PLAYBOOK, "max_retries: 2", "max_retries: three"),
    rule: "schema",
    file: "playbook.yaml",
    needle: "three",
  },
];

describe("lint on a broken project", () => {
  it("passes on the project before it is broken", () => {
    const r = failbook(["lint"], { cwd: project() });
    expect(r.stdout).toContain("no problems found");
    expect(r.code).toBe(0);
  });

  it.each(BREAKS)("reports $what as $rule at the node, exit 1", (b) => {
    const dir = project({ registry: b.registry, playbook: b.playbook });
    const r = failbook(["lint"], { cwd: dir });
    expect(r.code).toBe(1);
    noStack(r);
    const text = b.file === "registry.yaml" ? (b.registry ?? REGISTRY) : (b.playbook ?? PLAYBOOK);
    const where = `${b.file}:${at(text, b.needle, b.nth)} error `;
    const line = r.stdout.split("\n").find((l) => l.startsWith(where) && l.endsWith(`[${b.rule}]`));
    expect(line, `expected a line starting "${where}" for [${b.rule}] in:\n${r.stdout}`).toBeDefined();
  });

  it.each([
    { quote: "double", from: "summary: The card was declined.", to: 'summary: "The card was \\"declined.', needle: '"The card' },
    { quote: "single", from: "summary: The card was declined.", to: "summary: 'The card''s been declined.", needle: "'The card" },
    { quote: "single", from: "summary: The card was declined.", to: "summary: '''Declined'' it says.", needle: "'''Declined" },
  ])("reports an unclosed $quote quote where it opened, not at the end of the file", ({ from, to, needle }) => {
    const registry = edit(REGISTRY, from, to);
    const r = failbook(["lint"], { cwd: project({ registry }) });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^registry\\.yaml:${at(registry, needle)} error a (single|double)-quoted string opened here is never closed; add the closing .* \\[yaml-syntax\\]$`, "m"));
  });

  it("reports a saga step without responses (the schema requires them) at the step, naming the list item", () => {
    const dir = project();
    const saga = "apiVersion: failbook/v1\nkind: Fixture\nname: saga\nsteps:\n  - call: { id: reserve, tool: hotel.reserve }\n";
    writeFileSync(join(dir, "fixtures/saga.yaml"), saga);
    const r = failbook(["lint"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`fixtures/saga.yaml:${at(saga, "call:")} error item 1 of 'steps' is missing 'responses' [schema]`);
  });

  it("--format json has the SPEC's shape and counts", () => {
    const dir = project({ playbook: edit(PLAYBOOK, "policy_denied: { action: escalate_to_human, queue: policy_review }", "policy_denied: { action: fail }") });
    const r = failbook(["lint", "--format", "json"], { cwd: dir });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { findings: Record<string, unknown>[]; errors: number; warnings: number };
    expect(Object.keys(out)).toEqual(expect.arrayContaining(["errors", "findings", "warnings"]));
    expect(out.findings).toEqual([
      {
        rule: "policy-must-escalate",
        severity: "error",
        message: expect.stringContaining("'policy_denied' is a policy refusal"),
        file: "playbook.yaml",
        line: 11,
        column: 28,
        path: "/verdicts/policy_denied/action",
        fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/),
        related: [{ message: expect.any(String), file: "registry.yaml", line: 28, column: 12 }],
      },
    ]);
    expect(out.errors).toBe(1);
    expect(out.warnings).toBe(0);
  });
});

describe("a schema error in one entry hides nothing of the others (SPEC 21)", () => {
  // A breaker whose failure_ratio is out of range, and a jitter with min above max in another entry.
  const breaker = "circuit_breakers:\n  payments:\n    tools: payments.*\n    failure_ratio: 2\n    minimum_throughput: 10\n    sampling_ms: 60000\n    break_ms: 30000\n";
  const jitter = "backoff: { strategy: exponential, base_ms: 100, jitter: { min: 1.5, max: 0.5 } }";
  const playbook = edit(edit(PLAYBOOK, "budgets: { retries: 5, retry_seconds: 30 }\n", `budgets: { retries: 5, retry_seconds: 30 }\n${breaker}`), "backoff_ms: [100, 400]", jitter);

  it("one run reports the breaker's schema error and the jitter's inversion, each at its place", () => {
    const r = failbook(["lint"], { cwd: project({ playbook }) });
    expect(r.code).toBe(1);
    const lines = r.stdout.split("\n").filter((l) => / (error|warning|info) /.test(l) && !l.startsWith(" "));
    expect(lines).toContain(`playbook.yaml:${at(playbook, "2\n")} error 'failure_ratio' must be a share of attempts in (0, 1] (0.5 opens at half of them failing), not 2 [schema]`);
    expect(lines.find((l) => l.startsWith(`playbook.yaml:${at(playbook, "1.5")} error `))).toMatch(/\[jitter-range-inverted\]$/);
  });

  it("a registry verdict that fails its schema is left out of the rules with its playbook action; the rest are checked, at their own lines", () => {
    const registry = edit(REGISTRY, "    retryable: false\n    summary: The card was declined.", "    retryable: sometimes\n    summary: The card was declined.");
    const r = failbook(["lint", "--format", "json"], { cwd: project({ registry, playbook: edit(PLAYBOOK, "policy_denied: { action: escalate_to_human, queue: policy_review }", "policy_denied: { action: fail }") }) });
    const findings = (JSON.parse(r.stdout) as { findings: { rule: string; file: string; line: number; path: string; message: string }[] }).findings;
    expect(findings.map((f) => f.rule).sort()).toEqual(["policy-must-escalate", "schema"]);
    // policy_denied comes after the verdict left out: its related position and path are the file's.
    expect(findings.find((f) => f.rule === "policy-must-escalate")?.path).toBe("/verdicts/policy_denied/action");
    expect(findings.every((f) => !f.message.includes("'card_declined'") || f.rule === "schema")).toBe(true);
  });

  it("simulate still refuses a project whose playbook failed its schema", () => {
    const r = failbook(["simulate"], { cwd: project({ playbook }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("cannot simulate until the registry and playbook load");
  });
});

describe("lint on input that is not a project", () => {
  const ALIAS_BOMB = ["a0: &a0 [" + Array(9).fill("lol").join(", ") + "]", ...Array.from({ length: 8 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(9).fill(`*a${i}`).join(", ")}]`)].join("\n") + "\n";

  it.each([
    { what: "an empty registry file", content: "", rule: "schema", position: "1:1", message: "the file is empty" },
    { what: "a binary registry file", content: Buffer.from([0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]), rule: "yaml-syntax", position: "3:1", message: "binary" },
    { what: "a YAML alias bomb (9 levels of 9)", content: ALIAS_BOMB, rule: "yaml-syntax", position: "1:1", message: "alias bomb" },
    { what: "a scalar where a document should be", content: "just some text\n", rule: "schema", position: "1:1", message: "expected a Registry document (a mapping), found a string" },
    { what: "a list where a document should be", content: "- code: a\n", rule: "schema", position: "1:1", message: "found a list" },
  ])("$what: one finding, exit 1", ({ content, rule, position, message }) => {
    const dir = project();
    writeFileSync(join(dir, "registry.yaml"), content);
    const r = failbook(["lint"], { cwd: dir });
    expect(r.code).toBe(1);
    noStack(r);
    const findings = r.stdout.split("\n").filter((l) => /^\S+:\d+:\d+ (error|warning|info) /.test(l));
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatch(new RegExp(`^registry\\.yaml:${position} error .*${message.replace(/[()]/g, "\\$&")}.* \\[${rule}\\]$`));
  });

  it("a registry that is not UTF-8 (a PNG): exit 2, one line at the first bad byte", () => {
    const dir = project();
    writeFileSync(join(dir, "registry.yaml"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]));
    const r = failbook(["lint"], { cwd: dir });
    expect(r.code).toBe(2);
    noStack(r);
    expect(r.stderr).toMatch(/^failbook: registry\.yaml:1:1: not valid UTF-8 \(byte 0x89\); .*\n$/);
  });

  it("a missing registry file: exit 2, naming the config key", () => {
    const dir = tempProject({ "failbook.yaml": CONFIG, "playbook.yaml": PLAYBOOK, "fixtures/timeout.yaml": FIXTURE });
    const r = failbook(["lint"], { cwd: dir });
    expect(r.code).toBe(2);
    noStack(r);
    expect(r.stderr).toContain("registry file not found: registry.yaml (named at failbook.yaml:1:11)");
  });

  it("no config anywhere: exit 2", () => {
    const r = failbook(["lint"], { cwd: tempProject({ "registry.yaml": REGISTRY }) });
    expect(r.code).toBe(2);
    noStack(r);
    expect(r.stderr).toContain("no failbook.yaml found");
  });

  it("--config pointing at a missing file: exit 2", () => {
    const dir = project();
    const r = failbook(["--config", "nope/failbook.yaml", "lint"], { cwd: dir });
    expect(r.code).toBe(2);
    noStack(r);
    expect(r.stderr).toContain("config file not found: nope/failbook.yaml");
  });
});
