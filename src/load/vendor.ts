/**
 * The two engines failbook's loader needs only for a project with patterns of its own: re2js
 * (the linear-time engine for redact: and code_pattern) and recheck (the ReDoS checker for
 * message_matches). failbook carries each bundled in one file of its package,
 * dist/vendor/NAME.cjs (scripts/bundle.mjs), so installing failbook installs neither package
 * nor recheck's optional native binaries; each is loaded on first use. Run from its sources
 * (tests before a build), failbook loads the package itself, a devDependency.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { packageFile } from "../version.js";

export function loadVendored<T>(name: "re2js" | "recheck"): T {
  const require = createRequire(import.meta.url);
  const bundled = fileURLToPath(packageFile(`dist/vendor/${name}.cjs`));
  return require(existsSync(bundled) ? bundled : name) as T;
}
