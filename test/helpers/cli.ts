/** Run the built CLI as a user would, and make throwaway projects. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const BIN = join(REPO, "bin/failbook.js");

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function failbook(args: string[], options: { cwd?: string; env?: Record<string, string>; input?: string } = {}): RunResult {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? REPO,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NO_COLOR: "1", ...options.env },
    input: options.input,
    encoding: "utf8",
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Write files (path -> content) under a fresh temporary directory; returns the directory. */
export function tempProject(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "failbook-test-"));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

/** The modules a command resolves, as ES modules (a module hook) or through require() (the CommonJS bundle). */
export function modulesLoaded(args: string[], cwd: string): string[] {
  const hooks = tempProject({
    "register.mjs": 'import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n',
    "hooks.mjs": 'import { appendFileSync } from "node:fs";\nexport async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(process.env.MODULE_LOG, r.url + "\\n"); return r; }\n',
    "required.cjs":
      'const Module = require("node:module");\nconst { appendFileSync } = require("node:fs");\nconst resolve = Module._resolveFilename;\nModule._resolveFilename = function (...args) { const r = resolve.apply(this, args); appendFileSync(process.env.MODULE_LOG, r + "\\n"); return r; };\n',
  });
  const log = `${hooks}/modules.log`;
  const r = spawnSync(process.execPath, ["--require", `${hooks}/required.cjs`, "--import", pathToFileURL(`${hooks}/register.mjs`).href, BIN, ...args], { cwd, env: { PATH: process.env.PATH ?? "", NO_COLOR: "1", MODULE_LOG: log }, input: "", encoding: "utf8" });
  if (r.stderr.includes("internal error")) throw new Error(`failbook ${args.join(" ")}: ${r.stderr}`);
  return readFileSync(log, "utf8").split("\n");
}
