/**
 * The package's own files, found from this module whether it runs from src/, dist/ or the
 * bundle in dist/bundle/: the root is the nearest directory above holding failbook's package.json.
 */
import { readFileSync } from "node:fs";

function findRoot(): { root: URL; version: string } | undefined {
  for (const up of ["../", "../../", "../../../"]) {
    const root = new URL(up, import.meta.url);
    try {
      const pkg = JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as { name?: string; version?: string };
      if (pkg.name === "failbook") return { root, version: pkg.version ?? "0.0.0" };
    } catch {
      // not here; look one directory up
    }
  }
  return undefined;
}

const found = findRoot();

export const VERSION: string = found?.version ?? "0.0.0";

/** A file of the installed package, e.g. `playbooks/registry.yaml`. */
export function packageFile(path: string): URL {
  if (!found) throw new Error("failbook's package.json was not found above its modules");
  return new URL(path, found.root);
}
