/**
 * The GitHub Action's entry point (scripts/action.mjs, run by action.yml) as a runner runs
 * it: a pull request's repository with its base commit and head commit, the GITHUB_*
 * variables and INPUT_* values a runner sets, and the files it hands over (event payload,
 * job summary, step outputs).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { editedProject, projectFiles, type ProjectData } from "./helpers/change-project.js";
import { REPO, tempProject } from "./helpers/cli.js";

const ENTRY = join(REPO, "scripts/action.mjs");

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync("git", args, { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout.trim();
}

function commit(dir: string, p: ProjectData, message: string): string {
  for (const [path, text] of Object.entries(projectFiles(p))) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", message);
  return git(dir, "rev-parse", "HEAD");
}

/** The shared base project, made lint-clean: a retried unknown side effect has a queue, and every verdict an example. */
const EXAMPLE_KINDS: Record<string, string> = { timeout: "timeout", conflict: "409_conflict", unknown_error: "unrecognised" };
const project = (edit: (p: ProjectData) => void = () => {}) =>
  editedProject((p) => {
    p.playbook.on_unknown_side_effect = { queue: "oncall" };
    for (const v of p.registry.verdicts) v.examples = [{ kind: EXAMPLE_KINDS[String(v.code)] }];
    edit(p);
  });

/** A repository with the base project on main and `head` committed on a feature branch. */
function pullRequest(head: (p: ProjectData) => void): { dir: string; base: string } {
  const dir = tempProject({});
  git(dir, "init", "-q", "-b", "main");
  git(dir, "config", "user.name", "failbook test");
  git(dir, "config", "user.email", "test@failbook.invalid");
  git(dir, "config", "commit.gpgsign", "false");
  const base = commit(dir, project(), "baseline");
  git(dir, "checkout", "-q", "-b", "feature");
  commit(dir, project(head), "the change under review");
  return { dir, base };
}

/** The head commit removes a code (breaking) and turns the timeout's retry into a failure (a behaviour change). */
const breaking = (p: ProjectData) => {
  p.registry.verdicts.splice(1, 1);
  delete p.playbook.verdicts.conflict;
  p.playbook.verdicts.timeout = { action: "fail", message: "give up at once" };
};

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  summary: string;
  outputs: Record<string, string>;
}

function runAction(dir: string, options: { inputs?: Record<string, string>; event?: object; baseRef?: string; eventName?: string } = {}): Run {
  const runner = tempProject({});
  const eventPath = join(runner, "event.json");
  const summaryPath = join(runner, "summary.md");
  const outputPath = join(runner, "output.txt");
  writeFileSync(eventPath, JSON.stringify(options.event ?? {}));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_WORKSPACE: dir,
    GITHUB_EVENT_NAME: options.eventName ?? "pull_request",
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_STEP_SUMMARY: summaryPath,
    GITHUB_OUTPUT: outputPath,
    GITHUB_BASE_REF: options.baseRef ?? "",
    GITHUB_HEAD_REF: "feature",
  };
  for (const [name, value] of Object.entries(options.inputs ?? {})) env[`INPUT_${name.toUpperCase().replace(/-/g, "_")}`] = value;
  // The runner starts the step elsewhere: the entry point must work from GITHUB_WORKSPACE.
  const r = spawnSync(process.execPath, [ENTRY], { cwd: runner, env, encoding: "utf8" });
  const read = (path: string) => (existsSync(path) ? readFileSync(path, "utf8") : "");
  const outputs = Object.fromEntries(read(outputPath).split("\n").filter(Boolean).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, summary: read(summaryPath), outputs };
}

const prEvent = (base: string) => ({ pull_request: { number: 7, base: { ref: "main", sha: base }, head: { ref: "feature" } } });

describe("the GitHub Action", () => {
  it("annotates a breaking pull request, writes SARIF and the behaviour diff, and fails the step", () => {
    const { dir, base } = pullRequest(breaking);
    const r = runAction(dir, { event: prEvent(base), baseRef: "main" });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(1);

    // Annotations: workflow commands on stdout, at the registry's file and line.
    expect(r.stdout).toMatch(/^::error file=playbooks\/registry\.yaml,line=\d+,col=\d+,title=change\/code-removed::.*'conflict'/m);
    expect(r.stdout).toMatch(/^::error [^\n]*title=change\/revision-not-bumped::/m);
    expect(r.stdout).toMatch(/^::notice [^\n]*title=change\/outcome-changed::.*timeout-recovers/m);

    // SARIF at the default path, named in the step's outputs.
    expect(r.outputs.sarif).toBe("failbook.sarif");
    const sarif = JSON.parse(readFileSync(join(dir, "failbook.sarif"), "utf8"));
    expect(sarif.version).toBe("2.1.0");
    const ruleIds = sarif.runs[0].results.map((x: { ruleId: string }) => x.ruleId);
    expect(ruleIds).toEqual(expect.arrayContaining(["change/code-removed", "change/revision-not-bumped", "change/outcome-changed"]));
    expect(r.outputs.errors).toBe("2");
    expect(r.outputs.against).toBe(`git:${base}`);

    // The job summary: the lint counts and `failbook diff --format md` against the base.
    expect(r.summary).toContain("## failbook");
    expect(r.summary).toContain(`**Lint against \`git:${base}\`:** 2 errors, 1 warning, 2 notes (fail-on: error)`);
    expect(r.summary).toContain(`### failbook: changes from \`git:${base}\``);
    expect(r.summary).toContain("| timeout-recovers | recovered (verdict timeout, 2 attempts, 140 ms) | failed (verdict timeout, 1 attempt, 30 ms) |");
    expect(r.summary).toContain("2 breaking changes.");
  });

  it("the summary holds exactly what failbook diff prints", () => {
    const { dir, base } = pullRequest(breaking);
    const r = runAction(dir, { event: prEvent(base) });
    const diff = spawnSync(process.execPath, [join(REPO, "bin/failbook.js"), "diff", `git:${base}`, "--format", "md"], { cwd: dir, encoding: "utf8", env: { PATH: process.env.PATH ?? "", NO_COLOR: "1" } });
    expect(r.summary).toContain(diff.stdout.trimEnd());
  });

  it.each([
    ["never", 0],
    ["error", 1],
  ])("with fail-on: %s exits %i", (failOn, code) => {
    const { dir, base } = pullRequest(breaking);
    expect(runAction(dir, { event: prEvent(base), inputs: { "fail-on": failOn } }).code).toBe(code);
  });

  it("passes a pull request that changes no behaviour, and fails one with a warning under fail-on: warning", () => {
    const docsOnly = (p: ProjectData) => {
      p.registry.revision = 2;
      p.registry.verdicts[0].summary = "The upstream was slow.";
    };
    const { dir, base } = pullRequest(docsOnly);
    const clean = runAction(dir, { event: prEvent(base) });
    expect(clean.code).toBe(0);
    expect(clean.stdout).not.toMatch(/^::error/m);
    expect(clean.summary).toContain("0 errors, 0 warnings, 0 notes");
    expect(clean.summary).toContain("0 breaking changes.");

    const undocumented = pullRequest((p) => {
      docsOnly(p);
      delete p.registry.verdicts[0].summary;
    });
    const strict = runAction(undocumented.dir, { event: prEvent(undocumented.base), inputs: { "fail-on": "warning" } });
    expect(strict.stdout).toMatch(/^::warning [^\n]*title=docs-missing::/m);
    expect(strict.code).toBe(1);
  });

  it("finds the base from GITHUB_BASE_REF when the event has no base commit, and honours config, against and sarif inputs", () => {
    const { dir } = pullRequest(breaking);
    const byRef = runAction(dir, { baseRef: "main" });
    expect(byRef.outputs.against).toBe("git:main");
    expect(byRef.code).toBe(1);

    const explicit = runAction(dir, { inputs: { config: "failbook.yaml", against: "git:feature", sarif: "reports/failbook.sarif" } });
    expect(explicit.code).toBe(0);
    expect(explicit.outputs.sarif).toBe("reports/failbook.sarif");
    // Against itself nothing changed; the one result is the head's own note: the timeout, still retryable, now fails at once.
    const results = JSON.parse(readFileSync(join(dir, "reports/failbook.sarif"), "utf8")).runs[0].results as { ruleId: string; level: string }[];
    expect(results.map((r) => [r.ruleId, r.level])).toEqual([["retryable-not-retried", "note"]]);
    expect(explicit.summary).toContain("### failbook: changes from `git:feature` to `working tree`\n\nNo changes.");
  });

  it("outside a pull request lints without a baseline and says there is no diff", () => {
    const { dir } = pullRequest(breaking);
    const r = runAction(dir, { eventName: "push", event: { ref: "refs/heads/feature" } });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("change/");
    expect(r.summary).toContain("No behaviour diff: this run is not for a pull request");
  });

  it.each([
    ["a fail-on value it does not know", { inputs: { "fail-on": "sometimes" } }, "input fail-on must be one of error, warning, info, never, not 'sometimes'"],
    [
      "a base commit missing from a shallow clone",
      { event: { pull_request: { base: { ref: "release", sha: "0123456789abcdef0123456789abcdef01234567" } } } },
      "the pull request's base (0123456789abcdef0123456789abcdef01234567) is not in this clone; check out with fetch-depth: 0",
    ],
    ["a config that does not exist", { inputs: { config: "nope/failbook.yaml" } }, "failbook lint could not run: failbook: "],
  ])("stops with exit 2 and one error annotation on %s", (_, options, message) => {
    const { dir } = pullRequest(breaking);
    const r = runAction(dir, options);
    expect(r.code).toBe(2);
    const errors = r.stdout.split("\n").filter((l) => l.startsWith("::error"));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^::error title=failbook::/);
    expect(errors[0]).toContain(message);
  });
});

describe("action.yml", () => {
  it("is shown in docs/github-action.md as a workflow that uploads the SARIF file", () => {
    const readme = readFileSync(join(REPO, "docs/github-action.md"), "utf8");
    expect(readme).toContain("uses: github/codeql-action/upload-sarif@v3");
    expect(readme).toContain("sarif_file: ${{ steps.failbook.outputs.sarif }}");
    expect(readme).toContain("fetch-depth: 0");
  });

  const action = readFileSync(join(REPO, "action.yml"), "utf8");
  it("declares the inputs config, against and fail-on, and runs the entry point", () => {
    for (const input of ["config", "against", "fail-on", "sarif"]) expect(action).toMatch(new RegExp(`^  ${input}:$`, "m"));
    expect(action).toContain('node "$GITHUB_ACTION_PATH/scripts/action.mjs"');
    for (const input of ["config", "against", "fail-on", "sarif"]) expect(action).toContain(`INPUT_${input.toUpperCase().replace(/-/g, "_")}: \${{ inputs.${input} }}`);
  });

  it("builds only when the file the build makes is missing: the file it tests for is one the build writes", () => {
    const tested = /if \[ ! -f (\S+) \]; then npm ci/.exec(action)?.[1];
    expect(tested).toBeDefined();
    // npm test builds first: the file must be there now, or the action would install and build on every run.
    expect(existsSync(join(REPO, tested as string)), tested).toBe(true);
  });
});

describe("the GitHub Action's storms input", () => {
  const example = join(REPO, "examples/storm-retry-collapse");
  const files = ["failbook.yaml", "registry.yaml", "playbook.yaml", "fixtures/gateway-timeout.yaml", "storms/spike.yaml"];

  it("writes failbook storm --against the pull request's base to the job summary, and fails the step when a verdict got worse", () => {
    const dir = tempProject(Object.fromEntries(files.map((f) => [f, readFileSync(join(example, f), "utf8")])));
    git(dir, "init", "-q", "-b", "main");
    git(dir, "config", "user.name", "failbook test");
    git(dir, "config", "user.email", "test@failbook.invalid");
    git(dir, "config", "commit.gpgsign", "false");
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "-m", "the fixed playbook");
    const base = git(dir, "rev-parse", "HEAD");
    git(dir, "checkout", "-q", "-b", "feature");
    // The change under review drops the backoff and the quota.
    writeFileSync(join(dir, "playbook.yaml"), readFileSync(join(example, "naive/playbook.yaml"), "utf8"));
    git(dir, "commit", "-q", "-am", "retry at once");
    const r = runAction(dir, { event: prEvent(base), inputs: { storms: "true" } });
    expect(r.summary).toContain(`### failbook: storms against \`git:${base}\``);
    expect(r.summary).toContain("**An expect check failed, or a verdict got worse than the baseline's.**");
    expect(r.summary).toMatch(/verdict\s+metastable\s+recovered \(\d+ ms\)\s+◀ regression/);
    expect(r.code).toBe(1);
    // Without the input, the storms are not run.
    expect(runAction(dir, { event: prEvent(base) }).summary).not.toContain("storms against");
  }, 120_000);
});
