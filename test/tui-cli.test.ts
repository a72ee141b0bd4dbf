/**
 * explore and simulate end to end: the plain forms in a pipe, Ink never loaded there, and on a
 * real terminal (a pseudo-terminal made by `script`) the live views.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { BIN, failbook, REPO } from "./helpers/cli.js";
import { withShippedRules } from "./helpers/shipped.js";
import { screen } from "./helpers/tui.js";

interface RenderedCode {
  code: string;
  class: string;
  retryable: boolean;
  status: string;
  action: { name: string } | null;
}

const codes = (): RenderedCode[] => (JSON.parse(failbook(["render", "--format", "json"]).stdout) as { codes: RenderedCode[] }).codes;
const results = () => (JSON.parse(failbook(["simulate", "--format", "json"]).stdout) as { results: { fixture: string; passed: boolean | null; outcome: { kind: string; verdict: string | null } }[] }).results;

describe("failbook explore in a pipe", () => {
  it("prints the codes table and each fixture's outcome line, and exits 0", () => {
    const r = failbook(["explore"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).not.toContain("\u001B");
    const lines = r.stdout.split("\n").map((l) => l.trim().split(/\s{2,}/));
    expect(lines).toContainEqual(["code", "class", "retryable", "status", "action"]);
    for (const c of codes()) {
      expect(lines).toContainEqual([c.code, c.class, c.retryable ? "yes" : "no", c.status, c.action?.name ?? "(none)"]);
    }
    for (const f of results()) {
      const mark = f.passed === true ? "✓" : f.passed === false ? "✗" : "·";
      expect(r.stdout).toMatch(new RegExp(`^${mark} ${f.fixture} +=> ${f.outcome.kind}  ${f.outcome.verdict ?? "no failure"} · `, "m"));
    }
  });

  it("says in --help that it is interactive and what the plain form is", () => {
    const r = failbook(["explore", "--help"]);
    expect(r.code).toBe(0);
    for (const words of ["interactive", "Plain form", "codes table (code, class, retryable, status, action)", "outcome line per fixture", "q  ctrl-c"]) {
      expect(r.stdout).toContain(words);
    }
  });

  it("describes the tabs the browser has, and no other", () => {
    for (const help of [failbook(["--help"]).stdout, failbook(["explore", "--help"]).stdout]) {
      const text = help.replace(/\s+/g, " ");
      const description = /(interactive terminal browser[^;]*)/.exec(text)?.[1] ?? "";
      expect(description).toContain("two tabs: Codes");
      expect(description).toContain("Fixtures");
      expect(description).not.toMatch(/\bactions\b/);
    }
  });

  it("exits 1 with the findings when the registry does not load", () => {
    const dir = withShippedRules([]);
    writeFileSync(join(dir, "r.yaml"), "apiVersion: failbook/v1\nkind: Registry\nname: [\n");
    const r = failbook(["explore"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/r\.yaml:\d+:\d+ error/);
    expect(r.stderr).toContain("cannot explore: the registry is invalid");
  });
});

describe("failbook simulate in a pipe", () => {
  it("prints the plain report only: no live view, no escape codes", () => {
    const r = failbook(["simulate"]);
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).not.toContain("\u001B");
    expect(r.stdout).not.toContain("simulating");
    expect(r.stdout).toMatch(/^(\d+) fixtures: \1 passed, 0 failed, 0 without expect\n$/m);
  });
});

describe("start-up", () => {
  // A module hook that names every ink or react module the CLI resolves.
  const hooks = mkdtempSync(join(tmpdir(), "failbook-hooks-"));
  writeFileSync(join(hooks, "hooks.mjs"), 'export async function resolve(s, c, next) { if (/^(ink|react)(\\/|$)/.test(s)) process.stderr.write(`loaded ${s}\\n`); return next(s, c); }\n');
  writeFileSync(join(hooks, "register.mjs"), `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(join(hooks, "hooks.mjs")).href)});\n`);

  it.each([["lint"], ["simulate"], ["explore"], ["explain", "transient_timeout"]])("failbook %s in a pipe loads neither Ink nor React", (...args) => {
    const r = spawnSync(process.execPath, ["--import", join(hooks, "register.mjs"), BIN, ...args], { cwd: REPO, encoding: "utf8", env: { PATH: process.env.PATH ?? "", NO_COLOR: "1" } });
    expect(r.status).toBe(0);
    expect(r.stderr).not.toContain("loaded");
  });
});

const hasScript = spawnSync("script", ["--version"]).status === 0;

/** A command line run on a 100x30 pseudo-terminal, as a person at a terminal runs it. */
function onTerminal(command: string): string {
  return `stty cols 100 rows 30; exec node ${JSON.stringify(BIN)} ${command}`;
}

const TERMINAL_ENV = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NO_COLOR: "1", TERM: "xterm-256color" };

describe.skipIf(!hasScript)("on a terminal", () => {
  it("simulate shows live progress, then leaves exactly the plain report on the screen", () => {
    const r = spawnSync("script", ["-qec", onTerminal("simulate"), "/dev/null"], { cwd: REPO, encoding: "utf8", env: TERMINAL_ENV });
    expect(r.status).toBe(0);
    const plain = failbook(["simulate"]).stdout;
    const count = results().length;
    expect(r.stdout.replace(/\u001B\[[0-9;?]*[A-Za-z]/g, "")).toMatch(new RegExp(`simulating .* \\d+/${count} · \\d+ passed · \\d+ failed`));
    expect(screen(r.stdout)).toBe(plain);
  });

  it("explore opens the browser; j moves, q quits with 0 and gives the screen back", async () => {
    const child = spawn("script", ["-qec", onTerminal("explore"), "/dev/null"], { cwd: REPO, env: TERMINAL_ENV });
    let output = "";
    const waiters: { test: () => boolean; resolve: () => void }[] = [];
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      output += chunk;
      for (const w of waiters.splice(0)) (w.test() ? w.resolve : () => waiters.push(w))();
    });
    const text = () => output.replace(/\u001B\[[0-9;?]*[A-Za-z]/g, "");
    const until = (test: () => boolean) => new Promise<void>((resolve) => (test() ? resolve() : waiters.push({ test, resolve })));
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));

    const [first, second] = codes();
    try {
      await until(() => text().includes("q quit"));
      expect(text()).toMatch(new RegExp(`› [●◐○] ${first.code}`));
      child.stdin.write("j");
      await until(() => new RegExp(`› [●◐○] ${second.code}`).test(text()));
      child.stdin.write("q");
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill();
    }
    expect(output.indexOf("\u001B[?1049h")).toBeGreaterThanOrEqual(0);
    expect(output.lastIndexOf("\u001B[?1049l")).toBeGreaterThan(output.lastIndexOf("q quit"));
  });
});
