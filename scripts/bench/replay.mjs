// The replay rows of `npm run bench` (SPEC 14): `failbook replay` over a seeded corpus of
// 1,000,000 records (about 350 MB of JSON Lines) under .bench/replay/, plain and gzipped,
// with --workers 2; and the corpus given twice (2,000,000 records), to show that memory stays
// flat: twice the input, the same peak (a tenth of it ends before the heaps reach their
// plateau, so a ratio to it measured start-up, not growth). Then the
// same replay over a large registry: the generated 10,000-code project (scripts/bench/generate.mjs)
// and a corpus of 1,000,000 records whose errors are built for its rules.
// `node scripts/bench.mjs --replay-only` runs these rows alone.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, statSync } from "node:fs";
import { join } from "node:path";
import { catalogueRecords, writeCorpus } from "./replay-corpus.mjs";

const CORPUS_VERSION = 1; // bump when replay-corpus.mjs changes what it writes
const SEED = 1;

/**
 * The corpus file for `count` records, generated once (seeded) and kept under .bench/replay/:
 * calls to the shipped project, or with `codes`, to the generated project of that many codes.
 */
async function corpus(root, count, gzip, log, codes = undefined) {
  const dir = join(root, ".bench/replay");
  mkdirSync(dir, { recursive: true });
  const shape = codes === undefined ? "" : `-codes${codes}`;
  const path = join(dir, `records-v${CORPUS_VERSION}-s${SEED}${shape}-${count}.jsonl${gzip ? ".gz" : ""}`);
  if (!existsSync(path)) {
    const t = Date.now();
    await writeCorpus(path + ".tmp", count, SEED, gzip, codes === undefined ? undefined : catalogueRecords(codes, SEED));
    renameSync(path + ".tmp", path);
    log(`generated ${count.toLocaleString("en-US")} records (${(statSync(path).size / 1048576).toFixed(0)} MB${gzip ? ", gzip" : ""}) in ${Date.now() - t} ms`);
  }
  return path;
}

// The CPU seconds a process used, its worker threads included: on a machine shared with
// other jobs, wall time says how busy the machine was; CPU time says what replay costs.
const cpuHook = `data:text/javascript,import{isMainThread}from"node:worker_threads";if(isMainThread)process.on("exit",()=>{const u=process.resourceUsage();process.stderr.write("\\nbench-cpu-us="+(u.userCPUTime+u.systemCPUTime)+"\\n")})`;
function cpuSeconds(argv, cwd) {
  const r = spawnSync(process.execPath, ["--import", cpuHook, ...argv], { cwd, encoding: "utf8", maxBuffer: 1 << 28 });
  const m = /bench-cpu-us=(\d+)/.exec(r.stderr ?? "");
  return m ? Number(m[1]) / 1e6 : undefined;
}

/**
 * Measure the replay rows. `measure(name, argv, cwd)` is bench.mjs's: median wall time of
 * whole processes and their peak RSS. Returns rows in bench.mjs's table shape.
 */
export async function replayRows({ root, bin, measure, quick, log, fmtMs }) {
  const large = quick ? 100_000 : 1_000_000;
  const plain = await corpus(root, large, false, log);
  const gz = await corpus(root, large, true, log);
  const mb = (path) => (statSync(path).size / 1048576).toFixed(0);
  const replay = (file) => [bin, "replay", file, "--workers", "2", "--format", "json"];
  const m = {
    plain: measure(`replay ${large} plain`, replay(plain), root),
    gz: measure(`replay ${large} gzip`, replay(gz), root),
    // The same records twice over, one replay: a stream whose memory is constant peaks as high.
    twice: measure(`replay ${2 * large} plain (the corpus twice)`, [...replay(plain).slice(0, 3), plain, ...replay(plain).slice(3)], root),
  };
  const cpu = cpuSeconds(replay(plain), root);
  log(`replay ${large} plain: ${cpu?.toFixed(1)} s of CPU (all threads, one run)`);
  const count = (n) => (n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`);
  const limitMs = quick ? 1000 : 10_000;
  const rows = [];
  const rssOk = m.plain.rssMb <= 250;
  rows.push({
    row: `\`failbook replay --workers 2\`, ${count(large)} records (${mb(plain)} MB JSONL)`,
    value: m.plain.ms,
    figure: `${fmtMs(m.plain.ms)}${cpu === undefined ? "" : ` (${cpu.toFixed(1)} s CPU)`}`,
    target: `≤ ${fmtMs(limitMs)}, RSS ≤ 250 MB`,
    pass: m.plain.ms <= limitMs && rssOk && m.plain.status === 0,
    rssMb: m.plain.rssMb,
    rssPass: rssOk,
    exit: m.plain.status,
  });
  const gzRatio = m.gz.ms / m.plain.ms;
  rows.push({
    row: `the same, \`.jsonl.gz\` (${mb(gz)} MB) ÷ plain`,
    value: gzRatio,
    figure: `${gzRatio.toFixed(2)}× (${fmtMs(m.gz.ms)})`,
    target: "≤ 1.5×",
    pass: gzRatio <= 1.5 && m.gz.status === 0,
    rssMb: m.gz.rssMb,
    exit: m.gz.status,
  });
  const flat = m.twice.rssMb / m.plain.rssMb;
  rows.push({
    row: `peak RSS, ${count(2 * large)} ÷ ${count(large)} records (memory flat: the corpus twice)`,
    value: flat,
    figure: `${flat.toFixed(2)}× (${m.plain.rssMb.toFixed(0)} MB → ${m.twice.rssMb.toFixed(0)} MB)`,
    target: "≤ 1.2×",
    pass: flat <= 1.2 && m.twice.status === 0,
    rssMb: m.twice.rssMb,
    exit: m.twice.status,
  });
  return { rows, raw: { ...m, cpuSeconds: cpu } };
}

/**
 * The large-registry row: `failbook replay --workers 2` of 1,000,000 records in the generated
 * project of `codes` codes at `dir` (bench.mjs writes it). Its own row, since the project's
 * size is what it measures: each replaying thread holds the registry's classifier.
 */
export async function replayLargeRegistryRow({ root, bin, measure, quick, log, fmtMs, dir, codes }) {
  const count = quick ? 100_000 : 1_000_000;
  const file = await corpus(root, count, false, log, codes);
  const m = measure(`replay ${count} records x ${codes} codes`, [bin, "replay", file, "--workers", "2", "--format", "json"], dir);
  const limitMs = quick ? 1000 : 10_000;
  const rssOk = m.rssMb <= 250;
  const row = {
    row: `\`failbook replay --workers 2\`, ${count >= 1e6 ? `${count / 1e6}M` : `${count / 1e3}k`} records × ${codes / 1000}k codes (${(statSync(file).size / 1048576).toFixed(0)} MB JSONL)`,
    value: m.ms,
    figure: `${fmtMs(m.ms)}${m.cpuMs === undefined ? "" : ` (${(m.cpuMs / 1000).toFixed(1)} s CPU)`}`,
    target: `≤ ${fmtMs(limitMs)}, RSS ≤ 250 MB`,
    pass: m.ms <= limitMs && rssOk && m.status === 0,
    rssMb: m.rssMb,
    rssPass: rssOk,
    exit: m.status,
  };
  return { row, raw: m };
}

/** `--replay-only`: the replay rows as their own table. */
export function replayTable(rows, header) {
  const mark = (ok) => (ok ? "✓" : "✗");
  const line = (cols) => `| ${cols.join(" | ")} |`;
  return [
    header,
    "",
    line(["figure", "measured", "target", "", "peak RSS", "exit"]),
    line(["---", "---:", "---", ":-:", "---:", ":-:"]),
    ...rows.map((r) =>
      line([r.row, r.figure, r.target, r.pass === null ? "" : mark(r.pass), r.rssMb === undefined ? "" : `${r.rssMb.toFixed(0)} MB${r.rssPass == null ? "" : ` ${mark(r.rssPass)}`}`, String(r.exit ?? "")]),
    ),
  ].join("\n");
}
