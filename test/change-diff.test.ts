import { describe, expect, it } from "vitest";
import { failbook, tempProject } from "./helpers/cli.js";
import { editedProject, projectFiles, verdict, type ProjectData } from "./helpers/change-project.js";

/** Two project directories: the base project and an edit of it. */
function pair(edit: (p: ProjectData) => void): { old: string; now: string } {
  return { old: tempProject(projectFiles(editedProject())), now: tempProject(projectFiles(editedProject(edit))) };
}

/** Timeouts escalate instead of being retried: the fixture that recovered now escalates. No rule breaks. */
const escalateTimeouts = (p: ProjectData) => {
  p.playbook.verdicts.timeout = { action: "escalate_to_human", queue: "oncall" };
};

interface DiffJson {
  old: string;
  new: string;
  breaking: number;
  findings: { rule: string; severity: string; file: string }[];
  outcomes: { fixture: string; file: string; before: { outcome?: Record<string, unknown>; error?: string }; after: { outcome?: Record<string, unknown>; error?: string } }[];
  changes: { subject: string; change: string; name: string; details: string[] }[];
}

describe("failbook diff", () => {
  it("documents baselines, formats and exit codes in --help, and lint documents --against", () => {
    const diff = failbook(["diff", "--help"]);
    expect(diff.code).toBe(0);
    for (const word of ["git:REV", "--format", "md", "json", "Exit status", "breaking"]) expect(diff.stdout).toContain(word);
    const lint = failbook(["lint", "--help"]);
    for (const word of ["--against", "git:REV", "fetch-depth: 0"]) expect(lint.stdout).toContain(word);
  });

  it("lists a fixture whose outcome changes, with before and after", () => {
    const { old, now } = pair(escalateTimeouts);
    const r = failbook(["diff", old, now, "--format", "json"], { cwd: now });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as DiffJson;
    expect(out.outcomes).toEqual([
      {
        fixture: "timeout-recovers",
        file: "playbooks/fixtures/timeout-recovers.yaml",
        before: { outcome: { kind: "recovered", verdict: "timeout", attempts: 2, elapsed_ms: 140 } },
        after: { outcome: { kind: "escalated", verdict: "timeout", attempts: 1, elapsed_ms: 30 } },
      },
    ]);
    expect(out.findings).toContainEqual(expect.objectContaining({ rule: "change/outcome-changed", severity: "info", file: "playbooks/fixtures/timeout-recovers.yaml" }));
    expect(out.changes).toContainEqual(expect.objectContaining({ subject: "action", change: "changed", name: "timeout", details: ["retry_with_backoff → escalate_to_human"] }));
  });

  it.each([
    { format: "text", before: "before: recovered", after: "after:  escalated" },
    { format: "md", before: "| timeout-recovers | recovered", after: "| escalated" },
  ])("shows the outcome change in $format", ({ format, before, after }) => {
    const { old, now } = pair(escalateTimeouts);
    const r = failbook(["diff", old, now, "--format", format], { cwd: now });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("timeout-recovers");
    expect(r.stdout).toContain(before);
    expect(r.stdout).toContain(after);
  });

  it("puts breaking changes first and exits 1", () => {
    const { old, now } = pair((p) => {
      escalateTimeouts(p);
      verdict(p, "conflict").retryable = true;
      p.registry.revision = 2;
    });
    const r = failbook(["diff", old, now, "--format", "json"], { cwd: now });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as DiffJson;
    expect(out.breaking).toBe(1);
    expect(out.findings[0]).toMatchObject({ rule: "change/retryable-loosened", severity: "error" });
    expect(out.findings.slice(1).every((f) => f.severity !== "error")).toBe(true);

    const text = failbook(["diff", old, now], { cwd: now }).stdout;
    expect(text.indexOf("Breaking (1)")).toBeGreaterThanOrEqual(0);
    expect(text.indexOf("Breaking (1)")).toBeLessThan(text.indexOf("Behaviour"));
    expect(text.indexOf("Behaviour")).toBeLessThan(text.indexOf("Changes ("));
  });

  it("compares with the current project when NEW is left out", () => {
    const { old, now } = pair(escalateTimeouts);
    const r = failbook(["diff", old, "--format", "json"], { cwd: now });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as DiffJson;
    expect(out.new).toBe("working tree");
    expect(out.outcomes.map((o) => o.fixture)).toEqual(["timeout-recovers"]);
  });

  it("reports no changes between a project and itself", () => {
    const { old } = pair(() => {});
    const r = failbook(["diff", old, old], { cwd: old });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("no changes");
  });

  it.each([
    { args: ["diff"], what: "no OLD" },
    { args: ["diff", "./missing"], what: "a missing baseline" },
    { args: ["diff", ".", "--format", "html"], what: "an unknown format" },
  ])("exits 2 on $what", ({ args }) => {
    const { now } = pair(() => {});
    const r = failbook(args, { cwd: now });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
  });
});
