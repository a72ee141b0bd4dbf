#!/usr/bin/env node
// The failbook command line. The work lives in dist/ (built by `npm install`).
import { main } from "../dist/cli/main.js";

process.exitCode = await main(process.argv);
