/**
 * `failbook simulate --runtime py` (SPEC 25): the project's fixtures through failbook_runtime
 * for Python, the same report as the TypeScript runtime's; a policy the Python runtime does
 * not implement is a located error per fixture, never a silent pass; a missing interpreter
 * is one line and exit 2.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { failbook, REPO } from "./helpers/cli.js";
import { NO_PYTHON_MESSAGE, PYTHON } from "./helpers/python.js";

describe.skipIf(PYTHON === null)("simulate --runtime py", () => {
  if (PYTHON === null) it.skip(NO_PYTHON_MESSAGE, () => {});

  it("prints, byte for byte, the report the TypeScript runtime prints, and exits 0", () => {
    for (const cwd of [REPO, join(REPO, "examples/openai-retry")]) {
      const ts = failbook(["simulate", "--format", "json"], { cwd });
      const py = failbook(["simulate", "--format", "json", "--runtime", "py"], { cwd });
      expect(py.stderr).toBe("");
      expect(py.code).toBe(0);
      expect(py.stdout).toBe(ts.stdout);
      expect(failbook(["simulate", "--runtime", "py"], { cwd }).stdout).toBe(failbook(["simulate"], { cwd }).stdout);
    }
  }, 60_000);

  it("fails each fixture that needs a policy the Python runtime does not implement (a hedged call), naming it and the way out; the breaker fixtures pass", () => {
    const r = failbook(["simulate", "--runtime", "py"], { cwd: join(REPO, "examples/payments-breaker") });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("fixtures/search-hedged.yaml:5:1 error fixture 'a-slow-search-is-won-by-its-hedge' the Python runtime does not implement hedging yet (SPEC 18); simulate this project with --runtime ts");
    expect(r.stdout).toContain("3 fixtures: 2 passed, 1 failed");
  }, 60_000);

  it("says in one line when the interpreter cannot start (exit 2), and refuses an unknown runtime", () => {
    const r = failbook(["simulate", "--runtime", "py"], { env: { FAILBOOK_PYTHON: "no-such-python3" } });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe("failbook: --runtime py could not start no-such-python3 (ENOENT); install Python 3.9 or later, or set FAILBOOK_PYTHON");
    const bad = failbook(["simulate", "--runtime", "rb"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--runtime");
  }, 60_000);
});
