/**
 * SPEC 17: the runtime (packages/runtime/src) is what a service ships, with no dependencies,
 * and the house is one-way: the CLI side imports the runtime, never the reverse. Every import
 * of every runtime module either stays inside packages/runtime/src or names a Node built-in.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "./helpers/cli.js";

const RUNTIME = join(REPO, "packages/runtime/src");

/** Every module specifier of a TypeScript file: static imports and re-exports, import(), require(). */
function specifiers(source: string): string[] {
  const found: string[] = [];
  const patterns = [/^\s*(?:import|export)\b[^;'"]*?\bfrom\s*["']([^"']+)["']/gm, /^\s*import\s*["']([^"']+)["']/gm, /\bimport\(\s*["']([^"']+)["']\s*\)/g, /\brequire\(\s*["']([^"']+)["']\s*\)/g];
  for (const re of patterns) for (const m of source.matchAll(re)) found.push(m[1]!);
  return found;
}

/** Why an import of the runtime module at `file` breaks the boundary, or undefined. */
function violation(file: string, specifier: string): string | undefined {
  if (specifier.startsWith(".")) {
    const target = resolve(dirname(file), specifier);
    return relative(RUNTIME, target).startsWith("..") ? `leaves the runtime (${relative(REPO, target)})` : undefined;
  }
  return specifier.startsWith("node:") ? undefined : "is a package: the runtime has no dependencies (a Node built-in is named node:...)";
}

function runtimeModules(): string[] {
  return readdirSync(RUNTIME, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

describe("the runtime imports nothing outside itself", () => {
  it.each([
    ["engine/dispatch.ts", 'import type { Playbook } from "../model/playbook.js";', []],
    ["engine/actions/retry.ts", 'import { decideRetry } from "../retry.js";', []],
    ["replay/writer.ts", 'import { createGzip } from "node:zlib";', []],
    ["engine/redact.ts", 'import { compileUserPattern } from "../../../../src/load/pattern.js";', ["leaves the runtime (src/load/pattern.js)"]],
    ["engine/pattern.ts", 'import type { RE2JS } from "re2js";', ["is a package: the runtime has no dependencies (a Node built-in is named node:...)"]],
    ["telemetry/otel.ts", 'const api = require("@opentelemetry/api");', ["is a package: the runtime has no dependencies (a Node built-in is named node:...)"]],
    ["engine/x.ts", 'export { x } from "failbook-runtime/engine/y.js";\nconst y = await import("chalk");', ["is a package: the runtime has no dependencies (a Node built-in is named node:...)", "is a package: the runtime has no dependencies (a Node built-in is named node:...)"]],
  ])("%s: %s", (file, source, expected) => {
    const found = specifiers(source).map((s) => violation(join(RUNTIME, file), s)).filter((v) => v !== undefined);
    expect(found).toEqual(expected);
  });

  it("holds for every module of packages/runtime/src", () => {
    const modules = runtimeModules();
    expect(modules.length).toBeGreaterThan(20);
    const problems: string[] = [];
    for (const file of modules) {
      for (const s of specifiers(readFileSync(file, "utf8"))) {
        const why = violation(file, s);
        if (why !== undefined) problems.push(`${relative(REPO, file)}: "${s}" ${why}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
