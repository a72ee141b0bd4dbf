/** Config discovery (SPEC section 1): --config, else the current directory, else the nearest parent. */
import { existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { UsageError } from "failbook-runtime/model/errors.js";

export const CONFIG_NAMES = ["failbook.yaml", "failbook.yml"];

/** The absolute path of the config file to use. Throws UsageError when there is none. */
export function findConfig(explicit: string | undefined, cwd: string = process.cwd()): string {
  if (explicit) {
    const path = resolve(cwd, explicit);
    if (!existsSync(path)) throw new UsageError(`config file not found: ${explicit}`);
    if (statSync(path).isDirectory()) {
      const inside = CONFIG_NAMES.map((n) => join(path, n)).find((p) => existsSync(p));
      if (!inside) throw new UsageError(`no failbook.yaml in directory ${explicit}`);
      return inside;
    }
    return path;
  }
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    for (const name of CONFIG_NAMES) {
      const candidate = join(dir, name);
      if (existsSync(candidate)) return candidate;
    }
    if (dirname(dir) === dir) break;
  }
  throw new ConfigNotFound();
}

/**
 * No config in the folder or any parent. The message names how the caller passes one: a
 * library caller its `{ config }` option, the CLI (which says so itself) its `--config` flag.
 */
export class ConfigNotFound extends UsageError {
  constructor(how = 'loadProject({ config: "path/to/failbook.yaml" })') {
    super(`no failbook.yaml found in this directory or any parent; run \`failbook init\` to create one, or pass ${how}`);
  }
}
