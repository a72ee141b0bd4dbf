/**
 * What kind of module `gen ts --out FILE` writes, by the file's name as Node and TypeScript
 * read it (SPEC 21): `.ts`, `.mts`, `.cts` TypeScript; `.mjs` an ES module, `.cjs`
 * CommonJS, `.js` whichever the `"type"` of the nearest package.json above it says
 * (CommonJS without one), each JavaScript file with its declarations beside it.
 */
import { basename, dirname, join } from "node:path";
import { UsageError } from "failbook-runtime/model/errors.js";
import { ancestors, pathExists, readTextFile } from "../util/fs.js";

/** TypeScript, or JavaScript as an ES module or as CommonJS. */
export type ModuleKind = "ts" | "esm" | "cjs";

export interface ModuleOutput {
  module: ModuleKind;
  /** For JavaScript: the declarations file beside it (`x.js` -> `x.d.ts`, `.mjs` -> `.d.mts`, `.cjs` -> `.d.cts`). */
  declarations?: string;
}

/** The module `out` names; `shown` is how messages name it. A name of no module kind is a usage error. */
export function moduleOutput(out: string, shown: string): ModuleOutput {
  const name = basename(out);
  const ext = /\.d\.[mc]?ts$/.test(name) ? "declarations" : /\.[mc]?[jt]s$/.exec(name)?.[0];
  const declarations = (to: string) => out.slice(0, -ext!.length) + to;
  switch (ext) {
    case ".ts":
    case ".mts":
    case ".cts":
      return { module: "ts" };
    case ".mjs":
      return { module: "esm", declarations: declarations(".d.mts") };
    case ".cjs":
      return { module: "cjs", declarations: declarations(".d.cts") };
    case ".js":
      return { module: packageType(dirname(out), shown) === "module" ? "esm" : "cjs", declarations: declarations(".d.ts") };
    default: {
      const why = ext === "declarations" ? "is a declarations file" : "names no module kind";
      throw new UsageError(`--out ${shown} ${why}: gen ts writes TypeScript (.ts, .mts, .cts) or JavaScript (.js, .mjs, .cjs, with its .d.ts beside it); name the file with one of those`);
    }
  }
}

/** The "type" of the nearest package.json above `dir`, as Node loads a `.js` file there. */
function packageType(dir: string, shown: string): "module" | "commonjs" {
  for (const at of ancestors(dir)) {
    const file = join(at, "package.json");
    if (!pathExists(file)) continue;
    const text = readTextFile(file);
    let manifest: unknown;
    try {
      manifest = JSON.parse(text);
    } catch (e) {
      throw new UsageError(`${file}: ${(e as Error).message}; Node reads its "type" to load ${shown}, so fix it first`);
    }
    const type = manifest !== null && typeof manifest === "object" ? (manifest as { type?: unknown }).type : undefined;
    return type === "module" ? "module" : "commonjs";
  }
  return "commonjs";
}
