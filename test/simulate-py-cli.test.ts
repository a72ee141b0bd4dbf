/**
 * `failbook simulate --runtime py` (SPEC 25): the project's fixtures through failbook_runtime
 * for Python, the same report as the TypeScript runtime's, hedged calls included; a missing
 * interpreter is one line and exit 2.
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

  it("runs a hedged project (a slow search won by its hedge) as the TypeScript runtime does: same report, exit 0", () => {
    const cwd = join(REPO, "examples/payments-breaker");
    const py = failbook(["simulate", "--format", "json", "--runtime", "py"], { cwd });
    expect(py.stderr).toBe("");
    expect(py.code).toBe(0);
    expect(py.stdout).toBe(failbook(["simulate", "--format", "json"], { cwd }).stdout);
    const text = failbook(["simulate", "--runtime", "py"], { cwd });
    expect(text.stdout).toContain("3 fixtures: 3 passed");
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
