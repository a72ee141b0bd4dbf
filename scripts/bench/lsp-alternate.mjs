// The language server's first edits after opening (lsp.mjs's firstEdits), builds in turns in
// one sitting: each round starts one server of each build for each place, the order of the
// builds reversed every other round; per build and place, the slowest of the first three
// edits, median over the rounds. How docs/performance.md compares builds (issue 38).
//
//   node scripts/bench/lsp-alternate.mjs ROUNDS NAME=BIN.js NAME=BIN.js ...   (on .bench/10000)
import os from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { firstEdits } from "./lsp.mjs";

const dir = join(dirname(fileURLToPath(import.meta.url)), "../../.bench/10000");
const [roundsArg, ...builds] = process.argv.slice(2);
const bins = builds.map((b) => [b.slice(0, b.indexOf("=")), b.slice(b.indexOf("=") + 1)]);
const places = ["middle", "first", "rename-middle", "rename-first"];
const rounds = Number(roundsArg ?? 3);
const med = (v) => { const s = [...v].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const res = {};
const loads = [os.loadavg()[0]];
for (let r = 0; r < rounds; r++) {
  for (const at of places) {
    for (const [name, bin] of r % 2 === 0 ? bins : [...bins].reverse()) {
      const [times] = await firstEdits({ bin, dir, at, servers: 1, edits: 3 });
      ((res[at] ??= {})[name] ??= []).push(times);
    }
  }
  loads.push(os.loadavg()[0]);
}
console.log(`lsp first edits after opening: ${rounds} rounds, load ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`);
for (const at of places) {
  for (const [name] of bins) {
    const runs = res[at][name];
    console.log(`${at.padEnd(14)} ${name.padEnd(14)} slowest of 3, median ${med(runs.map((t) => Math.max(...t))).toFixed(0)} ms; runs ${runs.map((t) => t.map((x) => x.toFixed(0)).join("/")).join(", ")}`);
  }
}
