#!/usr/bin/env node
// The failbook command line. `npm install` builds dist/: the bundled CLI when present
// (fast start-up), else the plain compiled modules.

// A reader that closes early (`failbook render | head`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e) => {
    if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw e;
  });
}

const { main } = await import("../dist/bundle/main.js").catch((e) => {
  if (e?.code !== "ERR_MODULE_NOT_FOUND") throw e;
  return import("../dist/cli/main.js");
});

process.exitCode = await main(process.argv);
