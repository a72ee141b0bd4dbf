/**
 * failbook as a team adds it to its own repository: `npm pack`, then in a fresh project
 * outside this one `npm install -D ./failbook-x.y.z.tgz` (and from a git URL), then the
 * commands of the README's "Add failbook to your repository" and the library's types under
 * `tsc --strict`. One install is shared by the cases; the npm registry is reachable (the
 * dependencies come from it, from the local cache when they are there).
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO } from "./helpers/cli.js";

const INSTALL_TIMEOUT = 300_000;
/** Each case runs npm and npx several times: on a busy machine that is well over vitest's default. */
const CASE_TIMEOUT = 180_000;
const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string; devDependencies: Record<string, string> };

/** The environment of a user's shell: none of the npm_* variables that `npm test` sets for this package. */
const env = (): NodeJS.ProcessEnv => {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && k !== "INIT_CWD") out[k] = v;
  return { ...out, NO_COLOR: "1", CI: "1" };
};

function sh(command: string, args: string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, env: env(), encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
}

/** Run and insist on exit 0, showing what was printed when not. */
function ok(command: string, args: string[], cwd: string): string {
  const r = sh(command, args, cwd);
  if (r.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${r.status}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

const NPM_QUIET = ["--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"];

/** A fresh ESM project, as `npm init -y` makes it. */
function freshProject(parent: string, name: string): string {
  const dir = join(parent, name);
  mkdirSync(dir);
  ok("npm", ["init", "-y"], dir);
  ok("npm", ["pkg", "set", "type=module"], dir);
  return dir;
}

const work = mkdtempSync(join(tmpdir(), "failbook-install-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("npm pack, then npm install -D the tarball in a fresh project", { timeout: CASE_TIMEOUT }, () => {
  let tarball = "";
  let packed: string[] = [];
  let project = "";

  beforeAll(() => {
    // `npm test` has just built dist/; --ignore-scripts packs that build rather than making another.
    const out = ok("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], REPO);
    const [info] = JSON.parse(out) as { filename: string; files: { path: string }[] }[];
    tarball = join(work, info!.filename);
    packed = info!.files.map((f) => f.path);
    project = freshProject(work, "team-repo");
    ok("npm", ["install", "-D", tarball, `typescript@${pkg.devDependencies.typescript}`, "@types/node@20", ...NPM_QUIET], project);
  }, INSTALL_TIMEOUT);

  it("ships the CLI, the library, the schemas and the starter, and no tests, sources or bench output", () => {
    expect(packed).toContain("bin/failbook.js");
    expect(packed).toContain("dist/index.js");
    expect(packed).toContain("dist/index.d.ts");
    expect(packed).toContain("schemas/registry.schema.json");
    expect(packed).toContain("playbooks/registry.yaml");
    expect(packed.filter((f) => f.startsWith("docs/adr/")).length).toBeGreaterThan(0);
    for (const f of packed) expect(f).not.toMatch(/^(test|src|scripts|examples|\.bench|node_modules|test-results)\//);
  });

  it("runs init, lint, simulate and gen ts through npx, and gen ts --check finds the file current", () => {
    expect(ok("npx", ["failbook", "--version"], project).trim()).toBe(pkg.version);
    expect(ok("npx", ["failbook", "init", "."], project)).toContain("playbooks/registry.yaml");
    expect(ok("npx", ["failbook", "lint"], project)).toContain("no problems found");
    expect(ok("npx", ["failbook", "simulate"], project)).toContain("1 passed, 0 failed");
    expect(ok("npx", ["failbook", "gen", "ts"], project)).toContain("wrote src/generated/failbook.ts");
    ok("npx", ["failbook", "gen", "ts", "--check"], project);
  });

  it("runs the failbook:check script the README tells a team to add", () => {
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    const script = /^\s*"failbook:check": "([^"]+)"/m.exec(readme)?.[1];
    expect(script).toBe("failbook lint && failbook simulate && failbook storm && failbook gen ts --check");
    ok("npm", ["pkg", "set", `scripts.failbook:check=${script}`], project);
    if (!existsSync(join(project, "src/generated/failbook.ts"))) ok("npx", ["failbook", "gen", "ts"], project);
    ok("npm", ["run", "failbook:check", "--silent"], project);
    // A stale generated file fails the check.
    writeFileSync(join(project, "src/generated/failbook.ts"), "// stale\n");
    expect(sh("npm", ["run", "failbook:check", "--silent"], project).status).not.toBe(0);
    ok("npx", ["failbook", "gen", "ts"], project);
  });

  it("imports the library from the installed package", () => {
    const script = "import { classify, loadProject } from 'failbook'; const { project } = loadProject(); console.log(classify(project.registry.value, { kind: 'timeout' }).verdict);";
    if (!existsSync(join(project, "failbook.yaml"))) ok("npx", ["failbook", "init", "."], project);
    expect(ok(process.execPath, ["--input-type=module", "-e", script], project).trim()).toBe("transient_timeout");
  });

  it("type-checks the library and the generated bindings under tsc --strict", () => {
    if (!existsSync(join(project, "src/generated/failbook.ts"))) {
      ok("npx", ["failbook", "init", ".", "--force"], project);
      ok("npx", ["failbook", "gen", "ts"], project);
    }
    writeFileSync(
      join(project, "src/adapter.ts"),
      `import { classify, createDispatcher, createRedactor, loadProject, seededRandom, VirtualClock, type Outcome } from "failbook";
import { classify as classifyHere, PLAYBOOK, envelopeFor, type FailureVerdict } from "./generated/failbook.js";

const { project } = loadProject();
const registry = project.registry!.value;
const playbook = project.playbook!.value;
const verdict: FailureVerdict = classifyHere({ kind: "timeout" });
const action: string = PLAYBOOK[verdict].action;
const library: string = classify(registry, { kind: "timeout" }, undefined).verdict;
const dispatcher = createDispatcher({ registry, playbook, clock: new VirtualClock(), random: seededRandom(1) });
export async function run(): Promise<Outcome> {
  const { outcome } = await dispatcher.dispatch({ id: "c1", tool: "t" }, async () => ({ status: "ok", value: 1 }), { runId: "r" });
  return outcome;
}
export const shown = [verdict, action, library, createRedactor()("token=abc"), envelopeFor(verdict, {}).code];
`,
    );
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, skipLibCheck: false }, include: ["src"] }),
    );
    // tsc itself, not through npx: npm's own warnings about the user's config are not tsc's.
    const r = sh(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "."], project);
    expect(r.stdout + r.stderr).toBe("");
    expect(r.status).toBe(0);
  });
});

describe("npm install -D from a git URL", { timeout: CASE_TIMEOUT }, () => {
  let project = "";

  beforeAll(() => {
    // A commit of this working tree (tracked and new files, as they are now) in a repository
    // of its own: npm clones it, installs its devDependencies, and `prepare` builds dist/.
    const source = join(work, "failbook-git");
    const listed = ok("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], REPO).split("\0").filter((f) => f !== "");
    for (const f of listed) {
      if (!existsSync(join(REPO, f))) continue; // deleted in the working tree
      mkdirSync(dirname(join(source, f)), { recursive: true });
      copyFileSync(join(REPO, f), join(source, f));
    }
    ok("git", ["init", "-q"], source);
    ok("git", ["add", "-A"], source);
    ok("git", ["-c", "user.name=failbook-test", "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "snapshot"], source);
    project = freshProject(work, "team-repo-git");
    ok("npm", ["install", "-D", `git+file://${source}`, ...NPM_QUIET], project);
  }, INSTALL_TIMEOUT);

  it("builds on install and runs init and lint", () => {
    expect(existsSync(join(project, "node_modules/failbook/dist/index.js"))).toBe(true);
    expect(existsSync(join(project, "node_modules/failbook/test"))).toBe(false);
    expect(ok("npx", ["failbook", "--version"], project).trim()).toBe(pkg.version);
    ok("npx", ["failbook", "init", ".", "--adr"], project);
    expect(ok("npx", ["failbook", "lint"], project)).toContain("no problems found");
    expect(ok("npx", ["failbook", "simulate"], project)).toContain("1 passed, 0 failed");
  });
});
