#!/usr/bin/env node
// The failbook command line. `npm install` builds dist/: the bundled CLI with its code cache
// when present (fast start-up, bin/cli-loader.js), else the plain compiled modules.
import { loadBundledCli } from "./cli-loader.js";

// A reader that closes early (`failbook render | head`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e) => {
    if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw e;
  });
}

const { main } = loadBundledCli()?.exports ?? (await import("../dist/cli/main.js"));

process.exitCode = await main(process.argv);
