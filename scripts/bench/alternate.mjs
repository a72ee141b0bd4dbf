// Whole commands in turns, in one sitting: each round runs every command once, the order
// rotated each round, and reports per command the medians (wall by process.hrtime around the
// spawn; CPU, user + system, and peak RSS by /usr/bin/time) and the median of each round's
// ratio to the first command, which a shared machine's drift disturbs less than a ratio of
// medians. How docs/performance.md compares builds (issue 38).
//
//   node scripts/bench/alternate.mjs CONFIG.json [ROUNDS]
//   CONFIG: {"title": "...", "runs": [{"name": "main", "argv": ["node", "/path/bin/failbook.js", "lint"], "cwd": "...", "rm": "file removed before each run (optional)"}, ...]}
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import os from "node:os";
const [cfgPath, roundsArg] = process.argv.slice(2);
const cfg = JSON.parse(readFileSync(cfgPath, "utf8"));
const rounds = Number(roundsArg ?? 10);
const med = (v) => { const s = [...v].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const res = cfg.runs.map(() => []);
const loads = [os.loadavg()[0]];
for (let r = 0; r < rounds; r++) {
  const order = cfg.runs.map((_, i) => (i + r) % cfg.runs.length);
  for (const i of order) {
    const c = cfg.runs[i];
    if (c.rm) rmSync(c.rm, { force: true });
    const t0 = process.hrtime.bigint();
    const t = spawnSync("/usr/bin/time", ["-f", "%e %U %S %M", ...c.argv], { cwd: c.cwd, encoding: "utf8", maxBuffer: 1 << 30 });
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    const last = t.stderr.trim().split("\n").pop().split(" ").map(Number);
    res[i].push({ wall, cpu: last[1] + last[2], rss: last[3] / 1024, status: t.status });
  }
  loads.push(os.loadavg()[0]);
}
console.log(`${cfg.title ?? cfgPath}: ${rounds} rounds, load ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`);
for (let i = 0; i < cfg.runs.length; i++) {
  const x = res[i];
  const ratio = (k) => med(x.map((m, r) => m[k] / res[0][r][k]));
  console.log(`${cfg.runs[i].name.padEnd(28)} wall ${med(x.map((m) => m.wall)).toFixed(4)} s  cpu ${med(x.map((m) => m.cpu)).toFixed(3)} s  rss ${med(x.map((m) => m.rss)).toFixed(0)} MB  exit ${[...new Set(x.map((m) => m.status))]}  | ÷ first: wall ${ratio("wall").toFixed(3)} cpu ${ratio("cpu").toFixed(3)}`);
}
console.log("walls:", JSON.stringify(res.map((x) => x.map((m) => +m.wall.toFixed(3)))));
