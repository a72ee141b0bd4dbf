// What a package costs a project that installs it (SPEC 17): `npm pack` in its folder, then
// `npm install ./TARBALL --offline` into an empty folder, alone. Used by `npm run bench`
// (scripts/bench.mjs) and by test/install.test.ts.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The packages installed under a project's node_modules, nested ones too, sorted. */
export function installedPackages(project) {
  const found = [];
  const walk = (modules) => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules)) {
      if (entry.startsWith(".")) continue;
      const names = entry.startsWith("@") ? readdirSync(join(modules, entry)).map((n) => `${entry}/${n}`) : [entry];
      for (const name of names) {
        found.push(name);
        walk(join(modules, name, "node_modules"));
      }
    }
  };
  walk(join(project, "node_modules"));
  return found.sort();
}

/** Bytes of the files under a folder (their sizes, as `du --apparent-size` counts them). */
export function bytesUnder(dir) {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) total += statSync(join(e.parentPath ?? e.path, e.name)).size;
  return total;
}

function run(command, args, cwd) {
  const r = spawnSync(command, args, { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** Pack the package in `dir` (as built) and install it alone: its packed and unpacked sizes, what it installs. */
export function footprint(dir) {
  const work = mkdtempSync(join(tmpdir(), "failbook-footprint-"));
  try {
    const [info] = JSON.parse(run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], dir));
    const project = join(work, "project");
    mkdirSync(project);
    run("npm", ["init", "-y"], project);
    run("npm", ["install", join(work, info.filename), "--offline", "--no-audit", "--no-fund", "--loglevel=error"], project);
    return { packedBytes: info.size, unpackedBytes: info.unpackedSize, installedBytes: bytesUnder(join(project, "node_modules")), packages: installedPackages(project).length };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
