/**
 * A RuleTester in ESLint's manner: one table of `valid` cases (the rule must stay silent)
 * and `invalid` cases (exactly these findings of the rule, at these positions). Each case
 * is a small project on disk, loaded and linted through the library as the CLI does.
 */
import { describe, expect, it } from "vitest";
import { allRuleMeta, lintProject } from "../../src/lint/lint.js";
import { loadProject } from "../../src/load/project.js";
import type { Finding } from "failbook-runtime/model/finding.js";
import { tempProject } from "./cli.js";

export interface Case {
  name: string;
  /** registry.yaml; the base registry when absent. */
  registry?: string;
  /** playbook.yaml; the base playbook when absent. */
  playbook?: string;
  /** Fixture files under fixtures/, by file name. */
  fixtures?: Record<string, string>;
  /** Extra lines for failbook.yaml (after registry, playbook and fixtures). */
  config?: string;
  /** Any other files (ADRs), by path from the project root. */
  files?: Record<string, string>;
}

export interface Expected {
  /** A fragment of the message, or a pattern it must match. */
  message: string | RegExp;
  /** Path shown in the finding; registry.yaml when absent. */
  file?: string;
  line: number;
  column: number;
  related?: { file?: string; line: number; column: number }[];
}

export interface InvalidCase extends Case {
  findings: Expected[];
}

/** Strip the indentation a template literal picks up in a test table, and a leading newline. */
export function yaml(strings: TemplateStringsArray, ...values: unknown[]): string {
  const text = strings.reduce((out, s, i) => out + s + (i < values.length ? String(values[i]) : ""), "").replace(/^\n/, "");
  const indents = text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => /^ */.exec(l)![0].length);
  const cut = Math.min(...indents);
  return text
    .split("\n")
    .map((l) => l.slice(cut))
    .join("\n")
    .replace(/[ \t]+$/, "");
}

/**
 * The base registry, one verdict per line so that cases know where theirs start: the
 * verdicts a case adds with `registry(...)` begin at line 12. Classes: transient (at most 3
 * retries), permanent (none), policy, unknown.
 */
export function registry(verdicts: string, more = ""): string {
  return (
    yaml`
    apiVersion: failbook/v1
    kind: Registry
    name: test
    revision: 1
    classes:
      transient: { description: Temporary fault., max_retries: 3 }
      permanent: { description: Refused., max_retries: 0 }
      policy: { description: Not ours to decide. }
      unknown: { description: Nothing recognised it. }
    verdicts:
      - { code: unknown_error, class: unknown, retryable: false, summary: Nothing matched., recovery: A human looks. }
    ` +
    indent(verdicts, 2) +
    yaml`
    fallback: unknown_error
    ` +
    more
  );
}

/** The base playbook: the entries a case adds with `playbook(...)` begin at line 6. */
export function playbook(entries: string, more = ""): string {
  return (
    yaml`
    apiVersion: failbook/v1
    kind: Playbook
    name: test
    verdicts:
      unknown_error: { action: escalate_to_human, queue: oncall }
    ` +
    indent(entries, 2) +
    more
  );
}

/** A clean project: every rule but unknown-side-effect-silent (a warning) stays silent on it. */
export const BASE_REGISTRY = registry(yaml`
  - code: transient_timeout
    class: transient
    retryable: true
    summary: Timed out.
    recovery: Retry with the same idempotency key.
    match:
      - kind: timeout
`);
export const BASE_PLAYBOOK = playbook(yaml`
  transient_timeout: { action: retry_with_backoff, max_retries: 2, backoff_ms: [100, 200] }
`);

function indent(text: string, by: number): string {
  const body = yaml`${text}`;
  if (body.trim() === "") return "";
  return (
    body
      .split("\n")
      .filter((l, i, all) => !(i === all.length - 1 && l === ""))
      .map((l) => (l === "" ? l : " ".repeat(by) + l))
      .join("\n") + "\n"
  );
}

/** Write the case's project and lint it; every finding, of every rule. */
export function lintCase(c: Case): Finding[] {
  const fixtures = c.fixtures ?? {};
  const config = [
    "registry: registry.yaml",
    "playbook: playbook.yaml",
    ...(Object.keys(fixtures).length > 0 ? ["fixtures: [fixtures]"] : []),
    ...(c.config ? [c.config.trimEnd()] : []),
  ].join("\n");
  const dir = tempProject({
    "failbook.yaml": config + "\n",
    "registry.yaml": c.registry ?? BASE_REGISTRY,
    "playbook.yaml": c.playbook ?? BASE_PLAYBOOK,
    ...Object.fromEntries(Object.entries(fixtures).map(([name, text]) => [`fixtures/${name}`, text])),
    ...c.files,
  });
  const { project, findings } = loadProject({ cwd: dir });
  return lintProject(project, findings);
}

/**
 * A case is only meaningful when the project loaded: a schema or syntax error stops the
 * semantic rules, and a valid case would then pass for the wrong reason.
 */
function expectLoaded(findings: Finding[]): void {
  const load = findings.filter((f) => f.rule === "yaml-syntax" || f.rule === "schema");
  expect(load.map((f) => `${f.file}:${f.line}:${f.column} ${f.message}`), "the case's project must load cleanly").toEqual([]);
}

export function ruleTester(ruleId: string, cases: { valid: Case[]; invalid: InvalidCase[] }): void {
  const meta = allRuleMeta().find((r) => r.id === ruleId);
  describe(ruleId, () => {
    it("is a registered rule", () => {
      expect(meta).toBeDefined();
    });

    it.each(cases.valid.map((c) => [c.name, c] as const))("valid: %s", (_name, c) => {
      const findings = lintCase(c);
      expectLoaded(findings);
      expect(findings.filter((f) => f.rule === ruleId).map((f) => `${f.line}:${f.column} ${f.message}`)).toEqual([]);
    });

    it.each(cases.invalid.map((c) => [c.name, c] as const))("invalid: %s", (_name, c) => {
      const findings = lintCase(c);
      expectLoaded(findings);
      const mine = findings.filter((f) => f.rule === ruleId);
      expect(mine.map((f) => `${f.file}:${f.line}:${f.column} ${f.message}`)).toHaveLength(c.findings.length);
      for (const [i, want] of c.findings.entries()) {
        const got = mine[i];
        expect({ file: got.file, line: got.line, column: got.column }, got.message).toEqual({ file: want.file ?? "registry.yaml", line: want.line, column: want.column });
        if (typeof want.message === "string") expect(got.message).toContain(want.message);
        else expect(got.message).toMatch(want.message);
        expect(got.severity).toBe(meta?.severity);
        if (want.related) {
          expect((got.related ?? []).map((r) => ({ file: r.file, line: r.line, column: r.column }))).toEqual(
            want.related.map((r) => ({ file: r.file ?? "registry.yaml", line: r.line, column: r.column })),
          );
        }
      }
    });
  });
}
