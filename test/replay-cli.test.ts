import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { failbook, REPO, tempProject } from "./helpers/cli.js";
import { editedProject, projectFiles, type ProjectData } from "./helpers/change-project.js";
import { corpus, gz, record, SHAPES } from "./helpers/records.js";
import type { ReplayReport } from "../src/replay/report.js";

const escalateTimeouts = (p: ProjectData) => {
  p.playbook.verdicts.timeout = { action: "escalate_to_human", queue: "oncall" };
};

/** A project (the change-control test project, edited) with record files beside it. */
function project(files: Record<string, string>, edit: (p: ProjectData) => void = () => {}): string {
  return tempProject({ ...projectFiles(editedProject(edit)), ...files });
}

const lines = (...records: Record<string, unknown>[]) => records.map((r) => JSON.stringify(r)).join("\n") + "\n";
const json = (r: { stdout: string }) => JSON.parse(r.stdout) as ReplayReport;

describe("failbook replay", () => {
  it("documents the record format, formats, shards and exit codes in --help", () => {
    const r = failbook(["replay", "--help"]);
    expect(r.code).toBe(0);
    for (const word of ["--against", "--shard", "--workers", "--examples", "--max-changed", "beyond the recording", "replay merge", "Exit status", "schemas/record.schema.json"]) expect(r.stdout).toContain(word);
  });

  it("compares each replayed record with its recorded outcome: transitions with counts, shares and locations", () => {
    const dir = project({
      "r.jsonl": lines(
        record("r1", "c1", SHAPES.recovers().responses, SHAPES.recovers().outcome),
        // Production escalated this one; the playbook retries it: a transition.
        record("r1", "c2", SHAPES.recovers().responses, { kind: "escalated", verdict: "timeout" }),
        record("r1", "c3", SHAPES.conflict().responses, SHAPES.conflict().outcome),
        record("r1", "c4", SHAPES.recovers().responses, { kind: "escalated", verdict: "timeout" }),
        record("r1", "c5", SHAPES.succeeds().responses),
      ),
    });
    const r = failbook(["replay", "r.jsonl", "--format", "json", "--workers", "1"], { cwd: dir });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(json(r)).toMatchObject({
      records: 5,
      invalid: 0,
      unknown: 0,
      changed: 2,
      unrecorded: 1,
      against: null,
      verdicts: { conflict: 1, timeout: 3 },
      transitions: [{ from: "escalated", to: "recovered", verdict: "timeout", count: 2, percent: 40, examples: ["r.jsonl:2", "r.jsonl:4"] }],
      invalid_lines: [],
    });
    const text = failbook(["replay", "r.jsonl"], { cwd: dir });
    expect(text.stdout).toContain("escalated -> recovered  timeout");
    expect(text.stdout).toContain("r.jsonl:2, r.jsonl:4");
    const md = failbook(["replay", "r.jsonl", "--format", "md"], { cwd: dir });
    expect(md.stdout).toContain("| escalated | recovered | `timeout` | 2 | 40.00 | `r.jsonl:2`, `r.jsonl:4` |");
  });

  it("says unknown, never guesses, when the playbook asks for an attempt production never made", () => {
    const dir = project({ "r.jsonl": lines(record("r1", "c1", SHAPES.gaveUp().responses, SHAPES.gaveUp().outcome), record("r1", "c2", SHAPES.recovers().responses, SHAPES.recovers().outcome)) });
    const r = failbook(["replay", "r.jsonl", "--format", "json"], { cwd: dir });
    expect(r.code).toBe(0);
    const out = json(r);
    // A record whose outcome becomes unknown is a change: the gate cannot tell it stayed the same.
    expect(out).toMatchObject({ records: 2, unknown: 1, changed: 1 });
    // The verdict is the one the playbook was acting on when it ran past the recording.
    expect(out.transitions).toEqual([{ from: "failed", to: "unknown", verdict: "timeout", count: 1, percent: 50, examples: ["r.jsonl:1"] }]);
    // ...and the record is counted under it: the verdicts add up to the records that failed.
    expect(out.verdicts).toEqual({ timeout: 2 });
    expect(failbook(["replay", "r.jsonl"], { cwd: dir }).stdout).toMatch(/changed 1 \(50 %, 1 of them to unknown\)/);
  });

  it("--max-changed fails a playbook edit that leaves every record without a known outcome", () => {
    // Production gave up after one timeout on every call; the playbook now retries: all unknown.
    const dir = project({ "r.jsonl": lines(...[1, 2, 3, 4, 5, 6].map((i) => record("r1", `c${i}`, SHAPES.gaveUp().responses, SHAPES.gaveUp().outcome))) });
    const r = failbook(["replay", "r.jsonl", "--max-changed", "5"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("100 % of records changed, more than --max-changed 5");
    const out = json(failbook(["replay", "r.jsonl", "--format", "json"], { cwd: dir }));
    expect(out).toMatchObject({ records: 6, unknown: 6, changed: 6, verdicts: { timeout: 6 } });
    expect(failbook(["replay", "--help"]).stdout).toMatch(/becomes\s+unknown counts as changed/);
  });

  it("--against a baseline replays every record under both versions; --max-changed fails the run above the share", () => {
    const base = project({});
    const dir = project({ "r.jsonl": corpus(400, 7) }, escalateTimeouts);
    const r = failbook(["replay", "r.jsonl", "--against", base, "--format", "json", "--examples", "2"], { cwd: dir });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = json(r);
    expect(out.against).toBe(base);
    const [top] = out.transitions;
    expect(top).toMatchObject({ from: "recovered", to: "escalated", verdict: "timeout" });
    expect(top.examples).toHaveLength(2);
    // Records production gave up on are unknown under the baseline (it retries them), and escalate now.
    expect(out.unknown).toBeGreaterThan(0);
    expect(out.changed).toBe(top.count);
    expect(failbook(["replay", "r.jsonl", "--against", base, "--max-changed", "100"], { cwd: dir }).code).toBe(0);
    const strict = failbook(["replay", "r.jsonl", "--against", base, "--max-changed", "1"], { cwd: dir });
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/% of records changed, more than --max-changed 1/);
  });

  it("--against git:REV reads the baseline as committed", () => {
    const dir = project({ "r.jsonl": corpus(50, 3) });
    const git = (...args: string[]) => expect(spawnSync("git", args, { cwd: dir, encoding: "utf8" }).status).toBe(0);
    git("init", "-q");
    git("-c", "user.name=t", "-c", "user.email=t@failbook.invalid", "-c", "commit.gpgsign=false", "commit", "-q", "--allow-empty", "-m", "empty");
    git("add", "-A");
    git("-c", "user.name=t", "-c", "user.email=t@failbook.invalid", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "base");
    const same = failbook(["replay", "r.jsonl", "--against", "git:HEAD", "--format", "json"], { cwd: dir });
    expect(same.code).toBe(0);
    expect(json(same)).toMatchObject({ changed: 0, against: "git:HEAD", transitions: [] });
    // The working tree's playbook now escalates timeouts; HEAD's retried them.
    writeFileSync(join(dir, "playbooks/playbook.yaml"), projectFiles(editedProject(escalateTimeouts))["playbooks/playbook.yaml"]);
    const edited = json(failbook(["replay", "r.jsonl", "--against", "git:HEAD", "--format", "json"], { cwd: dir }));
    expect(edited.transitions[0]).toMatchObject({ from: "recovered", to: "escalated", verdict: "timeout" });
    expect(edited.changed).toBeGreaterThan(0);
    const missing = failbook(["replay", "r.jsonl", "--against", "git:HEAD~1"], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("not committed at HEAD~1");
  });

  it("locates every bad line (not JSON, fails the schema, no responses, truncated gzip), replays the rest, exits 1", () => {
    const good = lines(record("r1", "c1", SHAPES.recovers().responses, SHAPES.recovers().outcome), record("r1", "c2", SHAPES.succeeds().responses, SHAPES.succeeds().outcome));
    const bad = [
      good.trimEnd(),
      '{"apiVersion":"failbook/v1","kind":"Record",',
      JSON.stringify({ apiVersion: "failbook/v1", kind: "Record", call: { id: "c3", tool: "t" }, responses: [{ status: "maybe" }] }),
      JSON.stringify({ apiVersion: "failbook/v1", kind: "Record", call: { id: "c4", tool: "t" }, responses: [] }),
      "",
      JSON.stringify(record("r1", "c5", SHAPES.conflict().responses, SHAPES.conflict().outcome)),
    ].join("\n");
    const dir = project({ "bad.jsonl": bad + "\n" });
    const whole = gz(corpus(2000, 5));
    writeFileSync(join(dir, "cut.jsonl.gz"), whole.subarray(0, Math.floor(whole.length / 2)));
    const r = failbook(["replay", "bad.jsonl", "cut.jsonl.gz", "--format", "json"], { cwd: dir });
    expect(r.code).toBe(1);
    const out = json(r);
    expect(out.invalid).toBe(4);
    expect(out.invalid_lines.slice(0, 3)).toEqual([
      { location: "bad.jsonl:3", message: expect.stringMatching(/^not valid JSON/) },
      { location: "bad.jsonl:4", message: expect.stringMatching(/^not a failbook\/v1 Record: \/responses\/0\/status/) },
      { location: "bad.jsonl:5", message: "names no responses: a record needs the attempts production made (at least one)" },
    ]);
    expect(out.invalid_lines[3].location).toMatch(/^cut\.jsonl\.gz:\d+$/);
    expect(out.invalid_lines[3].message).toMatch(/^truncated gzip/);
    // Everything before the cut was replayed: the good lines of both files.
    const cutAt = Number(out.invalid_lines[3].location.split(":")[1]);
    expect(out.records).toBe(3 + cutAt - 1);
    const text = failbook(["replay", "bad.jsonl"], { cwd: dir });
    expect(text.stdout).toContain("bad.jsonl:5: names no responses");
  });

  it("reports a line longer than 64 MB and skips it without holding it, then goes on", () => {
    const dir = project({});
    const long = Buffer.alloc((64 << 20) + 1024, 0x61);
    const after = lines(record("r1", "c1", SHAPES.recovers().responses, SHAPES.recovers().outcome));
    writeFileSync(join(dir, "long.jsonl"), Buffer.concat([Buffer.from(after), long, Buffer.from("\n" + after)]));
    const r = failbook(["replay", "long.jsonl", "--format", "json"], { cwd: dir });
    expect(r.code).toBe(1);
    const out = json(r);
    expect(out).toMatchObject({ records: 2, invalid: 1, invalid_lines: [{ location: "long.jsonl:2", message: "longer than 64 MB: skipped" }] });
  });

  it("locates lines deep in a chunk and past a line longer than the 32 KB a chunk is decoded by", () => {
    // 400 records (about 70 KB), a line of 100 KB (its message), then bad lines after both.
    const long = record("r1", "long", [{ status: "error", error: { kind: "timeout", message: "x".repeat(100_000) }, latency_ms: 1 }, { status: "ok", value: true }], { kind: "escalated", verdict: "timeout" });
    const text = [corpus(400).trimEnd(), "{not json", JSON.stringify(long), "{not json either", ""].join("\n");
    const dir = project({ "r.jsonl": text });
    for (const workers of ["1", "2"]) {
      const out = json(failbook(["replay", "r.jsonl", "--format", "json", "--workers", workers], { cwd: dir }));
      expect(out.invalid_lines.map((l) => l.location)).toEqual(["r.jsonl:401", "r.jsonl:403"]);
      expect(out.transitions.find((t) => t.from === "escalated")?.examples).toContain("r.jsonl:402");
    }
  });

  it("ends with one line saying where when a line's parse could outgrow a worker's heap (exit 2), and replays a long line of few values", () => {
    // 4.5 million `{}` in one 13 MB line (within the 64 MB line limit): parsed, about 300 MB
    // of objects, past what a worker parses in (its heap is bounded); the bound once aborted the process.
    const hostile = `{"apiVersion":"failbook/v1","kind":"Record","call":{"id":"h","tool":"t","args":[${"{},".repeat(4_500_000)}{}]}}`;
    const big = record("r1", "big", [{ status: "error", error: { kind: "timeout", message: "x".repeat(9_000_000) }, latency_ms: 1 }, { status: "ok", value: true }], { kind: "escalated", verdict: "timeout" });
    const dir = project({ "r.jsonl": [corpus(2).trimEnd(), hostile, corpus(1)].join("\n"), "big.jsonl": lines(big) });
    for (const workers of ["1", "2"]) {
      const r = failbook(["replay", "r.jsonl", "--format", "json", "--workers", workers], { cwd: dir });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr.trimEnd().split("\n")).toEqual([expect.stringMatching(/^failbook: r\.jsonl:3: this line may hold 4,500,0\d\d JSON values, more than a replay parses in \d+ MB .*remove the line or split the file/)]);
      const ok = failbook(["replay", "big.jsonl", "--format", "json", "--workers", workers], { cwd: dir });
      expect(ok.code).toBe(0);
      expect(json(ok).records).toBe(1);
    }
  });

  it("says why the registry does not load, at its place, and replays nothing (exit 1)", () => {
    const dir = project({ "r.jsonl": corpus(10) }, (p) => {
      p.registry.verdicts[0].retryable = "sometimes";
    });
    const r = failbook(["replay", "r.jsonl"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/playbooks\/registry\.yaml:\d+:\d+/);
    expect(r.stderr).toContain("cannot replay until the registry and playbook load");
  });

  it.each([
    { args: ["replay", "nope.jsonl"], says: "nope.jsonl: no such file" },
    { args: ["replay", "r.jsonl", "--shard", "0/4"], says: "--shard takes I/N" },
    { args: ["replay", "r.jsonl", "--shard", "5/4"], says: "--shard takes I/N" },
    { args: ["replay", "r.jsonl", "--shard", "two"], says: "--shard takes I/N" },
    { args: ["replay", "r.jsonl", "--workers", "0"], says: "--workers takes 1 to" },
    { args: ["replay", "r.jsonl", "--max-changed", "lots"], says: "--max-changed takes a percentage" },
    { args: ["replay"], says: "replay needs record files" },
    { args: ["replay", "r.jsonl", "--against", "nowhere"], says: "cannot compare with nowhere: no such file or directory" },
  ])("$args.1 $args.2 $args.3: one line, exit 2", ({ args, says }) => {
    const dir = project({ "r.jsonl": corpus(10) });
    const r = failbook(args, { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(says);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("workers and shards do not change the report: the merge of all shards is the unsharded JSON, byte for byte", () => {
    const dir = project({ "a.jsonl": corpus(2500, 11, 97) });
    writeFileSync(join(dir, "b.jsonl.gz"), gz(corpus(1500, 12, 89)));
    const files = ["a.jsonl", "b.jsonl.gz"];
    const whole = failbook(["replay", ...files, "--format", "json", "--workers", "2"], { cwd: dir });
    expect(whole.code).toBe(1); // the corpus has invalid lines
    const single = failbook(["replay", ...files, "--format", "json", "--workers", "1"], { cwd: dir });
    expect(single.stdout).toBe(whole.stdout);
    const out = json(whole);
    expect(out.records + out.invalid).toBe(4000);
    expect(out.invalid).toBeGreaterThan(0);
    expect(out.transitions.length).toBeGreaterThan(0);

    const shards = [1, 2, 3].map((i) => {
      const r = failbook(["replay", ...files, "--format", "json", "--shard", `${i}/3`], { cwd: dir });
      const path = join(dir, `shard-${i}.json`);
      writeFileSync(path, r.stdout);
      const report = JSON.parse(r.stdout) as ReplayReport;
      expect(report.records).toBeLessThan(out.records);
      return path;
    });
    const merged = failbook(["replay", "merge", ...shards.reverse()], { cwd: dir });
    expect(merged.stderr).toBe("");
    expect(merged.code).toBe(1);
    expect(merged.stdout).toBe(whole.stdout);

    const partial = failbook(["replay", "merge", shards[0], shards[1]], { cwd: dir });
    expect(partial.code).toBe(2);
    expect(partial.stderr).toMatch(/shard 1\/3 missing/);
    const twice = failbook(["replay", "merge", shards[0], shards[0], shards[1]], { cwd: dir });
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain("are both shard");
  });

  it("workers classify by the registry compiled once, a rule that reads the playbook's hint headers included: --workers 2 --against is --workers 1, byte for byte", () => {
    // The current side: a timeout whose response carries the playbook's own hint header is `throttled`, and escalates.
    const throttled = (p: ProjectData) => {
      p.registry.verdicts.unshift({ code: "throttled", class: "transient", retryable: true, adr: "ADR-0001", summary: "Asked to wait.", recovery: "Wait.", match: [{ kind: "timeout", retry_after: "present" }] });
      p.playbook.retry_after = { headers: ["x-wait"] };
      p.playbook.verdicts.throttled = { action: "escalate_to_human", queue: "oncall" };
    };
    const hinted = (i: number) => record(`run_h${i}`, `h${i}`, [{ status: "error", error: { kind: "timeout", message: "slow down", headers: { "x-wait": "1" } }, latency_ms: 30 }, { status: "ok", value: true, latency_ms: 10 }], { kind: "recovered", verdict: "timeout", attempts: 2 });
    const hints = 150;
    const dir = project({ "r.jsonl": corpus(900, 21) + lines(...Array.from({ length: hints }, (_, i) => hinted(i))) }, throttled);
    const base = project({});
    const args = ["replay", "r.jsonl", "--against", base, "--format", "json"];
    const two = failbook([...args, "--workers", "2"], { cwd: dir });
    expect(two.stderr).toBe("");
    expect(two.code).toBe(0);
    expect(failbook([...args, "--workers", "1"], { cwd: dir }).stdout).toBe(two.stdout);
    const out = json(two);
    expect(out.records).toBe(900 + hints);
    // Only the hinted timeouts changed: the baseline (no such rule) retries them, as production did.
    expect(out.transitions.map(({ from, to, verdict, count }) => ({ from, to, verdict, count }))).toEqual([{ from: "recovered", to: "escalated", verdict: "throttled", count: hints }]);
    expect(out.verdicts.throttled).toBe(hints);
  });

  it("shares the playbook's retry quota across records in order, and refuses to shard such a replay", () => {
    const quota = (p: ProjectData) => {
      p.playbook.retry_quota = { capacity: 10, cost: 5, refund: 0, refund_on_recovery: "none" };
    };
    const twice = { responses: [{ status: "error", error: { kind: "timeout" } }, { status: "error", error: { kind: "timeout" } }, { status: "ok", value: true }] };
    const dir = project({ "r.jsonl": lines(...[1, 2, 3].map((i) => record("r", `c${i}`, twice.responses, { kind: "recovered", verdict: "timeout" }))) }, quota);
    const r = failbook(["replay", "r.jsonl", "--format", "json", "--workers", "2"], { cwd: dir });
    expect(r.stderr).toContain("runs on one thread");
    expect(json(r).transitions).toEqual([{ from: "recovered", to: "exhausted", verdict: "timeout", count: 2, percent: 66.67, examples: ["r.jsonl:2", "r.jsonl:3"] }]);
    const sharded = failbook(["replay", "r.jsonl", "--shard", "1/2"], { cwd: dir });
    expect(sharded.code).toBe(2);
    expect(sharded.stderr).toContain("retry_quota");
  });
});

describe("failbook replay: a worker that stops", () => {
  it("fails the replay with one line instead of waiting for answers that never come", () => {
    // A module loaded into every thread ends each replay worker (the threads handed a port for their setup) at once, with status 0, before it reads a chunk.
    const stop = 'import { MessagePort, workerData } from "node:worker_threads";\nif (workerData instanceof MessagePort) process.exit(0);\n';
    const dir = project({ "r.jsonl": corpus(200, 5), "stop-workers.mjs": stop });
    const r = spawnSync(process.execPath, [join(REPO, "bin/failbook.js"), "replay", "r.jsonl", "--workers", "2"], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", NO_COLOR: "1", NODE_OPTIONS: `--import=${pathToFileURL(join(dir, "stop-workers.mjs")).href}` },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(r.signal).toBeNull();
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/exited with status 0/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe("failbook replay merge: --format and --max-changed", () => {
  // Every record that recovered from a timeout now escalates: a third of the corpus changes.
  const dir = project({ "r.jsonl": corpus(200, 3) }, escalateTimeouts);
  const shards = [1, 2].map((i) => {
    const path = join(dir, `shard-${i}.json`);
    writeFileSync(path, failbook(["replay", "r.jsonl", "--format", "json", "--shard", `${i}/2`], { cwd: dir }).stdout);
    return path;
  });
  const whole = (format: string) => failbook(["replay", "r.jsonl", "--format", format], { cwd: dir });

  it.each([
    { args: ["merge", ...shards, "--format", "md"], where: "after merge" },
    { args: ["merge", "--format", "md", ...shards], where: "between merge and the reports" },
    { args: ["--format", "md", "merge", ...shards], where: "on replay, before merge" },
  ])("--format md $where prints the unsharded Markdown", ({ args }) => {
    const r = failbook(["replay", ...args], { cwd: dir });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(whole("md").stdout);
  });

  it.each([
    { args: ["merge", ...shards, "--max-changed", "5"], where: "after merge" },
    { args: ["--max-changed", "5", "merge", ...shards], where: "on replay, before merge" },
    { args: ["merge", ...shards, "--format", "md", "--max-changed", "5"], where: "with --format md, as the README's matrix runs it" },
  ])("--max-changed 5 $where fails as the unsharded replay does", ({ args }) => {
    const unsharded = failbook(["replay", "r.jsonl", "--max-changed", "5"], { cwd: dir });
    expect(unsharded.code).toBe(1);
    const r = failbook(["replay", ...args], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/% of records changed, more than --max-changed 5/);
    expect(failbook(["replay", ...args.map((a) => (a === "5" ? "100" : a))], { cwd: dir }).code).toBe(0);
  });

  it("the merge's own flag wins over replay's, and a flag merge does not take is a usage error", () => {
    const r = failbook(["replay", "--format", "md", "merge", ...shards, "--format", "json"], { cwd: dir });
    expect(r.stdout).toBe(whole("json").stdout);
    const workers = failbook(["replay", "--workers", "2", "merge", ...shards], { cwd: dir });
    expect(workers.code).toBe(2);
    expect(workers.stderr).toContain("--workers");
  });
});

describe("examples/replay-playbook-edit", () => {
  it("replays its recorded month against the baseline exactly as its replay.md shows", () => {
    const dir = join(REPO, "examples/replay-playbook-edit");
    const r = failbook(["replay", "records/2026-11.jsonl.gz", "--against", "baseline", "--format", "md"], { cwd: dir });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(readFileSync(join(dir, "replay.md"), "utf8"));
    expect(r.stdout).toContain("| recovered | exhausted | `upstream_timeout` |");
  });
});

describe("replay on an interactive terminal", () => {
  const hasScript = spawnSync("script", ["--version"], { encoding: "utf8" }).status === 0;
  it.skipIf(!hasScript)("shows a progress line while it reads, erased before the report; a pipe gets none", () => {
    const dir = project({ "r.jsonl": corpus(300, 2) });
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(REPO, "bin/failbook.js"))} replay r.jsonl`;
    // script(1) runs the command on a pseudo-terminal, as a person at a terminal would.
    const tty = spawnSync("script", ["-qec", command, "/dev/null"], { cwd: dir, encoding: "utf8", env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", TERM: "xterm" } });
    expect(tty.stdout).toMatch(/\r\u001b\[Kreplaying: 300 lines read, 0 of 0 MB \(100 %\)\r\u001b\[K/);
    expect(tty.stdout).toContain("300 records from 1 file");
    const pipe = failbook(["replay", "r.jsonl"], { cwd: dir });
    expect(pipe.stdout + pipe.stderr).not.toContain("replaying:");
  });
});

describe("failbook replay: hostile input, second pass (SPEC 21)", () => {
  const good = JSON.stringify(record("r1", "c1", SHAPES.succeeds().responses, SHAPES.succeeds().outcome));
  /** A record whose run_id holds the raw bytes 0xFF 0xFE, on line 3. */
  const hostile = Buffer.concat([Buffer.from(`${good}\n${good}\n{"apiVersion":"failbook/v1","kind":"Record","run_id":"`), Buffer.from([0xff, 0xfe]), Buffer.from(`","call":{"id":"c9","tool":"search.query"},"responses":[{"status":"ok","value":true}]}\n`)]);

  it.each([
    { file: "bad.jsonl", workers: "1" },
    { file: "bad.jsonl", workers: "2" },
    { file: "bad.jsonl.gz", workers: "2" },
  ])("refuses invalid UTF-8 as lint does: $file, --workers $workers, one located line, exit 2", ({ file, workers }) => {
    const dir = project({});
    writeFileSync(join(dir, file), file.endsWith(".gz") ? gzipSync(hostile) : hostile);
    const r = failbook(["replay", file, "--workers", workers], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(`failbook: ${file}:3:55: not valid UTF-8 (byte 0xFF); failbook reads and rewrites UTF-8 only: convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8)\n`);
  });

  describe("replay merge checks the shape of every shard", () => {
    const dir = project({ "r.jsonl": corpus(200, 3, 17) }, escalateTimeouts);
    const shard = (i: number) => JSON.parse(failbook(["replay", "r.jsonl", "--format", "json", "--shard", `${i}/2`], { cwd: dir }).stdout) as Record<string, unknown>;
    const [one, two] = [shard(1), shard(2)];
    /** Merge shard 1, with `value` set at `path` (nothing set without a path), and shard 2. */
    const tampered = (path: (string | number)[] = [], value?: unknown) => {
      const copy = structuredClone(one);
      if (path.length > 0) {
        let node = copy as Record<string | number, unknown>;
        for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
        node[path[path.length - 1]] = value;
      }
      writeFileSync(join(dir, "tampered.json"), JSON.stringify(copy));
      writeFileSync(join(dir, "two.json"), JSON.stringify(two));
      return failbook(["replay", "merge", "tampered.json", "two.json"], { cwd: dir });
    };

    it.each([
      { path: ["shard"], value: null, says: "tampered.json: shard must be an object, not null" },
      { path: ["records"], value: -5, says: "tampered.json: records must be a count (a whole number, 0 or more), not -5" },
      { path: ["changed"], value: null, says: "tampered.json: changed must be a count" },
      { path: ["invalid"], value: 1.5, says: "tampered.json: invalid must be a count" },
      { path: ["records"], value: [], says: "tampered.json: records must be a count" },
      { path: ["transitions"], value: null, says: "tampered.json: transitions must be a list, not null" },
      { path: ["transitions", 0, "count"], value: -3, says: "tampered.json: transitions[0].count must be a count" },
      { path: ["transitions", 0], value: null, says: "tampered.json: transitions[0] must be an object, not null" },
      { path: ["transitions", 0, "examples", 0], value: "other.jsonl:3", says: "tampered.json: transitions[0].examples[0] must be a location FILE:LINE of one of its files" },
      { path: ["invalid_lines", 0], value: null, says: "tampered.json: invalid_lines[0] must be an object" },
      { path: ["verdicts", "timeout"], value: "7", says: 'tampered.json: verdicts.timeout must be a count (a whole number, 0 or more), not "7"' },
      { path: ["shard", "index"], value: 3, says: "tampered.json: shard.index must be a shard from 1 to 2" },
    ])("$path set to $value: one line naming the file and the field, exit 2", ({ path, value, says }) => {
      const r = tampered(path, value);
      expect(r.stdout).toBe("");
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(says);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).not.toContain("internal error");
    });

    it("the untampered shards still merge", () => {
      const r = tampered();
      expect(r.stderr).toBe("");
      expect(JSON.parse(r.stdout).records).toBe((one.records as number) + (two.records as number));
    });
  });
});
