/** The package version, from the nearest package.json above this module (dist/, dist/bundle/ or src/). */
import { readFileSync } from "node:fs";

export const VERSION: string = (() => {
  for (const up of ["../package.json", "../../package.json", "../../../package.json"]) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), "utf8")) as { name?: string; version?: string };
      if (pkg.name === "failbook" && pkg.version) return pkg.version;
    } catch {
      // not here; look one directory up
    }
  }
  return "0.0.0";
})();
