import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { failbook, REPO, tempProject } from "./helpers/cli.js";

const noStack = (s: string) => expect(s).not.toMatch(/\n\s+at .+:\d+:\d+/);

describe("the command line", () => {
  it("explains itself in --help", () => {
    const r = failbook(["--help"]);
    expect(r.code).toBe(0);
    for (const word of ["lint", "init", "--config", "--no-color", "Exit status"]) expect(r.stdout).toContain(word);
  });

  it("documents lint's flags, formats and exit codes in lint --help", () => {
    const r = failbook(["lint", "--help"]);
    expect(r.code).toBe(0);
    for (const word of ["--format", "--fail-on", "--baseline", "--write-baseline", "sarif", "github", "Exit status"]) expect(r.stdout).toContain(word);
  });

  it.each([
    { args: ["frobnicate"], what: "an unknown command" },
    { args: ["lint", "--format", "xml"], what: "a bad --format" },
    { args: ["lint", "--fail-on", "fatal"], what: "a bad --fail-on" },
    { args: ["lint", "--nope"], what: "an unknown flag" },
  ])("exits 2 on $what", ({ args }) => {
    const r = failbook(args);
    expect(r.code).toBe(2);
    noStack(r.stderr);
  });

  it("exits 2 with one clear line when there is no config anywhere up the tree", () => {
    const dir = tempProject({ "readme.txt": "nothing here" });
    const r = failbook(["lint"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("no failbook.yaml found");
    expect(r.stderr).toContain("failbook init");
    expect(r.stderr).toContain("pass --config PATH");
  });

  it("finds the config in the nearest parent directory", () => {
    const dir = tempProject({});
    const init = failbook(["init", dir]);
    expect(init.code).toBe(0);
    mkdirSync(join(dir, "deep/er"), { recursive: true });
    const r = failbook(["lint"], { cwd: join(dir, "deep/er") });
    expect(r.code).toBe(0);
  });

  it("takes --config as a file or as a directory holding one", () => {
    const dir = tempProject({});
    failbook(["init", dir]);
    expect(failbook(["--config", join(dir, "failbook.yaml"), "lint"], { cwd: "/" }).code).toBe(0);
    expect(failbook(["--config", dir, "lint"], { cwd: "/" }).code).toBe(0);
    const missing = failbook(["--config", join(dir, "nope.yaml"), "lint"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("config file not found");
  });

  it("points at the config key that names a missing registry", () => {
    const dir = tempProject({ "failbook.yaml": "registry: gone.yaml\nplaybook: p.yaml\n" });
    const r = failbook(["lint"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("registry file not found: gone.yaml (named at failbook.yaml:1:11)");
  });

  it("reports an invalid config as findings with positions (exit 1)", () => {
    const dir = tempProject({ "failbook.yaml": "registry: r.yaml\nplaybok: p.yaml\n" });
    const r = failbook(["lint"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("failbook.yaml:2:1 error unknown key 'playbok' in the config; did you mean 'playbook'? [schema]");
  });

  it("colours only when asked: FORCE_COLOR forces it, NO_COLOR and --no-color remove it", () => {
    const dir = tempProject({ "failbook.yaml": "registry: r.yaml\nplaybok: p.yaml\n" });
    const ansi = /\u001b\[/;
    expect(failbook(["lint"], { cwd: dir }).stdout).not.toMatch(ansi);
    expect(failbook(["lint"], { cwd: dir, env: { NO_COLOR: "", FORCE_COLOR: "1" } }).stdout).toMatch(ansi);
    expect(failbook(["--no-color", "lint"], { cwd: dir, env: { NO_COLOR: "", FORCE_COLOR: "1" } }).stdout).not.toMatch(ansi);
  });
});

describe("failbook init", () => {
  it("writes a project that lints clean", () => {
    const dir = tempProject({});
    const r = failbook(["init", "proj"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("playbooks/registry.yaml");
    const lint = failbook(["lint"], { cwd: join(dir, "proj") });
    expect(lint.stdout).toContain("no problems found");
    expect(lint.code).toBe(0);
  });

  it("refuses to overwrite, naming the files, and writes nothing when any file exists; --force overwrites", () => {
    const dir = tempProject({ "playbooks/playbook.yaml": "mine\n" });
    const r = failbook(["init"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("init would overwrite playbooks/playbook.yaml;");
    expect(r.stderr).toContain("--force");
    expect(readFileSync(join(dir, "playbooks/playbook.yaml"), "utf8")).toBe("mine\n");
    expect(failbook(["lint"], { cwd: dir }).code).toBe(2); // still no failbook.yaml
    const forced = failbook(["init", "--force"], { cwd: dir });
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain("playbooks/playbook.yaml  (overwritten)");
    expect(readFileSync(join(dir, "playbooks/playbook.yaml"), "utf8")).toContain("kind: Playbook");
    expect(failbook(["lint"], { cwd: dir }).code).toBe(0);
  });

  /** Every file of a project, path -> content. */
  const filesOf = (dir: string): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) out[join(entry.parentPath, entry.name).slice(dir.length + 1)] = readFileSync(join(entry.parentPath, entry.name), "utf8");
    }
    return out;
  };

  it("writes a starter that cites nothing it does not ship: no seed documents, no ADRs", () => {
    const dir = tempProject({});
    expect(failbook(["init", dir]).code).toBe(0);
    const files = filesOf(dir);
    expect(Object.keys(files).sort()).toEqual(["failbook.yaml", "playbooks/fixtures/refund-with-conflict.yaml", "playbooks/playbook.yaml", "playbooks/registry.yaml"]);
    for (const [path, text] of Object.entries(files)) {
      expect(text, path).not.toMatch(/\bseeds?\b[^\n]*\d{3}|\bseeds\//i);
      expect(text, path).not.toMatch(/ADR-\d/);
    }
    // A team that turns the ADR check on finds nothing dangling.
    mkdirSync(join(dir, "docs/adr"), { recursive: true });
    writeFileSync(join(dir, "failbook.yaml"), `${files["failbook.yaml"]}adr_dir: docs/adr\n`);
    const lint = failbook(["lint"], { cwd: dir });
    expect(lint.stdout).toContain("no problems found");
    expect(lint.code).toBe(0);
  });

  /** Each written file's $schema modeline, resolved from the file's own directory. */
  const modelines = (project: string): [string, string][] =>
    Object.entries(filesOf(project)).map(([path, text]) => [path, resolve(dirname(join(project, path)), /\$schema=(\S+)/.exec(text)![1]!)]);

  it.each([
    { layout: "a package.json at the top, init into sub/dir", files: { "package.json": "{}\n" }, schemas: "node_modules/failbook/schemas" },
    { layout: "failbook installed at a workspace's root, init into a package's sub/dir", files: { "node_modules/failbook/schemas/.keep": "", "packages/app/package.json": "{}\n" }, cwd: "packages/app", schemas: "node_modules/failbook/schemas" },
    { layout: "no package.json anywhere: beside the project", files: {}, schemas: "sub/dir/node_modules/failbook/schemas" },
  ])("writes schema modelines that point where node_modules resolves: $layout", ({ files, cwd, schemas }) => {
    const top = tempProject(files);
    const here = join(top, cwd ?? "");
    expect(failbook(["init", "sub/dir"], { cwd: here }).code).toBe(0);
    const project = join(here, "sub/dir");
    const found = modelines(project);
    expect(found.map(([path]) => path).sort()).toEqual(["failbook.yaml", "playbooks/fixtures/refund-with-conflict.yaml", "playbooks/playbook.yaml", "playbooks/registry.yaml"]);
    for (const [path, schema] of found) expect(relative(top, dirname(schema)), path).toBe(schemas);
    expect(Object.fromEntries(found.map(([path, schema]) => [path, basename(schema)]))).toEqual({
      "failbook.yaml": "config.schema.json",
      "playbooks/registry.yaml": "registry.schema.json",
      "playbooks/playbook.yaml": "playbook.schema.json",
      "playbooks/fixtures/refund-with-conflict.yaml": "fixture.schema.json",
    });
  });

  it("--template http-api writes an HTTP API client's project: lint is clean, every verdict has a fixture whose golden passes", () => {
    const top = tempProject({ "package.json": "{}\n" });
    const r = failbook(["init", "client", "--template", "http-api"], { cwd: top });
    expect(r.code).toBe(0);
    const dir = join(top, "client");
    const files = filesOf(dir);
    expect(Object.keys(files).sort()).toEqual(["failbook.yaml", "playbooks/fixtures/refusals.yaml", "playbooks/fixtures/throttling.yaml", "playbooks/fixtures/timeouts.yaml", "playbooks/playbook.yaml", "playbooks/registry.yaml"]);
    // The same modelines as the agent starter's: failbook's schemas where node_modules resolves, each file's own schema.
    for (const [path, schema] of modelines(dir)) {
      expect(relative(top, dirname(schema)), path).toBe("node_modules/failbook/schemas");
      expect(basename(schema), path).toBe(path === "failbook.yaml" ? "config.schema.json" : path.includes("fixtures/") ? "fixture.schema.json" : `${basename(path, ".yaml")}.schema.json`);
    }
    expect(files["playbooks/playbook.yaml"]).toMatch(/^attempt_timeout_ms: /m);
    expect(files["playbooks/playbook.yaml"]).toMatch(/^circuit_breakers:/m);
    expect(files["playbooks/playbook.yaml"]).toMatch(/^retry_budget: /m);
    expect(files["playbooks/playbook.yaml"]).toMatch(/action: refresh_credentials/);
    const lint = failbook(["lint"], { cwd: dir });
    expect(lint.stdout).toBe("no problems found\n");
    expect(lint.code).toBe(0);
    const sim = failbook(["simulate", "--format", "json"], { cwd: dir });
    expect(sim.code).toBe(0);
    const report = JSON.parse(sim.stdout) as { passed: number; failed: number; results: { outcome: { verdict: string } }[] };
    expect(report).toMatchObject({ passed: 9, failed: 0 });
    const verdicts = [...files["playbooks/registry.yaml"]!.matchAll(/^  - code: (\S+)$/gm)].map((m) => m[1]).sort();
    expect(report.results.map((x) => x.outcome.verdict).sort()).toEqual(verdicts);
    // The 429's Retry-After (2 s) is waited out, and the timeline names each HTTP error by its status (an error without one, by its kind).
    const text = failbook(["simulate"], { cwd: dir }).stdout;
    expect(text).toMatch(/error http 429 \(40ms\)\n.*rate_limited -> retry_with_backoff\n.*retry {8}attempt 2 in 2000ms/);
    for (const status of [401, 422, 418, 503, 504]) expect(text).toContain(`error http ${status} (`);
    expect(text).toContain("error connection_reset (10ms)");
  });

  it("an unknown --template is a usage error naming the choices; --adr is the agent starter's only", () => {
    const dir = tempProject({});
    const r = failbook(["init", dir, "--template", "grpc"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("failbook: --template must be one of agent, http-api, not 'grpc'\n");
    const adr = failbook(["init", dir, "--template", "http-api", "--adr"]);
    expect(adr.code).toBe(2);
    expect(adr.stderr.trim().split("\n")).toHaveLength(1);
    expect(adr.stderr).toContain("--adr applies to --template agent only");
    expect(readdirSync(dir)).toEqual([]);
    expect(failbook(["init", "--help"]).stdout).toContain("--template <name>");
  });

  it("--adr writes docs/adr/ with every ADR the registry cites, and turns the check on", () => {
    const dir = tempProject({});
    const r = failbook(["init", dir, "--adr"]);
    expect(r.code).toBe(0);
    const files = filesOf(dir);
    expect(files["failbook.yaml"]).toMatch(/^adr_dir: docs\/adr\b/m);
    const cited = [...new Set([...files["playbooks/registry.yaml"]!.matchAll(/^\s+adr: (\S+)$/gm)].map((m) => m[1]))];
    expect(cited.length).toBeGreaterThan(0);
    const adrs = Object.keys(files).filter((f) => f.startsWith("docs/adr/"));
    for (const id of cited) expect(adrs.some((f) => f.startsWith(`docs/adr/${id}-`)), id).toBe(true);
    expect(adrs).toHaveLength(cited.length);
    for (const text of Object.values(files)) expect(text).not.toMatch(/\bseeds?\b[^\n]*\d{3}/i);
    expect(failbook(["lint"], { cwd: dir }).stdout).toContain("no problems found");
    // The check is live: without one of the ADRs, lint names the reference.
    rmSync(join(dir, adrs[0]!));
    const broken = failbook(["lint"], { cwd: dir });
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain("[adr-unresolved]");
  });
});

describe("start-up", () => {
  it("loads only the named command: lint never compiles the code generator or the renderer", async () => {
    const { commandName } = await import("../src/cli/commands.js");
    expect(commandName(["lint", "--format", "json"])).toBe("lint");
    expect(commandName(["--config", "lint", "simulate"])).toBe("simulate");
    expect(commandName(["--no-color", "gen", "ts"])).toBe("gen");
    expect(commandName(["--help"])).toBeUndefined();
  });

  it("still lists every command in --help and takes a command after --config", () => {
    const r = failbook(["--help"]);
    for (const c of ["init", "lint", "simulate", "classify", "gen", "render", "explain", "diff"]) expect(r.stdout).toMatch(new RegExp(`^  ${c}\\b`, "m"));
    const dir = tempProject({});
    failbook(["init", dir]);
    expect(failbook(["--config", dir, "lint"], { cwd: "/" }).code).toBe(0);
  });
});

describe("the config's fixtures", () => {
  it("takes one path as well as a list", () => {
    const dir = tempProject({});
    failbook(["init", dir]);
    writeFileSync(join(dir, "failbook.yaml"), "registry: playbooks/registry.yaml\nplaybook: playbooks/playbook.yaml\nfixtures: playbooks/fixtures\n");
    const r = failbook(["simulate", "--format", "json"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).passed).toBe(1);
  });
});

describe("--version", () => {
  it("prints the package's version", () => {
    const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string };
    const r = failbook(["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it("answers alone (without loading the CLI) exactly as the CLI does", () => {
    // With a second flag the CLI itself answers: the two must agree, byte for byte.
    const byCli = failbook(["--version", "--no-color"]);
    expect(byCli).toMatchObject({ code: 0, stderr: "" });
    for (const flag of ["--version", "-V", "-v"]) expect(failbook([flag])).toEqual(byCli);
    expect(failbook(["-v", "--no-color"])).toEqual(byCli);
  });
});

describe("help on every command and command group", () => {
  it.each([
    { asked: ["help"], same: ["--help"] },
    { asked: ["help", "lint"], same: ["lint", "--help"] },
    { asked: ["help", "gen"], same: ["gen", "--help"] },
    { asked: ["gen", "help", "ts"], same: ["gen", "ts", "--help"] },
    { asked: ["new", "help", "fixture"], same: ["new", "fixture", "--help"] },
    { asked: ["import", "help", "otlp"], same: ["import", "otlp", "--help"] },
    { asked: ["replay", "help", "merge"], same: ["replay", "merge", "--help"] },
  ])("failbook $asked prints what --help prints, on stdout, exit 0", ({ asked, same }) => {
    const r = failbook(asked);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toContain("Usage: failbook");
    expect(r.stdout).toBe(failbook(same).stdout);
  });

  it.each([
    { group: "gen", subcommands: ["ts", "py", "jsonschema"] },
    { group: "new", subcommands: ["fixture"] },
    { group: "import", subcommands: ["otlp"] },
  ])("failbook $group alone is one line naming its subcommands (exit 2), not its whole help", ({ group, subcommands }) => {
    const r = failbook([group]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(new RegExp(`^failbook: ${group} needs a subcommand: `));
    for (const name of subcommands) expect(r.stderr).toContain(name);
  });

  it("names the subcommand it does not know, with the nearest one", () => {
    const r = failbook(["gen", "tss"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("failbook: gen has no subcommand 'tss'; did you mean ts? It takes ts, py, jsonschema or alerts (failbook gen --help describes each)\n");
  });
});
