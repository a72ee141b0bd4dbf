// The build: JSON Schemas -> standalone validators, the classifier's source -> a string
// for codegen, a type check (tsc), the bundles (esbuild: the library and the CLI), the
// library's declarations in one file. The bundles are made even when tsc reports type
// errors, so the CLI never runs stale code; the build's exit status is still tsc's.
//
// `--if-stale` (npm's `prepare`) builds only when dist/ was not made from these very inputs:
// a build that passes writes dist/.build-inputs, a digest of what it read (scripts/build-inputs.mjs).
// `npx failbook` in a clone installs the clone into npx's cache as a link and runs its
// `prepare`; with the build current that costs nothing, where a second build took a minute.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { builtFrom, writeBuiltFrom } from "./build-inputs.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const step = (args) => spawnSync(process.execPath, args, { cwd: root, stdio: "inherit" }).status ?? 1;

if (process.argv.includes("--if-stale") && builtFrom(root)) {
  console.error("build: dist/ is current (built from these sources by this Node); nothing to do");
  process.exit(0);
}
if (step(["scripts/compile-schemas.mjs"]) !== 0) process.exit(1);
if (step(["scripts/embed-classifier.mjs"]) !== 0) process.exit(1);
const tsc = step([join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"]);
if (step(["scripts/bundle.mjs"]) !== 0) process.exit(1);
if (step(["scripts/declarations.mjs"]) !== 0) process.exit(1);
if (tsc === 0) writeBuiltFrom(root);
process.exit(tsc);
