/**
 * SPEC 21 "Plain JavaScript": `gen ts --out FILE` writes the module kind the file's name says,
 * JavaScript with its declarations beside it, so the README's CommonJS example runs in a
 * project `npm init -y` made with no TypeScript installed; ES modules import it; the
 * declarations type-check a consumer under strict; and the JavaScript behaves exactly as the
 * TypeScript module does.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { REPO, failbook } from "./helpers/cli.js";
import { importTypeScript, STRICTEST, typeCheck } from "./helpers/typescript.js";

function sh(command: string, args: string[], cwd: string): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(command, args, { cwd, encoding: "utf8", env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NO_COLOR: "1" } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** A project as `npm init -y` makes it (its "type" set when asked), with failbook's starter and failbook-runtime linked in: no TypeScript. */
function npmProject(type?: "module"): string {
  const dir = mkdtempSync(join(tmpdir(), "failbook-js-"));
  expect(sh("npm", ["init", "-y"], dir).code).toBe(0);
  if (type) expect(sh("npm", ["pkg", "set", `type=${type}`], dir).code).toBe(0);
  expect(failbook(["init", "."], { cwd: dir }).code).toBe(0);
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(join(REPO, "packages/runtime"), join(dir, "node_modules/failbook-runtime"), "dir");
  return dir;
}

describe("gen ts writes JavaScript where the file's name says so", () => {
  it("runs the README's CommonJS example as written, in a project npm init -y made, with no TypeScript", () => {
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    const example = /^and as CommonJS[^\n]*`(npx failbook gen ts [^`]*)`[^\n]*`([^`]+\.js)`:\n\n```js\n([\s\S]*?)^```$/m.exec(readme);
    expect(example, "the README's CommonJS example").not.toBeNull();
    const [, command, file, service] = example as unknown as [string, string, string, string];
    const project = npmProject();
    expect(JSON.parse(readFileSync(join(project, "package.json"), "utf8")).type).toBe("commonjs");
    // The command as the README gives it, npx's failbook being this one.
    const gen = failbook(command.split(" ").slice(2), { cwd: project });
    expect(gen).toMatchObject({ code: 0, stderr: "" });
    expect(gen.stdout).toBe("wrote src/generated/failbook.js (12 verdicts, 18 error kinds)\nwrote src/generated/failbook.d.ts (12 verdicts, 18 error kinds)\n");
    writeFileSync(join(project, file), service);
    expect(existsSync(join(project, "node_modules/typescript"))).toBe(false);
    expect(sh(process.execPath, [file], project)).toEqual({ code: 0, stdout: "", stderr: "" });
    // And the dispatcher it made runs on the generated PROJECT.
    writeFileSync(
      join(project, file),
      `${service}dispatcher.dispatch({ id: "c1", tool: "crm.create_contact" }, (_c, n) => (n === 1 ? { status: "error", error: { kind: "timeout" } } : { status: "ok", value: 1 }), { runId: "r" }).then(({ outcome }) => console.log(outcome.kind, outcome.verdict, outcome.attempts));\n`,
    );
    expect(sh(process.execPath, [file], project)).toEqual({ code: 0, stdout: "recovered transient_timeout 2\n", stderr: "" });
  });

  it("imports a .mjs, and a .js under \"type\": \"module\", and classifies and dispatches", () => {
    const project = npmProject("module");
    for (const out of ["src/failbook.js", "src/fb.mjs"]) expect(failbook(["gen", "ts", "--out", out], { cwd: project }).code).toBe(0);
    expect(readdirSync(join(project, "src")).sort()).toEqual(["failbook.d.ts", "failbook.js", "fb.d.mts", "fb.mjs"]);
    writeFileSync(
      join(project, "service.js"),
      `import { createDispatcher } from "failbook-runtime";
import { classify, envelopeFor, PROJECT } from "./src/failbook.js";
import * as mjs from "./src/fb.mjs";
const e = { kind: "rate_limited", http_status: 429 };
console.log(classify(e), mjs.classify(e), envelopeFor(classify(e), { error: e }).retryable);
const { outcome } = await createDispatcher({ project: mjs.PROJECT }).dispatch({ id: "c1", tool: "crm.create_contact" }, (_c, n) => (n === 1 ? { status: "error", error: { kind: "timeout" } } : { status: "ok", value: 1 }), { runId: "r" });
console.log(outcome.kind, outcome.verdict, PROJECT.format === mjs.PROJECT.format);
`,
    );
    expect(sh(process.execPath, ["service.js"], project)).toEqual({ code: 0, stdout: "rate_limited rate_limited true\nrecovered transient_timeout true\n", stderr: "" });
  });

  it("writes CommonJS for a .js with no package.json above it, a .cjs anywhere, and the same bytes every time", () => {
    const dir = mkdtempSync(join(tmpdir(), "failbook-js-"));
    for (const out of [join(dir, "a.js"), join(dir, "b.cjs")]) expect(failbook(["gen", "ts", "--out", out]).code).toBe(0);
    const a = readFileSync(join(dir, "a.js"), "utf8");
    expect(a).toMatch(/^"use strict";$/m);
    expect(a).toMatch(/^exports\.classify = classify;$/m);
    expect(a).not.toMatch(/^export /m);
    expect(readFileSync(join(dir, "b.cjs"), "utf8").replace(/b\.cjs/g, "a.js")).toBe(a);
    expect(failbook(["gen", "ts", "--out", join(dir, "a.js"), "--check"]).stdout).toBe(`${join(dir, "a.js")} is up to date\n${join(dir, "a.d.ts")} is up to date\n`);
    writeFileSync(join(dir, "a.d.ts"), "stale");
    const check = failbook(["gen", "ts", "--out", join(dir, "a.js"), "--check"]);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(`${join(dir, "a.d.ts")} is stale:`);
  });

  it.each([
    ["x.txt", "names no module kind"],
    ["x.d.ts", "is a declarations file"],
  ])("refuses --out %s: exit 2, one line", (name, why) => {
    const dir = mkdtempSync(join(tmpdir(), "failbook-js-"));
    const r = failbook(["gen", "ts", "--out", join(dir, name)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`failbook: --out ${join(dir, name)} ${why}: gen ts writes TypeScript (.ts, .mts, .cts) or JavaScript (.js, .mjs, .cjs, with its .d.ts beside it); name the file with one of those\n`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("writes .d.ts, .d.cts and .d.mts declarations that type-check a consumer under strict", () => {
    const project = mkdtempSync(join(tmpdir(), "failbook-js-"));
    writeFileSync(join(project, "package.json"), '{ "type": "commonjs" }');
    for (const out of ["gen/failbook.js", "gen/fb.cjs", "gen/fb.mjs"]) expect(failbook(["gen", "ts", "--out", join(project, out)]).code).toBe(0);
    const consumer = (from: string) => `import { classify, envelopeFor, isFailureVerdict, PLAYBOOK, PROJECT, rateLimitedEnvelope, toMcpToolResult, VERDICT_INFO, type AdapterError, type FailureEnvelope, type FailureVerdict } from "${from}";
const error: AdapterError = { kind: "timeout", message: undefined };
const verdict: FailureVerdict = classify(error, { tool: "crm.create_contact" });
const envelope: FailureEnvelope = envelopeFor(verdict, { error });
const limited = rateLimitedEnvelope({ error, retry_after_ms: 1000 });
const retryClass: "transient" = VERDICT_INFO.rate_limited.class;
const retries: number = PLAYBOOK.rate_limited.max_retries;
export const used = [envelope.code, limited.code, retryClass, retries, isFailureVerdict("x"), PROJECT.format, toMcpToolResult(limited).isError];
// @ts-expect-error a misspelt kind is a compile error
export const misspelt: AdapterError = { kind: "timeuot" };
// @ts-expect-error an envelope cannot be built by hand
export const forged: FailureEnvelope = { code: "rate_limited" };
`;
    writeFileSync(join(project, "use-js.ts"), consumer("./gen/failbook.js"));
    writeFileSync(join(project, "use-cjs.cts"), consumer("./gen/fb.cjs"));
    writeFileSync(join(project, "use-mjs.mts"), consumer("./gen/fb.mjs"));
    const options: ts.CompilerOptions = {
      ...STRICTEST,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      lib: ["lib.es2022.d.ts"],
      allowImportingTsExtensions: false,
      verbatimModuleSyntax: false,
      declaration: false,
      emitDeclarationOnly: false,
      noEmit: true,
      // The declarations are what is checked.
      skipLibCheck: false,
    };
    const { program, diagnostics } = typeCheck(["use-js.ts", "use-cjs.cts", "use-mjs.mts"].map((f) => join(project, f)), options);
    expect(diagnostics).toEqual([]);
    const checked = program.getSourceFiles().map((f) => f.fileName.slice(project.length + 1)).filter((f) => f.startsWith("gen/")).sort();
    expect(checked).toEqual(["gen/failbook.d.ts", "gen/fb.d.cts", "gen/fb.d.mts"]);
  });

  it("behaves as the TypeScript module does on the shipped project: the same exports, verdicts, envelopes and PROJECT", async () => {
    const dir = mkdtempSync(join(tmpdir(), "failbook-js-"));
    for (const out of ["failbook.ts", "failbook.mjs", "failbook.cjs"]) expect(failbook(["gen", "ts", "--out", join(dir, out)]).code).toBe(0);
    type Module = Record<string, unknown> & {
      classify(e: unknown, call?: { tool?: string }): string;
      envelopeFor(code: string, input: object): object;
      toMcpToolResult(envelope: object): object;
      VERDICTS: readonly string[];
    };
    const modules: [string, Module][] = [
      ["ts", await importTypeScript<Module>({ "failbook.ts": readFileSync(join(dir, "failbook.ts"), "utf8") }, "failbook.ts")],
      ["mjs", (await import(pathToFileURL(join(dir, "failbook.mjs")).href)) as Module],
      ["cjs", createRequire(join(dir, "x.js"))(join(dir, "failbook.cjs")) as Module],
    ];
    // Every error of the shipped fixtures, with its call's tool, and each example of the registry.
    const errors: { error: unknown; tool?: string }[] = [];
    for (const file of readdirSync(join(REPO, "playbooks/fixtures"))) {
      for (const doc of parseAllDocuments(readFileSync(join(REPO, "playbooks/fixtures", file), "utf8"))) {
        const fixture = doc.toJS() as { call?: { tool?: string }; responses?: { error?: unknown }[] };
        for (const r of fixture.responses ?? []) if (r.error) errors.push({ error: r.error, tool: fixture.call?.tool });
      }
    }
    const [, reference] = modules[0]!;
    for (const e of reference.EXAMPLES as { error: unknown; tool?: string }[]) errors.push(e);
    expect(errors.length).toBeGreaterThan(30);
    const behaviour = (m: Module) => ({
      exports: Object.keys(m).sort(),
      verdicts: errors.map((e) => m.classify(e.error, { tool: e.tool })),
      envelopes: m.VERDICTS.map((code) => m.toMcpToolResult(m.envelopeFor(code, { error: { kind: "x", message: "Authorization: Bearer abcdefghijklmnop1234", side_effect_state: "none" }, details: {}, trace_id: "t" }))),
      project: JSON.stringify(m.PROJECT),
    });
    const expected = behaviour(reference);
    expect(new Set(expected.verdicts).size).toBeGreaterThan(8);
    for (const [name, m] of modules.slice(1)) expect(behaviour(m), name).toEqual(expected);
  });
});
