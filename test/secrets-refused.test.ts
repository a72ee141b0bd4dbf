/**
 * SPEC 21 "Secrets never reach generated files": gen ts, gen py, gen jsonschema and render
 * refuse to write a string that `secret-in-project` flags: one located line per string (the
 * family, never the value), exit 1, and the target as it was (not created, not truncated).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { failbook } from "./helpers/cli.js";
import { shippedCopy } from "./helpers/shipped.js";

const KEY = "AKIAIOSFODNN7EXAMPLE";
const BEFORE = "// what the team had here before\n";

/** The shipped project with an AWS access key id in a verdict's summary (registry line 89, its value at column 14) and one in the playbook. */
function leakyProject(): string {
  const dir = shippedCopy();
  for (const [file, from, to] of [
    ["playbooks/registry.yaml", "summary: Network blip", `summary: ${KEY} blip`],
    ["playbooks/playbook.yaml", "queue: policy_review", `queue: policy_review-${KEY}`],
  ] as const) {
    const path = join(dir, file);
    const text = readFileSync(path, "utf8");
    expect(text).toContain(from);
    writeFileSync(path, text.replace(from, to));
  }
  return dir;
}

const located = (file: string, line: number, column: number) =>
  `${file}:${line}:${column} error this string holds a secret (AWS access key id): the project's own text is never redacted, so it would be copied into generated code and every output; move the secret out of the project (an environment variable, a secret store), rotate it, and leave a placeholder [secret-in-project]\n`;

describe("a secret in the project is never written into a generated file", () => {
  it.each([
    ["gen ts", ["gen", "ts", "--out", "out/failbook.ts"], "out/failbook.ts"],
    ["gen py", ["gen", "py", "--out", "out/failbook_generated.py"], "out/failbook_generated.py"],
    ["gen jsonschema", ["gen", "jsonschema", "--out", "out/failbook.schema.json"], "out/failbook.schema.json"],
    ["render", ["render", "--out", "out/errors.md"], "out/errors.md"],
  ])("%s: one located line a string, exit 1, the --out file byte-identical", (_, args, out) => {
    const dir = leakyProject();
    const playbook = readFileSync(join(dir, "playbooks/playbook.yaml"), "utf8").split("\n");
    const playbookAt = playbook.findIndex((l) => l.includes(KEY)) + 1;
    const column = playbook[playbookAt - 1]!.indexOf("policy_review-") + 1;
    const path = join(dir, out);
    mkdirSync(join(dir, "out"));
    writeFileSync(path, BEFORE);
    const r = failbook(args, { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      located("playbooks/playbook.yaml", playbookAt, column) +
        located("playbooks/registry.yaml", 89, 14) +
        `failbook: nothing written to ${out}: 2 strings of the project would carry a secret into it; move them out of the project (failbook lint shows them too)\n`,
    );
    expect(r.stderr).not.toContain(KEY);
    expect(readFileSync(path, "utf8")).toBe(BEFORE);
  });

  it("writes nothing at all: no new file, no declarations beside a .js, nothing on render's stdout", () => {
    const dir = leakyProject();
    const gen = failbook(["gen", "ts", "--out", "lib/failbook.js"], { cwd: dir });
    expect(gen.code).toBe(1);
    expect(existsSync(join(dir, "lib"))).toBe(false);
    const render = failbook(["render", "html"], { cwd: dir });
    expect(render).toMatchObject({ code: 1, stdout: "" });
    expect(render.stderr).toContain("failbook: nothing written to stdout: 2 strings");
    expect(readdirSync(dir).sort()).toEqual(["failbook.yaml", "playbooks"]);
  });

  it("flags nothing when the config turns the rule off, as lint does", () => {
    const dir = leakyProject();
    writeFileSync(join(dir, "failbook.yaml"), `${readFileSync(join(dir, "failbook.yaml"), "utf8")}rules:\n  secret-in-project: off\n`);
    expect(failbook(["gen", "ts", "--out", "failbook.ts"], { cwd: dir }).code).toBe(0);
  });
});
