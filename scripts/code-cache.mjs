// Makes dist/bundle/cli.cjs.cache (see scripts/bundle.mjs): loads the bundle as bin/failbook.js
// does, runs the everyday commands on the shipped project (their output discarded), and
// writes V8's cache of the code compiled by then.
import { writeFileSync } from "node:fs";
import { CODE_CACHE, loadBundledCli } from "../bin/cli-loader.js";

const loaded = loadBundledCli();
if (!loaded) throw new Error("dist/bundle/cli.cjs is missing: run the bundle first");
const { main } = loaded.exports;
for (const args of [["--version"], ["lint"]]) {
  await main(["node", "failbook", ...args]);
}
process.exitCode = 0;
writeFileSync(CODE_CACHE, loaded.script.createCachedData());
