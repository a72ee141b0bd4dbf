import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { failbook, tempProject } from "./helpers/cli.js";
import { editedProject, projectFiles, type ProjectData } from "./helpers/change-project.js";

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync("git", args, { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout;
}

function writeProject(dir: string, p: ProjectData, under = ""): void {
  for (const [path, text] of Object.entries(projectFiles(p, under))) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

/** A repository whose one commit holds the base project (under `under`, e.g. "svc/"). */
function repository(under = ""): string {
  const dir = tempProject({});
  git(dir, "init", "-q");
  git(dir, "config", "user.name", "failbook test");
  git(dir, "config", "user.email", "test@failbook.invalid");
  git(dir, "config", "commit.gpgsign", "false");
  writeProject(dir, editedProject(), under);
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "baseline");
  return dir;
}

const removeConflict = (p: ProjectData) => void p.registry.verdicts.splice(1, 1);

describe("lint --against git:REV", () => {
  it("reports a code removed since the commit, at the current registry, naming where it stood at HEAD", () => {
    const dir = repository();
    writeProject(dir, editedProject(removeConflict));
    const r = failbook(["lint", "--against", "git:HEAD", "--format", "json"], { cwd: dir });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { findings: { rule: string; file: string; message: string; related?: { file: string; line: number }[] }[] };
    const removed = out.findings.filter((f) => f.rule === "change/code-removed");
    expect(removed).toHaveLength(1);
    expect(removed[0]).toMatchObject({ file: "playbooks/registry.yaml", message: expect.stringContaining("'conflict'") });
    expect(removed[0].related?.[0].file).toBe("HEAD:playbooks/registry.yaml");
    expect(out.findings.map((f) => f.rule)).toContain("change/revision-not-bumped");
  });

  it("is clean against the commit when nothing changed", () => {
    const dir = repository();
    const r = failbook(["lint", "--against", "git:HEAD"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("change/");
  });

  it("reads the config at its path relative to the repository root, and the fixture directories at the revision", () => {
    const dir = repository("svc/");
    // The fixture is removed from the working tree only: the changelog must find it at HEAD.
    rmSync(join(dir, "svc/playbooks/fixtures/timeout-recovers.yaml"));
    const r = failbook(["diff", "git:HEAD", "--format", "json"], { cwd: join(dir, "svc") });
    expect(r.stderr).toBe("");
    const out = JSON.parse(r.stdout) as { changes: { subject: string; change: string; name: string; file: string }[] };
    expect(out.changes).toContainEqual(expect.objectContaining({ subject: "fixture", change: "removed", name: "timeout-recovers", file: "HEAD:svc/playbooks/fixtures/timeout-recovers.yaml" }));
  });

  it("prints each change finding as a GitHub annotation", () => {
    const dir = repository();
    writeProject(dir, editedProject(removeConflict));
    const r = failbook(["lint", "--against", "git:HEAD", "--format", "github"], { cwd: dir });
    expect(r.stdout).toMatch(/^::error file=playbooks\/registry\.yaml,line=\d+,col=\d+,title=change\/code-removed::/m);
  });

  it.each([
    { ref: "git:no-such-branch", says: "git fetch origin no-such-branch" },
    { ref: "git:origin/main", says: "git fetch origin main" },
    { ref: "git:HEAD~5", says: "git revision 'HEAD~5' not found", saysNot: "git fetch" },
    { ref: "git:main^^^", says: "counts back more commits than this history holds", saysNot: "git fetch" },
    { ref: "git:$(touch pwned)", says: "name a branch, tag or commit of this repository", saysNot: "git fetch" },
    { ref: "git:a;touch${IFS}x", says: "name a branch, tag or commit", saysNot: "git fetch" },
    { ref: "git:", says: "needs a revision" },
    { ref: "./no-such-dir", says: "no such file or directory" },
  ])("exits 2 with one line for the baseline $ref", ({ ref, says, saysNot }: { ref: string; says: string; saysNot?: string }) => {
    const dir = repository();
    const r = failbook(["lint", "--against", ref], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(says);
    if (saysNot !== undefined) expect(r.stderr).not.toContain(saysNot);
    expect(existsSync(join(dir, "pwned"))).toBe(false);
  });

  it("tells a shallow clone how to fetch the history", () => {
    const origin = repository();
    writeProject(origin, editedProject(removeConflict));
    git(origin, "commit", "-q", "-am", "second");
    const clone = tempProject({});
    git(clone, "clone", "-q", "--depth", "1", `file://${origin}`, "repo");
    const r = failbook(["lint", "--against", "git:HEAD~1"], { cwd: join(clone, "repo") });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("shallow clone");
    expect(r.stderr).toContain("fetch-depth: 0");
  });

  it("says when the directory is not in a git repository", () => {
    const dir = tempProject(projectFiles(editedProject()));
    const r = failbook(["lint", "--against", "git:HEAD"], { cwd: dir, env: { GIT_CEILING_DIRECTORIES: dirname(dir) } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("not inside one");
  });
});
