// Bundles the sources (src/, and the runtime's packages/runtime/src/, which src/ imports as
// `failbook-runtime/...`) into what the two packages ship:
//
// - failbook-runtime: packages/runtime/dist/index.js (ES module) and index.cjs (CommonJS),
//   nothing but its own code and Node's built-ins.
// - failbook: the library, dist/index.js and dist/index.cjs; the CLI, one CommonJS file,
//   dist/bundle/cli.cjs, with a V8 code cache beside it (dist/bundle/cli.cjs.cache), so that
//   start-up reads one file and deserialises code instead of parsing and compiling it (Node 20
//   keeps no code cache for ES modules; bin/cli-loader.js loads the two); and ES module
//   entries for what only one command needs: the replay worker, the terminal views (Ink and
//   React), the MCP server (the MCP SDK and zod). The regex engines the loader needs only for
//   a project's own patterns, re2js and recheck, are one file each in dist/vendor/, loaded on
//   first use (src/load/vendor.ts).
//
// failbook's dependencies are all bundled, so installing it installs one package (SPEC 17);
// their licences are gathered in dist/THIRD-PARTY-NOTICES.md.
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { WRAPPER_END, WRAPPER_START } from "../bin/cli-loader.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "dist/bundle");
const runtimeDist = join(root, "packages/runtime/dist");
// Start clean so that nothing stale lingers.
for (const dir of [join(root, "dist"), runtimeDist]) rmSync(dir, { recursive: true, force: true });

const inputs = new Set();
async function bundle(options) {
  const result = await build({ bundle: true, platform: "node", target: "node20", logLevel: "warning", legalComments: "none", metafile: true, ...options });
  for (const input of Object.keys(result.metafile.inputs)) inputs.add(input);
  return result;
}
const common = {
  // Ink's developer tools load only with DEV=true, and need a package failbook does not carry.
  external: ["react-devtools-core"],
  // React's production build, as the terminal views always run it.
  define: { "process.env.NODE_ENV": '"production"' },
};
// ES module output that runs CommonJS dependencies: they call require() for Node's built-ins.
const ESM_REQUIRE = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";
// CommonJS output of modules that find their package and neighbours from import.meta.url.
const CJS_URL = { define: { ...common.define, "import.meta.url": "__failbookModuleUrl" }, banner: { js: 'const __failbookModuleUrl = require("node:url").pathToFileURL(__filename).href;' } };

// failbook-runtime: no dependencies to bundle, no import.meta.
// failbook-runtime/redis (SPEC 23) is an entry of its own: the Redis fleet store, for the services that share state.
for (const entry of ["index", "redis"]) {
  const source = entry === "index" ? "packages/runtime/src/index.ts" : `packages/runtime/src/${entry}/index.ts`;
  for (const [format, ext] of [["esm", "js"], ["cjs", "cjs"]]) {
    await bundle({ entryPoints: [join(root, source)], outfile: join(runtimeDist, `${entry}.${ext}`), format });
  }
}

// The ES module entries: the workers (replay's, the thread that loads a replay's project,
// storm's, the language server's pattern checker), and the views of single commands. Ink is an ES module graph with top-level await,
// which CommonJS cannot require.
const ESM_ENTRIES = {
  "replay-worker": "src/replay/replay-worker.ts",
  "setup-worker": "src/replay/setup-worker.ts",
  "tui-progress": "src/tui/progress.tsx",
  "tui-explore": "src/tui/explore.tsx",
  "mcp-server": "src/mcp/server.ts",
  "lsp-server": "src/lsp/server.ts",
  "pattern-worker": "src/lsp/pattern-worker.ts",
  "storm-worker": "src/storm/storm-worker.ts",
};
await bundle({
  ...common,
  entryPoints: Object.fromEntries(Object.entries(ESM_ENTRIES).map(([name, file]) => [name, join(root, file)])),
  outdir: out,
  format: "esm",
  splitting: true,
  banner: { js: ESM_REQUIRE },
});
// The CLI: written in ASCII as one function expression (bin/cli-loader.js's WRAPPER_START and
// WRAPPER_END) that the loader compiles as read. It imports those entries at run time through
// the loader's import function (bin/cli-loader.js passes it in): code compiled from V8's cache
// cannot call import() itself on Node 20.
const ENTRY_IMPORTS = /^\.\.\/(tui\/progress|tui\/explore|mcp\/server|lsp\/server)\.js$/;
const separateEntries = {
  name: "separate-entries",
  setup(b) {
    b.onResolve({ filter: ENTRY_IMPORTS }, (args) => ({ path: `./${ENTRY_IMPORTS.exec(args.path)[1].replace("/", "-")}.js`, external: true }));
  },
};
// commander requires child_process as it loads, for subcommands that are executables of
// their own (failbook has none): it is required on first use instead, which spares every
// start loading it (child_process, dgram and their internals: 2-3 ms).
const COMMANDER_CHILD_PROCESS = "const childProcess = require('node:child_process');";
const lazyChildProcess = {
  name: "lazy-child-process",
  setup(b) {
    b.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => {
      const text = readFileSync(args.path, "utf8");
      if (!text.includes(COMMANDER_CHILD_PROCESS)) {
        console.error("bundle: commander's require of child_process has changed; it loads at start-up again");
        return undefined;
      }
      return { contents: text.replace(COMMANDER_CHILD_PROCESS, "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };"), loader: "js" };
    });
  },
};
await bundle({
  ...common,
  ...CJS_URL,
  entryPoints: [join(root, "src/cli/main.ts")],
  outfile: join(out, "cli.cjs"),
  format: "cjs",
  plugins: [separateEntries, lazyChildProcess],
  write: false,
}).then(({ outputFiles }) => {
  const [cli] = outputFiles;
  const text = cli.text.replace(/\bimport\(("\.\/(?:tui-progress|tui-explore|mcp-server|lsp-server)\.js")\)/g, "__failbookImport($1)");
  if (/[^\w.$]import\(/.test(text)) throw new Error("cli.cjs calls import(): make the module an entry of the ES module build and load it through __failbookImport");
  writeFileSync(cli.path, `${WRAPPER_START}${asciiComments(text)}${WRAPPER_END}`);
});

// The library, as `import ... from "failbook"` and `require("failbook")` load it.
await bundle({ ...common, entryPoints: [join(root, "src/index.ts")], outfile: join(root, "dist/index.js"), format: "esm", banner: { js: ESM_REQUIRE } });
await bundle({ ...common, ...CJS_URL, entryPoints: [join(root, "src/index.ts")], outfile: join(root, "dist/index.cjs"), format: "cjs" });

// The regex engines, one CommonJS file each. recheck runs its pure JavaScript backend in the
// process (src/load/regex-safety.ts): its native binary, its jar and its worker are never needed.
for (const name of ["re2js", "recheck"]) {
  await bundle({ stdin: { contents: `module.exports = require(${JSON.stringify(name)});`, resolveDir: root }, outfile: join(root, `dist/vendor/${name}.cjs`), format: "cjs", external: ["./synckit-worker"] });
}

writeNotices();

// The code cache: made by running the commands people run most, so that the functions they
// call are compiled in it too. A failure only costs the cache (start-up compiles instead).
const trained = spawnSync(process.execPath, [join(root, "scripts/code-cache.mjs")], { cwd: root, stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" } });
if (trained.status !== 0) console.error(`bundle: no code cache (scripts/code-cache.mjs exited ${trained.status ?? trained.signal}); start-up will compile the bundle`);

/**
 * The bundle with every non-ASCII character of its comments escaped. esbuild writes strings,
 * regular expressions and names in ASCII (its default charset) but copies the comments it
 * keeps as they are, and one character outside Latin-1 (a `…` in a comment) makes V8 hold
 * the whole 2 MB source as UTF-16: twice the memory, and a slower read and scan at every
 * start. Anything else non-ASCII would be esbuild's to escape: the build stops on it.
 */
function asciiComments(text) {
  return text.replace(/[^\x00-\x7f]/gu, (c, at) => {
    const before = text.slice(text.lastIndexOf("\n", at) + 1, at);
    if (!/\/\/|\/\*/.test(before) && !before.trimStart().startsWith("*")) throw new Error(`cli.cjs: a non-ASCII character outside a comment at offset ${at}: ${JSON.stringify(before.slice(-40) + c)}`);
    return `\\u{${c.codePointAt(0).toString(16)}}`;
  });
}

/** Every bundled package's name, version and licence text, as their licences ask. */
function writeNotices() {
  const packages = new Map();
  for (const input of inputs) {
    const m = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (!m) continue;
    const dir = join(root, input.slice(0, m.index + m[0].length));
    if (packages.has(dir)) continue;
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    const licence = ["LICENSE", "LICENSE.md", "LICENSE.txt", "license", "license.md", "LICENCE"].map((f) => join(dir, f)).find((f) => existsSync(f));
    packages.set(dir, { name: pkg.name, version: pkg.version, license: pkg.license, text: licence ? readFileSync(licence, "utf8").trim() : `(${pkg.license}; no licence file in the package)` });
  }
  const sorted = [...packages.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const text = ["# Third-party notices", "", "failbook's bundles (dist/) carry the code of these packages.", "", ...sorted.flatMap((p) => [`## ${p.name} ${p.version} (${p.license})`, "", "```", p.text, "```", ""])].join("\n");
  mkdirSync(join(root, "dist"), { recursive: true });
  writeFileSync(join(root, "dist/THIRD-PARTY-NOTICES.md"), text);
}
