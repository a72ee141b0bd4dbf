#!/usr/bin/env node
// The failbook command line. `npm install` builds dist/: the bundled CLI with its code cache
// (fast start-up, bin/cli-loader.js). CommonJS (bin/package.json): Node starts a CommonJS
// entry without its ES module loader, about 10 ms sooner.
"use strict";
const { readFileSync } = require("node:fs");
const { join } = require("node:path");
const { loadBundledCli } = require("./cli-loader.js");

// A reader that closes early (`failbook render | head`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e) => {
    if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw e;
  });
}

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V" || args[0] === "-v")) {
  // The version is all `failbook --version` needs: it is read from the package's own
  // package.json (as the CLI reads it) without loading the CLI.
  process.stdout.write(`${JSON.parse(readFileSync(join(__dirname, "..", "package.json"), "utf8")).version}\n`);
} else {
  const cli = loadBundledCli();
  if (cli) {
    cli.exports.main(process.argv).then((code) => {
      process.exitCode = code;
    });
  } else {
    process.stderr.write("failbook: its build is missing (dist/bundle/cli.cjs): run `npm run build` in its folder\n");
    process.exitCode = 2;
  }
}
