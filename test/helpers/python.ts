/**
 * Running generated Python in tests: find python3 (the tests that need it are skipped, with a
 * message saying why, on a machine without it), load generated modules, classify in batches,
 * and type-check with pyright in strict mode.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO } from "./cli.js";

function findPython(): string | null {
  for (const candidate of ["python3", "python"]) {
    const r = spawnSync(candidate, ["-c", "import sys; print(sys.version_info >= (3, 9))"], { encoding: "utf8" });
    if (r.status === 0 && r.stdout.trim() === "True") return candidate;
  }
  return null;
}

/** The Python 3.9+ interpreter on PATH, or null. */
export const PYTHON = findPython();
export const NO_PYTHON_MESSAGE = "python3 (3.9 or later) is not on PATH: the gen py tests that run Python are skipped (.ci/run installs it)";

export function python(args: string[], input?: string): { code: number; stdout: string; stderr: string } {
  if (PYTHON === null) throw new Error(NO_PYTHON_MESSAGE);
  const r = spawnSync(PYTHON, args, { encoding: "utf8", input, maxBuffer: 256 * 1024 * 1024, env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1", PYTHONIOENCODING: "utf-8" } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Write modules (name -> text) into a fresh directory; returns it. */
export function writeModules(modules: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "failbook-py-"));
  for (const [name, text] of Object.entries(modules)) writeFileSync(join(dir, `${name}.py`), text);
  return dir;
}

/**
 * Reads JSON lines `{"module", "call", "args"}` and prints, per line, the JSON of
 * `module.call(*args)` (call may be dotted: `VERDICT_INFO.get`): one process for thousands of calls over several modules.
 */
const DRIVER = String.raw`
import importlib, json, sys
sys.path.insert(0, sys.argv[1])
modules = {}
for line in sys.stdin:
    case = json.loads(line)
    name = case["module"]
    if name not in modules:
        modules[name] = importlib.import_module(name)
    target = modules[name]
    for part in case["call"].split("."):
        target = getattr(target, part)
    print(json.dumps(target(*case["args"])))
`;

export interface PythonCall {
  module: string;
  call: string;
  args: unknown[];
}

/** The result of each call, in order. */
export function callPython(dir: string, calls: readonly PythonCall[]): unknown[] {
  const input = calls.map((c) => JSON.stringify(c)).join("\n") + "\n";
  const r = python(["-c", DRIVER, dir], input);
  if (r.code !== 0) throw new Error(`python failed (${r.code}): ${r.stderr.slice(-3000)}`);
  return r.stdout.trimEnd().split("\n").map((l) => JSON.parse(l) as unknown);
}

/** pyright in strict mode for Python 3.9 over the files of `dir`: its diagnostics output and the error count. */
export function pyright(dir: string): { errors: number; output: string } {
  writeFileSync(join(dir, "pyrightconfig.json"), JSON.stringify({ typeCheckingMode: "strict", pythonVersion: "3.9", reportMissingModuleSource: false }));
  const r = spawnSync(process.execPath, [join(REPO, "node_modules/pyright/index.js"), "--outputjson", "--project", join(dir, "pyrightconfig.json")], { cwd: dir, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  let report: { summary?: { errorCount: number }; generalDiagnostics?: { file: string; message: string; range: { start: { line: number } } }[] };
  try {
    report = JSON.parse(r.stdout) as typeof report;
  } catch {
    throw new Error(`pyright did not run: ${r.stderr || r.stdout}`);
  }
  const output = (report.generalDiagnostics ?? []).map((d) => `${d.file}:${d.range.start.line + 1}: ${d.message}`).join("\n");
  return { errors: report.summary?.errorCount ?? -1, output };
}
