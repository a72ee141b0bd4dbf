/**
 * SPEC 16, only the project's files are read: config paths stay inside the repository
 * (symlinks included), only regular files up to max_file_mb, and every refusal is one usage
 * line at the config position that echoes nothing of the file.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { failbook } from "../helpers/cli.js";
import { adversarialProject, FIXTURE } from "./project.js";

const SECRET = "AWS_SECRET_ACCESS_KEY_LINE_1_do_not_print";

/** A file outside any project, holding something that must never be printed. */
function elsewhere(): string {
  const dir = mkdtempSync(join(tmpdir(), "failbook-elsewhere-"));
  writeFileSync(join(dir, "credentials"), `${SECRET}\nsecond line\n`);
  return join(dir, "credentials");
}

/** Exit 2, one line on stderr, nothing on stdout, and the outside file's content nowhere. */
function refused(r: { code: number; stdout: string; stderr: string }, pattern: RegExp): void {
  expect(r.code).toBe(2);
  expect(r.stdout).toBe("");
  expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(r.stderr).toMatch(pattern);
  expect(r.stderr + r.stdout).not.toContain(SECRET);
  expect(r.stderr).not.toContain("internal error");
}

describe("config paths stay inside the repository", () => {
  it.each(["lint", "simulate", "explain timeout", "render", "gen ts --check"])("a registry path that leaves the repository (../x) is refused by %s", (command) => {
    const outside = elsewhere();
    const dir = adversarialProject({}, "");
    writeFileSync(join(dir, "failbook.yaml"), `registry: ${join("..", join(outside, "..").split("/").pop()!, "credentials")}\nplaybook: playbook.yaml\n`);
    refused(failbook(command.split(" "), { cwd: dir }), /^failbook: failbook\.yaml:1:11: registry '\.\.\/failbook-elsewhere-\w+\/credentials' resolves outside the repository \(.*\); failbook reads only the project's own files: move the file into the repository or correct the path\n$/);
  });

  it("a symlink inside the repository that points outside is refused (registry, fixture file, fixtures directory)", () => {
    const outside = elsewhere();
    const dir = adversarialProject();
    symlinkSync(outside, join(dir, "linked-registry.yaml"));
    writeFileSync(join(dir, "failbook.yaml"), "registry: linked-registry.yaml\nplaybook: playbook.yaml\n");
    refused(failbook(["lint"], { cwd: dir }), /^failbook: failbook\.yaml:1:11: registry 'linked-registry\.yaml' resolves outside the repository/);

    // A link found by walking the fixtures directory is checked too, at the config's fixtures entry.
    writeFileSync(join(dir, "failbook.yaml"), "registry: registry.yaml\nplaybook: playbook.yaml\nfixtures: [fixtures]\n");
    symlinkSync(outside, join(dir, "fixtures", "stolen.yaml"));
    refused(failbook(["simulate"], { cwd: dir }), /^failbook: failbook\.yaml:3:12: fixture file 'fixtures\/stolen\.yaml' resolves outside the repository/);
    rmSync(join(dir, "fixtures", "stolen.yaml"));

    symlinkSync(join(outside, ".."), join(dir, "linked-dir"));
    writeFileSync(join(dir, "failbook.yaml"), "registry: registry.yaml\nplaybook: playbook.yaml\nfixtures: [linked-dir]\n");
    refused(failbook(["lint"], { cwd: dir }), /^failbook: failbook\.yaml:3:12: fixtures path 'linked-dir' resolves outside the repository/);
  });

  it("adr_dir and gen.ts are config paths too", () => {
    const dir = adversarialProject({}, "adr_dir: ../../etc\n");
    refused(failbook(["lint"], { cwd: dir }), /^failbook: failbook\.yaml:4:10: adr_dir '\.\.\/\.\.\/etc' resolves outside the repository/);
    writeFileSync(join(dir, "failbook.yaml"), "registry: registry.yaml\nplaybook: playbook.yaml\ngen:\n  ts: ../../tmp/evil.ts\n");
    refused(failbook(["gen", "ts"], { cwd: dir }), /^failbook: failbook\.yaml:4:7: gen\.ts '\.\.\/\.\.\/tmp\/evil\.ts' resolves outside the repository/);
    writeFileSync(join(dir, "failbook.yaml"), "registry: registry.yaml\nplaybook: playbook.yaml\ngen:\n  py: ../../tmp/evil.py\n  jsonschema: ../evil.json\n");
    refused(failbook(["gen", "py"], { cwd: dir }), /^failbook: failbook\.yaml:4:7: gen\.py '\.\.\/\.\.\/tmp\/evil\.py' resolves outside the repository/);
  });

  it("the repository is the git top level: a config in a subfolder may name files beside it in the repository", () => {
    const dir = adversarialProject();
    mkdirSync(join(dir, "config"));
    writeFileSync(join(dir, "config", "failbook.yaml"), "registry: ../registry.yaml\nplaybook: ../playbook.yaml\nfixtures: [../fixtures]\n");
    const r = failbook(["--config", "config/failbook.yaml", "lint"], { cwd: dir });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });

  it("a fixture path on the command line is the user's own choice and may lie anywhere", () => {
    const other = mkdtempSync(join(tmpdir(), "failbook-cli-fixture-"));
    writeFileSync(join(other, "f.yaml"), FIXTURE);
    const r = failbook(["simulate", join(other, "f.yaml")], { cwd: adversarialProject() });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("slow-then-ok");
  });

  it("a git:REV baseline reads its config's paths under the same rule", () => {
    const dir = adversarialProject();
    rmSync(join(dir, ".git"), { recursive: true });
    const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } });
    git("init", "-q");
    writeFileSync(join(dir, "failbook.yaml"), "registry: ../outside/registry.yaml\nplaybook: playbook.yaml\n");
    git("add", ".");
    git("commit", "-q", "-m", "baseline");
    writeFileSync(join(dir, "failbook.yaml"), "registry: registry.yaml\nplaybook: playbook.yaml\n");
    const r = failbook(["lint", "--against", "git:HEAD"], { cwd: dir });
    refused(r, /^failbook: cannot compare with git:HEAD: its config is invalid|resolves outside the repository/);
    expect(r.stderr).toMatch(/HEAD:failbook\.yaml:1:11: registry '\.\.\/outside\/registry\.yaml' resolves outside the repository/);
  });
});

describe("only regular files, up to max_file_mb", () => {
  it("a fixture that is a FIFO is refused at once, not waited on", () => {
    const dir = adversarialProject();
    spawnSync("mkfifo", [join(dir, "fixtures", "pipe.yaml")]);
    const started = Date.now();
    refused(failbook(["simulate"], { cwd: dir }), /^failbook: failbook\.yaml:3:12: fixture file fixtures\/pipe\.yaml is a FIFO \(named pipe\), not a regular file; failbook reads and writes only regular files: replace it with one, or name another path\n$/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("a device named as the registry is refused", () => {
    const dir = adversarialProject();
    symlinkSync("/dev/zero", join(dir, "zero.yaml"));
    writeFileSync(join(dir, "failbook.yaml"), "registry: zero.yaml\nplaybook: playbook.yaml\n");
    // The link leaves the repository, and that is said first; a device inside it would be "not a regular file".
    refused(failbook(["lint"], { cwd: dir }), /^failbook: failbook\.yaml:1:11: registry 'zero\.yaml' resolves outside the repository/);
  });

  it("a file over max_file_mb is refused, naming the limit and how to raise it", () => {
    const dir = adversarialProject({ "fixtures/big.yaml": `# ${"x".repeat(1024 * 1024)}\n${FIXTURE.replace("slow-then-ok", "big")}` }, "max_file_mb: 1\n");
    refused(failbook(["lint"], { cwd: dir }), /^failbook: failbook\.yaml:3:12: fixture file fixtures\/big\.yaml is larger than 1 MB \(max_file_mb\); raise max_file_mb in failbook\.yaml if it really belongs to the project\n$/);
    writeFileSync(join(dir, "failbook.yaml"), "registry: registry.yaml\nplaybook: playbook.yaml\nfixtures: [fixtures]\nmax_file_mb: 2\n");
    expect(failbook(["lint"], { cwd: dir }).code).toBe(0);
  });

  it("max_file_mb is checked by the schema", () => {
    const r = failbook(["lint"], { cwd: adversarialProject({}, "max_file_mb: 100000\n") });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/failbook\.yaml:4:14 error 'max_file_mb' must be <= 512, not 100000 .*\[schema\]/);
  });

  it("a project file that is not UTF-8 is refused with the position of its first bad byte", () => {
    const dir = adversarialProject();
    writeFileSync(join(dir, "fixtures", "latin1.yaml"), Buffer.concat([Buffer.from(FIXTURE.replace("slow-then-ok", "latin1")), Buffer.from("# caf\xe9\n", "latin1")]));
    refused(failbook(["lint"], { cwd: dir }), /^failbook: fixtures\/latin1\.yaml:8:6: not valid UTF-8 \(byte 0xE9\); failbook reads and rewrites UTF-8 only: convert the file to UTF-8/);
  });
});
