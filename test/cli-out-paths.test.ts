/** Every command that writes --out echoes the path as the user typed it, absolute or relative. */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { failbook, tempProject } from "./helpers/cli.js";

function project(): { dir: string; cwd: string } {
  const dir = tempProject({});
  expect(failbook(["init", dir]).code).toBe(0);
  // The user stands in a directory below the project; the file goes beside it.
  const cwd = join(dir, "sub/deeper");
  mkdirSync(cwd, { recursive: true });
  return { dir, cwd };
}

describe("--out is echoed as typed", () => {
  it.each([
    { command: ["gen", "ts"], file: "bindings.ts" },
    { command: ["gen", "py"], file: "bindings.py" },
    { command: ["gen", "jsonschema"], file: "failbook.schema.json" },
    { command: ["new", "fixture", "--verdict", "rate_limited"], file: "rate-limited.yaml" },
    { command: ["render", "--format", "md"], file: "registry.md" },
  ])("failbook $command.0 $command.1 --out ABSOLUTE names ABSOLUTE, not a path relative to the working directory", ({ command, file }) => {
    const { dir, cwd } = project();
    const out = join(dir, file);
    const r = failbook([...command, "--out", out], { cwd });
    expect(r.code).toBe(0);
    expect(existsSync(out)).toBe(true);
    const said = r.stdout + r.stderr;
    expect(said).toContain(out);
    expect(said).not.toMatch(new RegExp(`\\.\\./\\S*${file}`));
  });

  it("gen ts --out RELATIVE and --check name the file as typed too", () => {
    const { dir, cwd } = project();
    const out = join(dir, "bindings.ts");
    expect(failbook(["gen", "ts", "--out", out], { cwd }).code).toBe(0);
    expect(failbook(["gen", "ts", "--out", out, "--check"], { cwd }).stdout).toBe(`${out} is up to date\n`);
    expect(failbook(["gen", "ts", "--out", "../../bindings.ts", "--check"], { cwd }).stdout).toBe("../../bindings.ts is up to date\n");
  });
});
