// Bundles the compiled CLI (dist/cli/main.js) into one CommonJS file, dist/bundle/cli.cjs,
// and has V8 cache its compiled code beside it (dist/bundle/cli.cjs.cache), so that start-up
// reads one file and deserialises code instead of parsing and compiling half a megabyte
// (Node 20 keeps no code cache for ES modules). bin/cli-loader.js loads the two.
//
// Heavy modules that only some commands use (Ink, React, the TypeScript compiler, the linear
// regex engine, the ReDoS checker, the MCP SDK) stay external and load on demand. The replay
// worker is an ES module entry of its own: `new Worker(new URL("./replay-worker.js",
// import.meta.url))` from the bundle finds it beside cli.cjs.
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "dist/bundle");
// Start clean so that nothing stale lingers.
rmSync(out, { recursive: true, force: true });
const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  external: ["ink", "ink/*", "react", "react/*", "typescript", "playwright-core", "re2js", "recheck", "@modelcontextprotocol/sdk", "@modelcontextprotocol/sdk/*", "zod", "zod/*"],
  logLevel: "warning",
  legalComments: "none",
};
// The ES module entries: the workers (replay's, and the thread that loads its project), and
// the terminal views, which import Ink (an ES module graph with top-level await, which
// CommonJS cannot require).
const ESM_ENTRIES = {
  "replay-worker": "dist/replay/replay-worker.js",
  "setup-worker": "dist/replay/setup-worker.js",
  "tui-progress": "dist/tui/progress.js",
  "tui-explore": "dist/tui/explore.js",
};
await build({
  ...common,
  entryPoints: Object.fromEntries(Object.entries(ESM_ENTRIES).map(([name, file]) => [name, join(root, file)])),
  outdir: out,
  format: "esm",
  splitting: true,
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
});
// The CommonJS bundle imports the terminal views from their entries, at run time, through the
// loader's import function (bin/cli-loader.js passes it in): code compiled from V8's cache
// cannot call import() itself on Node 20.
const terminalViews = {
  name: "terminal-views",
  setup(b) {
    b.onResolve({ filter: /^\.\.\/tui\/(progress|explore)\.js$/ }, (args) => ({ path: `./tui-${/(progress|explore)/.exec(args.path)[1]}.js`, external: true }));
  },
};
await build({
  ...common,
  entryPoints: [join(root, "dist/cli/main.js")],
  outfile: join(out, "cli.cjs"),
  format: "cjs",
  plugins: [terminalViews],
  // The modules find their package and their neighbours from import.meta.url: in the bundle, that of cli.cjs.
  define: { "import.meta.url": "__failbookModuleUrl" },
  banner: { js: 'const __failbookModuleUrl = require("node:url").pathToFileURL(__filename).href;' },
  write: false,
}).then(({ outputFiles }) => {
  const [bundle] = outputFiles;
  const text = bundle.text.replace(/\bimport\((".\/tui-(?:progress|explore)\.js")\)/g, "__failbookImport($1)");
  if (/[^\w.$]import\(/.test(text)) throw new Error("cli.cjs calls import(): make the module an entry of the ES module build and load it through __failbookImport");
  writeFileSync(bundle.path, text);
});

// The code cache: made by running the commands people run most, so that the functions they
// call are compiled in it too. A failure only costs the cache (start-up compiles instead).
const trained = spawnSync(process.execPath, [join(root, "scripts/code-cache.mjs")], { cwd: root, stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" } });
if (trained.status !== 0) console.error(`bundle: no code cache (scripts/code-cache.mjs exited ${trained.status ?? trained.signal}); start-up will compile the bundle`);
