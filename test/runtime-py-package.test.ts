/**
 * failbook_runtime for Python is a package (SPEC 25): `pip install packages/runtime-py` into a
 * fresh venv, offline (`--no-index`), then a dispatch through the installed copy; and a wheel
 * that carries `py.typed`, installed into another fresh venv without even the system's site
 * packages. Needs Debian's python3-venv, python3-pip, python3-setuptools and python3-wheel
 * (.ci/run installs them); without them the tests are skipped with one line saying so, except
 * in CI, where that line is the failure.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generatePython } from "../src/codegen/python.js";
import { loadProject } from "../src/load/project.js";
import { REPO } from "./helpers/cli.js";
import { PYTHON } from "./helpers/python.js";

/** What building and installing offline needs: venv with ensurepip, pip, setuptools and wheel (for --no-build-isolation). */
const NEEDS = "import importlib.util as u; missing = [m for m in ('venv', 'ensurepip', 'pip', 'setuptools', 'wheel') if u.find_spec(m) is None]";

/** The first Python 3.9+ that can make a venv and build the package offline: the one on PATH, else Debian's. */
function findPackagingPython(): string | null {
  for (const candidate of [...new Set([PYTHON ?? "python3", "/usr/bin/python3"])]) {
    const r = spawnSync(candidate, ["-c", `import sys; ${NEEDS}; sys.exit(bool(missing) or sys.version_info < (3, 9))`], { encoding: "utf8" });
    if (r.status === 0) return candidate;
  }
  return null;
}

const PY = findPackagingPython();
const MISSING = "no python3 (3.9+) with venv, pip, setuptools and wheel: the package install tests are skipped (apt-get install python3-venv python3-pip python3-setuptools python3-wheel; .ci/run does)";

const work = mkdtempSync(join(tmpdir(), "failbook-py-pkg-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Run a command offline, with no PYTHONPATH or pip settings from the environment: its output, or a failure naming it. */
function run(command: string, args: string[], cwd = work): string {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^(PYTHON|PIP_|VIRTUAL_ENV)/.test(k)) env[k] = v;
  const r = spawnSync(command, args, { cwd, encoding: "utf8", env: { ...env, PYTHONDONTWRITEBYTECODE: "1" }, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** A copy of packages/runtime-py (pip builds in the tree it is given: the checkout stays clean). */
function source(): string {
  const dir = join(work, `src-${readdirSync(work).length}`);
  cpSync(join(REPO, "packages/runtime-py"), dir, { recursive: true, filter: (p) => !/(__pycache__|\.egg-info|[/\\]build)$/.test(p) });
  return dir;
}

/** An agent's script beside the module gen py writes: one dispatch (a 503, then ok) through whichever failbook_runtime it imports. */
function app(): string {
  const dir = join(work, "app");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "agent_failures.py"), generatePython(loadProject({ cwd: REPO }).project).text);
  writeFileSync(
    join(dir, "main.py"),
    [
      "import json",
      "import failbook_runtime",
      "from failbook_runtime import VirtualClock, create_dispatcher, seeded_random",
      "from agent_failures import PROJECT",
      "",
      "answers = iter([{'status': 'error', 'error': {'kind': 'http', 'http_status': 503}}, {'status': 'ok', 'value': 'page'}])",
      "dispatcher = create_dispatcher(PROJECT, clock=VirtualClock(), random=seeded_random(1))",
      "result = dispatcher.dispatch({'id': 'c1', 'tool': 'web.fetch', 'args': {'url': 'https://example.com'}}, lambda call, n, key, context: next(answers))",
      "print(json.dumps({'from': failbook_runtime.__file__, 'kind': result['outcome']['kind'], 'attempts': result['outcome']['attempts']}))",
      "",
    ].join("\n"),
  );
  return dir;
}

/** main.py run by a venv's interpreter: where failbook_runtime came from, and the dispatch's outcome. */
function dispatchIn(venv: string): { from: string; kind: string; attempts: number } {
  return JSON.parse(run(join(venv, "bin", "python"), ["main.py"], app())) as { from: string; kind: string; attempts: number };
}

const pip = (venv: string, args: string[]): string => run(join(venv, "bin", "python"), ["-m", "pip", "--isolated", "--disable-pip-version-check", ...args, "--no-index", "--no-cache-dir"]);

describe("failbook_runtime for Python as a package (SPEC 25)", () => {
  if (PY === null) {
    if (process.env.CI) it("has python3 with venv, pip, setuptools and wheel in CI", () => expect.fail(MISSING));
    else it.skip(MISSING, () => {});
    return;
  }

  it("installs with `pip install packages/runtime-py` into a fresh venv, offline, and dispatches from the installed copy", () => {
    const venv = join(work, "venv-source");
    // The system's site packages give the build its setuptools and wheel: nothing is fetched (--no-index).
    run(PY, ["-m", "venv", "--system-site-packages", venv]);
    pip(venv, ["install", "--no-build-isolation", source()]);
    const got = dispatchIn(venv);
    expect(got.from.startsWith(join(venv, "lib"))).toBe(true);
    expect({ kind: got.kind, attempts: got.attempts }).toEqual({ kind: "recovered", attempts: 2 });
  }, 120_000);

  it("builds a wheel that carries py.typed, which installs into a venv without the system's packages and dispatches", () => {
    const dist = join(work, "dist");
    run(PY, ["-m", "pip", "--isolated", "--disable-pip-version-check", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "--no-cache-dir", "-w", dist, source()]);
    const wheels = readdirSync(dist).filter((f) => f.endsWith(".whl"));
    expect(wheels).toEqual([expect.stringMatching(/^failbook_runtime-[\d.]+-py3-none-any\.whl$/)]);
    const wheel = join(dist, wheels[0]!);
    const names = run(PY, ["-c", "import sys, zipfile; print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))", wheel]).split("\n");
    expect(names).toContain("failbook_runtime/py.typed");
    expect(names).toContain("failbook_runtime/_hedging.py");
    const venv = join(work, "venv-wheel");
    run(PY, ["-m", "venv", venv]);
    pip(venv, ["install", wheel]);
    const got = dispatchIn(venv);
    expect(got.from.startsWith(join(venv, "lib"))).toBe(true);
    expect({ kind: got.kind, attempts: got.attempts }).toEqual({ kind: "recovered", attempts: 2 });
  }, 120_000);
});
