// Bundles the compiled CLI (dist/cli/main.js) into one file, dist/failbook-cli.js, so that
// start-up resolves and reads one module instead of dozens. Heavy modules that only some
// commands use (Ink, React, the TypeScript compiler, the linear regex engine, the ReDoS checker, the MCP SDK) stay external and
// load on demand.
import { build } from "esbuild";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// Chunk names carry content hashes: start clean so that no stale chunk lingers.
rmSync(join(root, "dist/bundle"), { recursive: true, force: true });
await build({
  // The replay worker is an entry of its own: `new Worker(new URL("./replay-worker.js", import.meta.url))`
  // from any chunk of the bundle finds it beside them.
  entryPoints: { main: join(root, "dist/cli/main.js"), "replay-worker": join(root, "dist/replay/replay-worker.js") },
  outdir: join(root, "dist/bundle"),
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: ["ink", "ink/*", "react", "react/*", "typescript", "playwright-core", "re2js", "recheck", "@modelcontextprotocol/sdk", "@modelcontextprotocol/sdk/*", "zod", "zod/*"],
  logLevel: "warning",
  legalComments: "none",
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
});
