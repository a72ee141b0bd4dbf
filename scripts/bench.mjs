// npm run bench: whole-process wall time and peak memory of `failbook lint` on synthetic
// projects of 100, 1,000 and 10,000 codes (two match rules each, a full playbook), beside
// bare `node -e 0` and the shipped project. Usage: node scripts/bench.mjs [--runs N] [sizes...]
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const runsFlag = args.indexOf("--runs");
const runs = runsFlag >= 0 ? Number(args[runsFlag + 1]) : 7;
const sizes = args.filter((a, i) => /^\d+$/.test(a) && args[i - 1] !== "--runs").map(Number);
const SIZES = sizes.length > 0 ? sizes : [100, 1000, 10000];
const bin = join(root, "bin/failbook.js");
// Reports the process's own peak RSS at exit, without touching failbook's code.
const rssHook = `data:text/javascript,process.on("exit",()=>process.stderr.write("\\nbench-maxrss-kb="+process.resourceUsage().maxRSS+"\\n"))`;

function writeProject(n) {
  const dir = join(root, ".bench", String(n));
  mkdirSync(join(dir, "playbooks"), { recursive: true });
  const classes = ["transient", "permanent", "state", "semantic"];
  const verdicts = [];
  const actions = [];
  for (let i = 0; i < n; i++) {
    const code = `svc${Math.floor(i / 100)}.err_${i}`;
    const cls = classes[i % classes.length];
    const retry = cls === "transient";
    verdicts.push(
      `  - code: ${code}
    class: ${cls}
    retryable: ${retry}
    side_effect: ${retry ? "none" : "unknown"}
    summary: Synthetic failure number ${i} of the benchmark registry.
    recovery: Follow the playbook action for ${code}.
    match:
      - kind: kind_${i}
      - { kind: [upstream_${i}, alt_${i}], http_status: ${500 + (i % 100)} }`,
    );
    actions.push(
      retry
        ? `  ${code}: { action: retry_with_backoff, max_retries: 2, backoff_ms: [100, 400] }`
        : i % 4 === 1
          ? `  ${code}: { action: escalate_to_human, queue: q${i % 7} }`
          : `  ${code}: { action: deprecate_tool_call, reason: synthetic, replan: true }`,
    );
  }
  verdicts.push(`  - code: unknown_error
    class: permanent
    retryable: false
    summary: Nothing matched.
    recovery: Triage.`);
  actions.push(`  unknown_error: { action: escalate_to_human, queue: triage }`);
  writeFileSync(join(dir, "failbook.yaml"), "registry: playbooks/registry.yaml\nplaybook: playbooks/playbook.yaml\n");
  writeFileSync(
    join(dir, "playbooks/registry.yaml"),
    `apiVersion: failbook/v1\nkind: Registry\nname: bench-${n}\nrevision: 1\nclasses:\n${classes.map((c) => `  ${c}: { description: ${c} }`).join("\n")}\nverdicts:\n${verdicts.join("\n")}\nfallback: unknown_error\n`,
  );
  writeFileSync(
    join(dir, "playbooks/playbook.yaml"),
    `apiVersion: failbook/v1\nkind: Playbook\nname: bench\nbudgets: { retries: 5, retry_seconds: 60 }\nverdicts:\n${actions.join("\n")}\n`,
  );
  return dir;
}

function measure(argv, cwd) {
  const times = [];
  const rss = [];
  let status = 0;
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    const r = spawnSync(process.execPath, ["--import", rssHook, ...argv], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    const m = /bench-maxrss-kb=(\d+)/.exec(r.stderr);
    if (m) rss.push(Number(m[1]) / 1024);
    status = r.status ?? -1;
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], min: times[0], rss: Math.max(...rss), status };
}

const rows = [];
const base = measure(["-e", "0"], root);
rows.push(["node -e 0", "-", base]);
rows.push(["failbook lint (shipped project)", "-", measure([bin, "lint"], root)]);
for (const n of SIZES) {
  const dir = writeProject(n);
  const size = statSync(join(dir, "playbooks/registry.yaml")).size;
  rows.push([`failbook lint (${n.toLocaleString("en-US")} codes)`, `${(size / 1024 / 1024).toFixed(2)} MB`, measure([bin, "lint"], dir)]);
}

const line = (cols) => `| ${cols.join(" | ")} |`;
console.log(`failbook bench: median of ${runs} runs, node ${process.version}, ${process.platform}/${process.arch}\n`);
console.log(line(["what", "registry", "wall (median)", "wall (min)", "x node", "peak RSS", "exit"]));
console.log(line(["---", "---", "---:", "---:", "---:", "---:", "---:"]));
for (const [what, size, m] of rows) {
  console.log(line([what, size, `${m.median.toFixed(0)} ms`, `${m.min.toFixed(0)} ms`, (m.median / base.median).toFixed(2), `${m.rss.toFixed(0)} MB`, String(m.status)]));
}
