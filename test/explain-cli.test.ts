import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadProject } from "../src/load/project.js";
import { allRuleMeta } from "../src/lint/lint.js";
import "../src/change/rules/index.js";
import { failbook, REPO, tempProject } from "./helpers/cli.js";
import { SMALL_FIXTURES, smallProject } from "./helpers/render-projects.js";

const lineOf = (text: string, needle: string) => text.split("\n").findIndex((l) => l.includes(needle)) + 1;
const noStack = (s: string) => expect(s).not.toMatch(/\n\s+at .+:\d+:\d+/);

describe("failbook explain", () => {
  const dir = smallProject();

  it("prints a rule whose id names a secret's key word (secret-in-project) without redacting its own severities", () => {
    const r = failbook(["explain", "secret-in-project"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("rules: { secret-in-project: error | warning | info | off }");
    expect(r.stdout).not.toContain("secret-in-project: [REDACTED]");
  });

  it("explains a known code with every field, the worst case and the fixtures that exercise it", () => {
    const r = failbook(["explain", "net.timeout"], { cwd: dir });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const expected = [
      "net.timeout  (active)",
      "The upstream did not answer in time.",
      "class         transient: Temporary fault.",
      "retryable     yes",
      "side effect   unknown",
      "boundary      external",
      "human action  not required",
      "since         revision 2",
      "adr           ADR-0010",
      "Cause\n  A slow upstream or a dropped connection.",
      "Recovery\n  Retry with the same idempotency key.",
      "Safe next actions\n  + verify whether the record exists",
      "Unsafe next actions\n  - retry with a new idempotency key",
      "Playbook action\n  retry_with_backoff: 3 retries; 200, 600, 1800 ms",
      "worst case: at most 4 attempts; 2.6 s total backoff (200 ms + 600 ms + 1.8 s, jitter at its maximum)",
      "exceeds budgets.retry_seconds (2 s)",
      "Recognised when\n  kind timeout",
      'Details schema\n  {\n    "type": "object",',
      `fixtures/calls.yaml:${lineOf(SMALL_FIXTURES, "kind: timeout")}  timeout-then-ok  responses[0] classifies as it`,
    ];
    for (const part of expected) expect(r.stdout).toContain(part);
  });

  it("names each place a fixture exercises the code: a recorded failure and the golden", () => {
    const r = failbook(["explain", "pay.declined"], { cwd: dir });
    expect(r.code).toBe(0);
    const section = r.stdout.slice(r.stdout.indexOf("Fixtures that exercise it"));
    expect(section.trim().split("\n").slice(1)).toEqual([
      `  fixtures/calls.yaml:${lineOf(SMALL_FIXTURES, "kind: declined")}  declined  responses[0] classifies as it; the golden names it at expect.verdict`,
    ]);
    expect(r.stdout).toContain("human action  required");
  });

  it.each(["NET.TIMEOUT", "Net.Timeout", "net.timeout"])("finds the code whatever its case: %s", (query) => {
    const r = failbook(["explain", query], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(failbook(["explain", "net.timeout"], { cwd: dir }).stdout);
  });

  it.each([
    { query: "net.timout", suggestion: "did you mean net.timeout?" },
    { query: "pay.decline", suggestion: "did you mean pay.declined?" },
    { query: "zzzzzzzzzz", suggestion: "failbook render lists every code" },
  ])("exits 1 on an unknown code $query with one line: $suggestion", ({ query, suggestion }) => {
    const r = failbook(["explain", query], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`unknown code '${query}'`);
    expect(lines[0]).toContain("registry.yaml");
    expect(lines[0]).toContain(suggestion);
    noStack(r.stderr);
  });

  it.each([
    { code: "net.reset", says: "deprecated: use net.timeout instead" },
    { code: "pay.approval_pending", says: "reserved: a name kept for later" },
    { code: "unknown_error", says: "fallback      yes: an error that no rule recognises classifies as this code" },
  ])("says what is special about $code", ({ code, says }) => {
    const r = failbook(["explain", code], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(says);
  });

  it("prints plain text in a pipe: no colour, no pager", () => {
    const r = failbook(["explain", "net.timeout"], { cwd: dir, env: { PAGER: "false", FAILBOOK_PAGER: "false" } });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("\u001b[");
  });

  it("documents the argument, the pager and the exit codes in --help", () => {
    const r = failbook(["explain", "--help"]);
    expect(r.code).toBe(0);
    for (const word of ["<code>", "worst case", "file:line", "FAILBOOK_PAGER", "Exit status"]) expect(r.stdout).toContain(word);
  });

  it("exits 2 without a code", () => {
    const r = failbook(["explain"], { cwd: dir });
    expect(r.code).toBe(2);
    noStack(r.stderr);
  });
});

describe("failbook explain RULE-ID", () => {
  const dir = smallProject();
  const nowhere = tempProject({});
  const rules = allRuleMeta();

  it.each([
    { id: "retry-committed", runs: "lint rule" },
    { id: "change/code-removed", runs: "change-control rule" },
    { id: "schema", runs: "load rule" },
  ])("prints $id's description, an example, the fix and how to set its severity, in a project or outside one", ({ id, runs }) => {
    const rule = rules.find((r) => r.id === id)!;
    for (const cwd of [dir, nowhere]) {
      const r = failbook(["explain", id], { cwd });
      expect(r).toMatchObject({ code: 0, stderr: "" });
      expect(r.stdout).toContain(`${id}  (${rule.severity} by default)\n${rule.description}\n`);
      expect(r.stdout).toContain(`Example\n${rule.example.split("\n").map((l) => `  ${l}`).join("\n")}\n`);
      expect(r.stdout).toContain(`Fix\n  ${rule.fix}\n`);
      expect(r.stdout).toContain(runs);
      expect(r.stdout).toContain(`rules: { ${id}: error | warning | info | off }`);
    }
  });

  it.each([
    { query: "RETRY_WITH_BACKOF", suggestion: "retry_with_backoff" },
    { query: "escalate_to_humans", suggestion: "escalate_to_human" },
    { query: "retry-comitted", suggestion: "retry-committed" },
    { query: "change/code-remove", suggestion: "change/code-removed" },
  ])("suggests the action or rule nearest to $query, in a project or outside one (exit 1, one line)", ({ query, suggestion }) => {
    for (const cwd of [dir, nowhere]) {
      const r = failbook(["explain", query], { cwd });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toMatch(new RegExp(`did you mean (.+, )?${suggestion.replace(/\//g, "\\/")}(, .+)?\\?\n$`));
    }
  });

  it("finds an action or a rule whatever its case, as it finds a code", () => {
    expect(failbook(["explain", "RETRY_WITH_BACKOFF"], { cwd: dir }).stdout).toBe(failbook(["explain", "retry_with_backoff"], { cwd: dir }).stdout);
    expect(failbook(["explain", "Retry-Committed"], { cwd: dir }).stdout).toBe(failbook(["explain", "retry-committed"], { cwd: dir }).stdout);
  });
});

const shipped = existsSync(join(REPO, "failbook.yaml")) && existsSync(join(REPO, "playbooks/registry.yaml"));
describe.skipIf(!shipped)("failbook explain on the shipped project", () => {
  const registry = shipped ? loadProject({ cwd: REPO }).project.registry?.value : undefined;
  const codes = registry?.verdicts.map((v) => v.code) ?? [];

  it.each(codes)("explains %s with its class, action and worst case", (code) => {
    const r = failbook(["explain", code.toUpperCase()]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith(`${code}  (`)).toBe(true);
    for (const part of ["class ", "retryable ", "side effect ", "Playbook action", "Fixtures that exercise it"]) expect(r.stdout).toContain(part);
  });

  it.skipIf(!existsSync(join(REPO, "playbooks/fixtures/refund-with-conflict.yaml")))("points at seed 000's refund fixture for idempotency_conflict", () => {
    const r = failbook(["explain", "idempotency_conflict"]);
    expect(r.stdout).toMatch(/playbooks\/fixtures\/refund-with-conflict\.yaml:\d+ +refund-with-conflict +responses\[0\] classifies as it; the golden names it at expect\.verdict/);
  });
});
