#!/usr/bin/env node
// The failbook command line. `npm install` builds dist/: the bundled CLI when present
// (fast start-up), else the plain compiled modules.
const { main } = await import("../dist/bundle/main.js").catch((e) => {
  if (e?.code !== "ERR_MODULE_NOT_FOUND") throw e;
  return import("../dist/cli/main.js");
});

process.exitCode = await main(process.argv);
