/**
 * failbook_runtime for Python (SPEC 25) as a service runs it: its unit tests on a real clock
 * against a loopback HTTP server (packages/runtime-py/tests: retries, attempt timeouts,
 * cancellation and deadlines in dispatch and adispatch, hedging in adispatch) and its hostile-error tests
 * (packages/runtime-py/tests/test_hostile_errors.py), with the module `gen py` writes for
 * this repository's project; and the package clean under pyright --strict.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generatePython } from "../src/codegen/python.js";
import { loadProject } from "../src/load/project.js";
import { REPO } from "./helpers/cli.js";
import { NO_PYTHON_MESSAGE, PYTHON } from "./helpers/python.js";

const PACKAGE = join(REPO, "packages/runtime-py");

describe.skipIf(PYTHON === null)("failbook_runtime for Python", () => {
  if (PYTHON === null) it.skip(NO_PYTHON_MESSAGE, () => {});

  /** Run one of the package's unittest files with the module gen py writes for this repository's project: its stderr and exit status. */
  function unittest(file: string): { stderr: string; status: number | null } {
    const dir = mkdtempSync(join(tmpdir(), "failbook-py-real-"));
    const bindings = join(dir, "bindings.py");
    writeFileSync(bindings, generatePython(loadProject({ cwd: REPO }).project).text);
    return spawnSync(PYTHON!, ["-m", "unittest", "-v", file], { cwd: PACKAGE, encoding: "utf8", env: { ...process.env, PYTHONPATH: PACKAGE, FAILBOOK_BINDINGS: bindings, PYTHONDONTWRITEBYTECODE: "1" } });
  }

  it("passes its real-clock tests against a loopback HTTP server, hedging in adispatch included", () => {
    const r = unittest("tests/test_real_clock.py");
    expect(r.stderr).toMatch(/test_adispatch_hedges_a_slow_attempt_and_cancels_it .*\.\.\. ok/);
    expect(r.stderr).toMatch(/Ran 11 tests[\s\S]*\nOK\n?$/);
    expect(r.status).toBe(0);
  }, 60_000);

  it("classifies hostile exceptions (a raising __str__ or attribute, a cyclic __cause__, a huge message, secrets in attributes) without leaking or hanging", () => {
    const r = unittest("tests/test_hostile_errors.py");
    expect(r.stderr).toMatch(/Ran 7 tests[\s\S]*\nOK\n?$/);
    expect(r.status).toBe(0);
  }, 60_000);

  it("is clean under pyright --strict for Python 3.9", () => {
    const r = spawnSync(process.execPath, [join(REPO, "node_modules/pyright/index.js"), "-p", join(PACKAGE, "pyrightconfig.json")], { cwd: PACKAGE, encoding: "utf8" });
    expect(r.stdout).toContain("0 errors, 0 warnings, 0 informations");
    expect(r.status).toBe(0);
  }, 120_000);
});
