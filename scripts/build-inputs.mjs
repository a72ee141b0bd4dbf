// What dist/ was built from: a digest of every file the build reads (the sources, the schemas,
// the build's scripts, the manifests and the lock file, which pins the bundled dependencies)
// and of the Node that built it (the CLI's V8 code cache is Node's own). The build writes it
// into dist/ when it passes; bundle.mjs empties dist/ first, so a digest there always names
// a finished build.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

const STAMP = "dist/.build-inputs";
const TREES = ["src", "packages/runtime/src", "schemas", "scripts", "bin"];
const FILES = ["package.json", "package-lock.json", "tsconfig.json", "packages/runtime/package.json"];
/** What a build makes: without them no digest makes dist/ current. */
const OUTPUTS = ["dist/index.js", "dist/index.cjs", "dist/index.d.ts", "dist/bundle/cli.cjs", "packages/runtime/dist/index.js", "packages/runtime/dist/index.cjs"];

/** The digest of the build's inputs in `root` as they are now. */
export function inputsDigest(root) {
  const files = [...FILES.filter((f) => existsSync(join(root, f)))];
  for (const tree of TREES) {
    const dir = join(root, tree);
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      // The build's own outputs under src/ (validators, embedded sources) are not its inputs.
      if (entry.isFile() && !entry.name.includes(".generated.")) files.push(relative(root, join(entry.parentPath ?? entry.path, entry.name)));
    }
  }
  const hash = createHash("sha256").update(`node ${process.version} ${process.arch}\n`);
  for (const file of files.sort()) hash.update(`${file}\n`).update(readFileSync(join(root, file))).update("\n");
  return hash.digest("hex");
}

/** Whether dist/ is a finished build of the inputs as they are now. */
export function builtFrom(root) {
  if (!OUTPUTS.every((f) => existsSync(join(root, f)))) return false;
  try {
    return readFileSync(join(root, STAMP), "utf8").trim() === inputsDigest(root);
  } catch {
    return false;
  }
}

export function writeBuiltFrom(root) {
  writeFileSync(join(root, STAMP), `${inputsDigest(root)}\n`);
}
