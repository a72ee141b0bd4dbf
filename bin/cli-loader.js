// Loads the bundled CLI (dist/bundle/cli.cjs) with the V8 code cache the build made for it
// (dist/bundle/cli.cjs.cache): deserialising compiled code is several times faster than
// parsing and compiling the bundle at every start. A cache made by another Node version is
// rejected by V8 and the bundle compiles as usual. Both files belong to the installed package:
// nothing is cached at run time, so nothing outside the package can supply code.
"use strict";
const { readFileSync } = require("node:fs");
const { createRequire } = require("node:module");
const { dirname, join } = require("node:path");
const { pathToFileURL } = require("node:url");
const vm = require("node:vm");

const BUNDLE = join(__dirname, "..", "dist", "bundle", "cli.cjs");
const CODE_CACHE = `${BUNDLE}.cache`;
/**
 * The build writes the bundle inside this CommonJS-style wrapper (on its first line, so line
 * numbers in stack traces hold) and closes it with WRAPPER_END: the file is one function
 * expression, compiled as read. Code from V8's cache cannot call import() on Node 20: the
 * bundle imports its ES module entries (the terminal views) through __failbookImport,
 * relative to itself.
 */
const WRAPPER_START = "(function (exports, require, module, __filename, __dirname, __failbookImport) {";
const WRAPPER_END = "\n})";

/** The bundle's exports and its compiled script; undefined when there is no bundle (no build yet). */
function loadBundledCli() {
  let source;
  try {
    // The build writes ASCII alone (scripts/bundle.mjs), so Latin-1 reads it exactly: one byte
    // a character, outside V8's heap (Node makes a string this large external), and compiled
    // as it is, where UTF-8 decoding and a wrapper added here each copied the 2 MB again.
    source = readFileSync(BUNDLE, "latin1");
  } catch (e) {
    if (e.code === "ENOENT") return undefined;
    throw e;
  }
  let cachedData;
  try {
    cachedData = readFileSync(CODE_CACHE);
  } catch {
    // no cache: compile
  }
  const script = new vm.Script(source, { filename: BUNDLE, cachedData });
  const module = { exports: {} };
  const importBeside = (specifier) => import(new URL(specifier, pathToFileURL(BUNDLE)).href);
  script.runInThisContext()(module.exports, createRequire(BUNDLE), module, BUNDLE, dirname(BUNDLE), importBeside);
  return { exports: module.exports, script };
}

module.exports = { BUNDLE, CODE_CACHE, WRAPPER_START, WRAPPER_END, loadBundledCli };
