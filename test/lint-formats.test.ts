import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import AjvDraft04 from "ajv-draft-04";
import { describe, expect, it } from "vitest";
import { failbook, REPO, tempProject } from "./helpers/cli.js";

/** A project with one error, one warning and one info finding. */
function projectWithFindings(): string {
  const dir = tempProject({});
  expect(failbook(["init", dir]).code).toBe(0);
  const registry = join(dir, "playbooks/registry.yaml");
  const text = readFileSync(registry, "utf8")
    // an error: a duplicate code
    .replace("  - code: approval_timeout", "  - code: approval_denied")
    // a warning: a verdict without recovery text
    .replace("    recovery: Re-retrieve the evidence, recompile the context, then try once more.\n", "");
  tempWrite(registry, text);
  return dir;
}

const tempWrite = (path: string, text: string): void => writeFileSync(path, text);

describe("lint output formats", () => {
  it("--format json has exactly the SPEC's shape", () => {
    const dir = projectWithFindings();
    const r = failbook(["lint", "--format", "json"], { cwd: dir });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { findings: Record<string, unknown>[]; errors: number; warnings: number };
    expect(out.errors).toBeGreaterThan(0);
    expect(typeof out.warnings).toBe("number");
    expect(out.findings.length).toBeGreaterThan(0);
    for (const f of out.findings) {
      expect(Object.keys(f).filter((k) => k !== "related").sort()).toEqual(["column", "file", "fingerprint", "line", "message", "path", "rule", "severity"]);
      expect(f.line).toBeGreaterThanOrEqual(1);
      expect(f.column).toBeGreaterThanOrEqual(1);
      expect(["error", "warning", "info"]).toContain(f.severity);
      expect(f.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    }
    const dup = out.findings.find((f) => f.rule === "duplicate-code");
    expect(dup).toMatchObject({ file: "playbooks/registry.yaml", path: expect.stringMatching(/^\/verdicts\/\d+\/code$/) });
  });

  it("--format sarif validates against the SARIF 2.1.0 schema and carries rule metadata", () => {
    const dir = projectWithFindings();
    const r = failbook(["lint", "--format", "sarif"], { cwd: dir });
    expect(r.code).toBe(1);
    const log = JSON.parse(r.stdout);
    const schema = JSON.parse(readFileSync(join(REPO, "test/vendor/sarif-2.1.0-rtm.5.json"), "utf8"));
    const ajv = new AjvDraft04({ allErrors: true, strict: false, unicodeRegExp: false });
    const validate = ajv.compile(schema);
    const valid = validate(log);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    const run = log.runs[0];
    expect(run.tool.driver.name).toBe("failbook");
    const ids = run.tool.driver.rules.map((x: { id: string }) => x.id);
    expect(ids).toContain("duplicate-code");
    expect(ids).toContain("schema");
    for (const res of run.results) {
      expect(run.tool.driver.rules[res.ruleIndex].id).toBe(res.ruleId);
      expect(res.locations[0].physicalLocation.region.startLine).toBeGreaterThanOrEqual(1);
    }
  });

  it("--format github writes one workflow command per finding, escaped", () => {
    const dir = projectWithFindings();
    const r = failbook(["lint", "--format", "github"], { cwd: dir });
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split("\n");
    for (const line of lines) expect(line).toMatch(/^::(error|warning|notice) file=[^,]+,line=\d+,col=\d+,title=[a-z/-]+::.+$/);
    expect(lines.some((l) => l.startsWith("::error file=playbooks/registry.yaml,") && l.includes("title=duplicate-code::"))).toBe(true);
  });

  it("--fail-on decides the exit status", () => {
    const dir = tempProject({});
    failbook(["init", dir]);
    const registry = join(dir, "playbooks/registry.yaml");
    tempWrite(registry, readFileSync(registry, "utf8").replace("    recovery: Re-retrieve the evidence, recompile the context, then try once more.\n", ""));
    const warnings = JSON.parse(failbook(["lint", "--format", "json"], { cwd: dir }).stdout);
    expect(warnings).toMatchObject({ errors: 0 });
    expect(warnings.warnings).toBeGreaterThan(0);
    expect(failbook(["lint"], { cwd: dir }).code).toBe(0);
    expect(failbook(["lint", "--fail-on", "warning"], { cwd: dir }).code).toBe(1);
    expect(failbook(["lint", "--fail-on", "error"], { cwd: dir }).code).toBe(0);
  });

  it("a baseline suppresses today's findings and names the ones that went away", () => {
    const dir = projectWithFindings();
    const write = failbook(["lint", "--write-baseline", "baseline.json"], { cwd: dir });
    expect(write.code).toBe(0);
    expect(failbook(["lint", "--baseline", "baseline.json"], { cwd: dir }).code).toBe(0);
    // fix the duplicate: its baseline entry no longer occurs
    const registry = join(dir, "playbooks/registry.yaml");
    const fixed = readFileSync(registry, "utf8").replace(/(  - code: approval_denied[\s\S]*?)  - code: approval_denied/, "$1  - code: approval_timeout");
    tempWrite(registry, fixed);
    const after = failbook(["lint", "--baseline", "baseline.json", "--format", "json"], { cwd: dir });
    expect(after.code).toBe(0);
    const out = JSON.parse(after.stdout);
    expect(out.baseline.stale.map((s: { rule: string }) => s.rule)).toContain("duplicate-code");
    const text = failbook(["lint", "--baseline", "baseline.json"], { cwd: dir });
    expect(text.stderr).toContain("no longer occur");
    expect(failbook(["lint", "--baseline", "missing.json"], { cwd: dir }).code).toBe(2);
  });

  it.each([
    { rule: "schema", file: "playbooks/registry.yaml", edit: (t: string) => t.replace("name: agent-tools\n", "nmae: agent-tools\n") },
    { rule: "yaml-syntax", file: "playbooks/fixtures/refund-with-conflict.yaml", edit: (t: string) => t + "\n  bad: [1, 2\n" },
  ])("a baseline never hides a $rule error: not written into it, not hidden by it", ({ rule, file, edit }) => {
    const dir = projectWithFindings();
    tempWrite(join(dir, file), edit(readFileSync(join(dir, file), "utf8")));
    const broken = JSON.parse(failbook(["lint", "--format", "json"], { cwd: dir }).stdout) as { findings: { rule: string; fingerprint: string; file: string; message: string }[] };
    const theError = broken.findings.filter((f) => f.rule === rule);
    expect(theError.length).toBeGreaterThan(0);

    const write = failbook(["lint", "--write-baseline", "baseline.json"], { cwd: dir });
    expect(write.code).toBe(0);
    expect(write.stderr).toContain(`not recorded: a baseline never hides yaml-syntax or schema errors`);
    expect(readFileSync(join(dir, "baseline.json"), "utf8")).not.toContain(`"rule": "${rule}"`);
    // A baseline that lists it anyway (written by an older failbook, or by hand) does not hide it.
    const baseline = JSON.parse(readFileSync(join(dir, "baseline.json"), "utf8")) as { findings: unknown[] };
    baseline.findings.push(...theError.map(({ fingerprint, rule, file, message }) => ({ fingerprint, rule, file, message })));
    tempWrite(join(dir, "baseline.json"), JSON.stringify(baseline));
    const r = failbook(["lint", "--baseline", "baseline.json"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`[${rule}]`);
  });

  it("fingerprints survive moving lines", () => {
    const dir = projectWithFindings();
    const before = JSON.parse(failbook(["lint", "--format", "json"], { cwd: dir }).stdout);
    const registry = join(dir, "playbooks/registry.yaml");
    tempWrite(registry, "# a new first line\n# and another\n" + readFileSync(registry, "utf8"));
    const after = JSON.parse(failbook(["lint", "--format", "json"], { cwd: dir }).stdout);
    const key = (f: { rule: string; fingerprint: string }) => `${f.rule}:${f.fingerprint}`;
    expect(after.findings.map(key).sort()).toEqual(before.findings.map(key).sort());
    expect(after.findings[0].line).not.toBe(before.findings[0].line);
  });
});

describe("control characters from YAML in every lint format", () => {
  // A code is the project's own word, yet it comes from a file a pull request may change.
  const dir = tempProject({
    "failbook.yaml": "registry: r.yaml\nplaybook: p.yaml\n",
    "r.yaml": [
      "apiVersion: failbook/v1",
      "kind: Registry",
      "name: x",
      "revision: 1",
      'classes: { t: { description: "T.\\u001b[31m\\u0007" } }',
      "verdicts:",
      '  - { code: "a\\nb::error file=x.yaml,line=1::forged\\u001b]0;title\\u0007", class: t, retryable: false, summary: A., recovery: R., match: [{ kind: k }] }',
      "  - { code: ok, class: t, retryable: false, summary: O., recovery: R., match: [{ kind: j }] }",
      "fallback: ok",
      "",
    ].join("\n"),
    "p.yaml": "apiVersion: failbook/v1\nkind: Playbook\nname: p\nverdicts:\n  ok: { action: fail }\n",
  });

  it.each(["text", "github", "json", "sarif"])("--format %s prints no raw ESC or BEL, and a line break in a code starts no line of its own", (format) => {
    const r = failbook(["lint", "--format", format], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(r.stdout.split("\n").some((line) => line.startsWith("::error file=x.yaml") || line.startsWith("b::error"))).toBe(false);
    if (format === "text") expect(r.stdout).toContain("code 'a\\u{a}b::error file=x.yaml,line=1::forged\\u{1b}]0;title\\u{7}'");
    if (format === "github") expect(r.stdout).toContain("code 'a%0Ab::error file=x.yaml,line=1::forged\\u{1b}]0;title\\u{7}'");
  });
});
