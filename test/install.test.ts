/**
 * failbook as a team adds it to its own repository: `npm pack`, then in a fresh project
 * outside this one `npm install -D ./failbook-x.y.z.tgz` (and from a git URL), then the
 * commands of the README's "Add failbook to your repository" and the library's types under
 * `tsc --strict`. One install is shared by the cases; the npm registry is reachable (the
 * TypeScript those projects compile with comes from it, from the local cache when it is there).
 *
 * Then SPEC 17: failbook-runtime alone in a service's ES module and CommonJS projects
 * (installed offline from its tarball: one package, require and import, a dispatch on a
 * generated PROJECT, its types under TypeScript 5.9 and the current major with the strictest
 * settings), and failbook alone from its tarball (one package, its footprint).
 */
import { spawn, spawnSync, type SpawnSyncReturns } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bytesUnder, installedPackages } from "../scripts/bench/footprint.mjs";
import { REPO } from "./helpers/cli.js";

const INSTALL_TIMEOUT = 300_000;
/** Each case runs npm and npx several times: on a busy machine that is well over vitest's default. */
const CASE_TIMEOUT = 180_000;
const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string; devDependencies: Record<string, string> };
/** TypeScript 5.9 and the current major (`npm view typescript version`), both devDependencies of failbook. */
const COMPILERS = [
  ["TypeScript 5.9", join(REPO, "node_modules/typescript/bin/tsc")],
  ["the current TypeScript", join(REPO, "node_modules/typescript-next/bin/tsc")],
] as const;
/** SPEC 17's settings: what TypeScript 7's `tsc --init` and a careful team use. */
const STRICTEST = { target: "ES2022", lib: ["ES2022"], module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, types: [], skipLibCheck: false, exactOptionalPropertyTypes: true };

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

/** A fresh project, as `npm init -y` makes it: an ES module package unless asked for CommonJS. */
function freshProject(parent: string, name: string, type: "module" | "commonjs" = "module"): string {
  const dir = join(parent, name);
  mkdirSync(dir);
  ok("npm", ["init", "-y"], dir);
  ok("npm", ["pkg", "set", `type=${type}`], dir);
  return dir;
}

/** `npm pack` of the package in `dir` into `to`: the tarball's path and its sizes. */
function pack(dir: string, to: string): { tarball: string; size: number; unpackedSize: number; files: string[] } {
  // `npm test` has just built dist/; --ignore-scripts packs that build rather than making another.
  const [info] = JSON.parse(ok("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", to], dir)) as { filename: string; size: number; unpackedSize: number; files: { path: string }[] }[];
  return { tarball: join(to, info!.filename), size: info!.size, unpackedSize: info!.unpackedSize, files: info!.files.map((f) => f.path) };
}

/** Type-check `project` with each compiler; what each printed, which must be nothing. */
function typeCheck(project: string, compilerOptions: object): Record<string, string> {
  writeFileSync(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["src"] }));
  return Object.fromEntries(COMPILERS.map(([name, tsc]) => {
    const r = sh(process.execPath, [tsc, "-p", "."], project);
    return [name, `${r.stdout}${r.stderr}`.trim() + (r.status === 0 ? "" : ` (exit ${r.status})`)];
  }));
}

const work = mkdtempSync(join(tmpdir(), "failbook-install-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * `npm install -D git+file://...` of a commit of this working tree (tracked and new files, as
 * they are now) in a repository of its own: npm clones it, installs its devDependencies, and
 * `prepare` builds dist/. The slowest install here, so it runs in the background from the
 * start; the project's directory once it is done.
 */
const gitInstall: Promise<string> = (async () => {
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
  const project = freshProject(work, "team-repo-git");
  const args = ["install", "-D", `git+file://${source}`, ...NPM_QUIET];
  const r = await new Promise<{ status: number | null; out: string }>((done) => {
    const child = spawn("npm", args, { cwd: project, env: env() });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.on("close", (status) => done({ status, out }));
  });
  if (r.status !== 0) throw new Error(`npm ${args.join(" ")} exited ${r.status}\n${r.out}`);
  return project;
})();
// Reported by the case that awaits it; this only keeps Node from calling it unhandled meanwhile.
gitInstall.catch(() => {});

describe("npm pack, then npm install -D the tarball in a fresh project", { timeout: CASE_TIMEOUT }, () => {
  let tarball = "";
  let packed: string[] = [];
  let project = "";

  beforeAll(() => {
    ({ tarball, files: packed } = pack(REPO, work));
    project = freshProject(work, "team-repo");
    ok("npm", ["install", "-D", tarball, `typescript@${pkg.devDependencies.typescript}`, "@types/node@20", ...NPM_QUIET], project);
  }, INSTALL_TIMEOUT);

  it("ships the CLI, the library, the schemas and the starter, and no tests, sources or bench output", () => {
    expect(packed).toContain("bin/failbook.js");
    expect(packed).toContain("dist/index.js");
    expect(packed).toContain("dist/index.d.ts");
    expect(packed).toContain("dist/index.cjs");
    expect(packed).toContain("dist/index.d.cts");
    expect(packed).toContain("dist/THIRD-PARTY-NOTICES.md");
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
    // SPEC 17: the same adapter, ES module, under both TypeScript majors with the strictest settings.
    expect(typeCheck(project, STRICTEST)).toEqual({ "TypeScript 5.9": "", "the current TypeScript": "" });
  });
});

/** An adapter a service writes against failbook-runtime and its generated module, in TypeScript. */
const RUNTIME_ADAPTER = `import { createDispatcher, createRecordWriter, realClock, recordOutcome, toMcpToolResult, type AdapterError, type Call, type Outcome, type Response } from "failbook-runtime";
import { classify, PROJECT, type FailureVerdict } from "./generated/failbook.js";

// Optional properties take undefined under exactOptionalPropertyTypes, as an SDK's fields are.
function toAdapterError(e: { code?: string | undefined; status?: number | undefined; message?: string | undefined }): AdapterError {
  return { kind: e.code ?? "unknown", message: e.message, http_status: e.status, retry_after_ms: undefined };
}
const dispatcher = createDispatcher({ project: PROJECT, clock: realClock(), random: undefined, effects: { escalate: undefined } });
const records = createRecordWriter("records.jsonl");
export async function call(c: Call, send: () => Promise<unknown>): Promise<Outcome> {
  const attempt = async (): Promise<Response> => {
    try {
      return { status: "ok", value: await send() };
    } catch (e) {
      return { status: "error", error: toAdapterError(e as { code?: string; status?: number; message?: string }) };
    }
  };
  const { outcome } = await dispatcher.dispatch(c, attempt, { runId: undefined, record: records.sink });
  return outcome;
}
export const verdict: FailureVerdict = classify({ kind: "timeout" });
export const asToolResult = (o: Outcome) => toMcpToolResult(o.envelope);
export const onSpan = (span: Parameters<typeof recordOutcome>[0], o: Outcome): void => recordOutcome(span, o);
`;

/** A service that dispatches one call on the generated PROJECT with every default: prints what the run came to. */
const SERVICE_BODY = `const dispatcher = createDispatcher({ project: PROJECT });
dispatcher
  .dispatch({ id: "c1", tool: "crm.create_contact" }, (_call, n) => (n === 1 ? { status: "error", error: { kind: "timeout" } } : { status: "ok", value: 1 }), { runId: "r" })
  .then(({ outcome }) => console.log(outcome.kind, outcome.verdict, outcome.attempts));
`;
const SERVICES = {
  module: `import { createDispatcher } from "failbook-runtime";\nimport { PROJECT } from "./failbook.generated.js";\n${SERVICE_BODY}`,
  commonjs: `const { createDispatcher } = require("failbook-runtime");\nconst { PROJECT } = require("./failbook.generated.js");\n${SERVICE_BODY}`,
} as const;

describe("failbook-runtime alone, in a service", { timeout: CASE_TIMEOUT }, () => {
  let runtime: ReturnType<typeof pack>;
  let generated = "";

  beforeAll(() => {
    runtime = pack(join(REPO, "packages/runtime"), work);
    const out = join(work, "generated/failbook.ts");
    ok(process.execPath, [join(REPO, "bin/failbook.js"), "gen", "ts", "--out", out], REPO);
    generated = readFileSync(out, "utf8");
  }, INSTALL_TIMEOUT);

  it("is a package with no dependencies, whose tarball is small", () => {
    const manifest = JSON.parse(readFileSync(join(REPO, "packages/runtime/package.json"), "utf8")) as Record<string, unknown>;
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.version).toBe(pkg.version);
    // The runtime, and its `failbook-runtime/redis` subpath (SPEC 23), each as ES module, CommonJS and declarations.
    expect(runtime.files.sort()).toEqual(["dist/index.cjs", "dist/index.d.cts", "dist/index.d.ts", "dist/index.js", "dist/redis.cjs", "dist/redis.d.cts", "dist/redis.d.ts", "dist/redis.js", "package.json"]);
    expect(runtime.unpackedSize).toBeLessThanOrEqual(1024 * 1024);
  });

  describe.each(["module", "commonjs"] as const)("in a %s package", (type) => {
    let service = "";

    beforeAll(() => {
      service = freshProject(work, `service-${type}`, type);
      // Offline: the tarball is all it needs, the registry is never asked.
      ok("npm", ["install", runtime.tarball, "--offline", "--no-audit", "--no-fund", "--loglevel=error"], service);
      const js = ts.transpileModule(generated, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: type === "module" ? ts.ModuleKind.ESNext : ts.ModuleKind.CommonJS } }).outputText;
      writeFileSync(join(service, "failbook.generated.js"), js);
      writeFileSync(join(service, "service.js"), SERVICES[type]);
    }, INSTALL_TIMEOUT);

    it("installs one package of at most 1 MB", () => {
      expect(installedPackages(service)).toEqual(["failbook-runtime"]);
      expect(bytesUnder(join(service, "node_modules/failbook-runtime"))).toBeLessThanOrEqual(1024 * 1024);
    });

    it("loads with require and with import", () => {
      const names = "(m) => typeof m.createDispatcher + ' ' + typeof m.classify + ' ' + typeof m.toMcpToolResult";
      expect(ok(process.execPath, ["-e", `console.log((${names})(require("failbook-runtime")))`], service).trim()).toBe("function function function");
      expect(ok(process.execPath, ["--input-type=module", "-e", `console.log((${names})(await import("failbook-runtime")))`], service).trim()).toBe("function function function");
    });

    it("dispatches on the generated PROJECT, with the real clock and a crypto-seeded random", () => {
      expect(ok(process.execPath, ["service.js"], service).trim()).toBe("recovered transient_timeout 2");
    });

    it("type-checks an adapter under TypeScript 5.9 and the current major: types: [], skipLibCheck: false, exactOptionalPropertyTypes", () => {
      mkdirSync(join(service, "src/generated"), { recursive: true });
      writeFileSync(join(service, "src/generated/failbook.ts"), generated);
      writeFileSync(join(service, "src/adapter.ts"), RUNTIME_ADAPTER);
      expect(typeCheck(service, STRICTEST)).toEqual({ "TypeScript 5.9": "", "the current TypeScript": "" });
    });
  });
});

describe("failbook alone, from its tarball", { timeout: CASE_TIMEOUT }, () => {
  let failbook: ReturnType<typeof pack>;
  let project = "";
  let npmSaid = "";

  beforeAll(() => {
    failbook = pack(REPO, work);
    project = freshProject(work, "alone", "commonjs");
    const r = sh("npm", ["install", "-D", failbook.tarball, "--offline", "--no-audit", "--no-fund"], project);
    if (r.status !== 0) throw new Error(`npm install exited ${r.status}\n${r.stdout}\n${r.stderr}`);
    npmSaid = r.stderr;
  }, INSTALL_TIMEOUT);

  it("installs offline as one package: at most 40 MB and 100 packages (SPEC 17)", () => {
    expect(installedPackages(project)).toEqual(["failbook"]);
    expect(bytesUnder(join(project, "node_modules"))).toBeLessThanOrEqual(40 * 1024 * 1024);
  });

  it("has npm name no install script but failbook's own prepare, which the README explains", () => {
    const scripts = npmSaid.split("\n").filter((l) => /install-scripts\s+\S+@/.test(l));
    expect(scripts.every((l) => /failbook@[\d.]+ \(prepare: node scripts\/build.mjs --if-stale\)/.test(l))).toBe(true);
    expect(readFileSync(join(REPO, "README.md"), "utf8")).toMatch(/allowScripts/);
  });

  it("loads from CommonJS and from an ES module, and runs the CLI", () => {
    expect(ok(process.execPath, ["-e", 'console.log(typeof require("failbook").loadProject)'], project).trim()).toBe("function");
    expect(ok(process.execPath, ["--input-type=module", "-e", 'console.log(typeof (await import("failbook")).createDispatcher)'], project).trim()).toBe("function");
    expect(ok("npx", ["--offline", "failbook", "--version"], project).trim()).toBe(pkg.version);
  });

  it("type-checks a CommonJS user of its library under both TypeScript majors with the strictest settings", () => {
    mkdirSync(join(project, "src"), { recursive: true });
    writeFileSync(
      join(project, "src/check.ts"),
      `import { classify, createDispatcher, lintProject, loadProject, VirtualClock, type Finding } from "failbook";
const { project, findings } = loadProject({ config: undefined, cwd: undefined });
export const found: Finding[] = lintProject(project, findings);
export const verdict: string = classify(project.registry!.value, { kind: "timeout", message: undefined }).verdict;
export const dispatcher = createDispatcher({ registry: project.registry!.value, playbook: project.playbook!.value, clock: new VirtualClock(), random: undefined });
`,
    );
    expect(typeCheck(project, STRICTEST)).toEqual({ "TypeScript 5.9": "", "the current TypeScript": "" });
  });
});

describe("npm install -D from a git URL", { timeout: CASE_TIMEOUT }, () => {
  let project = "";

  // Started when the file loads (see gitInstall), so npm clones, installs and builds while the
  // cases above run; awaited here, last.
  beforeAll(async () => {
    project = await gitInstall;
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
