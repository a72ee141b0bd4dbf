/**
 * Fixtures through the Python runtime (SPEC 25): the project's `gen py` module written to a
 * scratch directory, then `python3 -m failbook_runtime simulate` fed the fixtures as JSON
 * lines, one process for all of them. What `failbook simulate --runtime py` and the
 * differential test run, so a Python team's CI checks the code it ships.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { UsageError } from "failbook-runtime/model/errors.js";
import type { Fixture } from "failbook-runtime/model/fixture.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import { CodegenError, type CodegenInput } from "../codegen/typescript.js";
import { generatePython } from "../codegen/python.js";
import { packageFile } from "../version.js";
import type { FixtureSimulation } from "./fixture.js";

/** The interpreter: $FAILBOOK_PYTHON, else python3. */
export const pythonCommand = (): string => process.env.FAILBOOK_PYTHON ?? "python3";

/** The repository's copy of the package (packages/runtime-py), when failbook runs from a checkout; else an installed failbook_runtime is used. */
function packageDir(): string | undefined {
  const dir = fileURLToPath(packageFile("packages/runtime-py"));
  return existsSync(join(dir, "failbook_runtime", "__init__.py")) ? dir : undefined;
}

/** One request of the runner: a fixture and its seed, or a playbook the fixtures after it run under. */
export type PythonRequest = { fixture: Fixture; seed: number } | { playbook: Playbook };

/** A fixture's simulation by the Python runtime, or the policy it does not implement. */
export type PythonSimulation = FixtureSimulation | { ok: "unsupported"; reason: string };

/**
 * Run requests through `python3 -m failbook_runtime simulate MODULE`, the module generated from `project`;
 * `driver: "adispatch"` runs each dispatch through the runtime's asyncio driver instead of its blocking one.
 */
export function simulateInPython(project: CodegenInput, requests: readonly PythonRequest[], driver: "dispatch" | "adispatch" = "dispatch"): PythonSimulation[] {
  let text: string;
  try {
    text = generatePython(project).text;
  } catch (e) {
    if (e instanceof CodegenError) throw new UsageError(`--runtime py needs the gen py module, which cannot be written: ${e.problems[0]?.message ?? e.message}`);
    throw e;
  }
  const dir = mkdtempSync(join(tmpdir(), "failbook-py-sim-"));
  try {
    const module = join(dir, "failbook_bindings.py");
    writeFileSync(module, text);
    const own = packageDir();
    const env = { ...process.env, PYTHONDONTWRITEBYTECODE: "1", PYTHONIOENCODING: "utf-8", ...(own === undefined ? {} : { PYTHONPATH: [own, process.env.PYTHONPATH].filter(Boolean).join(delimiter) }) };
    const input = requests.map((r) => JSON.stringify(r)).join("\n") + "\n";
    const r = spawnSync(pythonCommand(), ["-m", "failbook_runtime", "simulate", module, ...(driver === "adispatch" ? ["--adispatch"] : [])], { input, encoding: "utf8", env, maxBuffer: 1024 * 1024 * 1024 });
    if (r.error !== undefined) throw new UsageError(`--runtime py could not start ${pythonCommand()} (${(r.error as NodeJS.ErrnoException).code ?? r.error.message}); install Python 3.9 or later, or set FAILBOOK_PYTHON`);
    if (r.status !== 0) {
      const last = r.stderr.trim().split("\n").pop() ?? "";
      if (/No module named failbook_runtime/.test(r.stderr)) throw new UsageError("--runtime py needs the Python package failbook_runtime: pip install packages/runtime-py (from the failbook repository)");
      throw new Error(`the Python runtime failed (exit ${r.status}): ${last}`);
    }
    const lines = r.stdout.split("\n").filter((l) => l.length > 0);
    return lines.map((line) => {
      const parsed = JSON.parse(line) as FixtureSimulation | { unsupported: string };
      return "unsupported" in parsed ? { ok: "unsupported", reason: parsed.unsupported } : parsed;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
