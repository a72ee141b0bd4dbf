/**
 * What an outage costs, as `failbook storm` reports it (SPEC 21): how calls ended, the pager,
 * refused retries, each breaker's open time, in text and HTML; `--seeds N` and its spread; a
 * sweep that exits 1 naming the cell and the expect; a collapse judged by what completed
 * within the run; `storm merge` refusing a tampered shard and taking --format and --out.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { failbook, REPO } from "./helpers/cli.js";

const OUTAGE = join(REPO, "test/storms/outage");

/** A copy of test/storms/outage to write shards and pages in. */
function outage(): string {
  const dir = mkdtempSync(join(tmpdir(), "failbook-outage-"));
  cpSync(OUTAGE, dir, { recursive: true });
  return dir;
}

interface Report {
  storms: { current: { seed: number; seeds?: { count: number; agree: number; verdict: string }; summary: { verdict: string }; buckets: { from_ms: number; succeeded: number }[]; cost: { breakers: { open_after_trigger: number; instances: number; longest_after_trigger_ms: number }[] } } }[];
}

describe("a collapse is judged by what completed within the run", () => {
  it("no call succeeds after the trigger, and calls that would succeed in the drain never lift the last buckets: metastable for every seed", () => {
    const r = failbook(["--config", "collapse.failbook.yaml", "storm", "--seeds", "3", "--format", "json"], { cwd: OUTAGE });
    const { current } = (JSON.parse(r.stdout) as Report).storms[0];
    // The oracle: within the run, no call succeeds from the trigger's end on.
    expect(current.buckets.filter((b) => b.from_ms >= 20_000).every((b) => b.succeeded === 0)).toBe(true);
    expect(current.seeds).toEqual({ count: 3, verdict: "metastable", agree: 3, verdicts: { metastable: 3 } });
    expect(current.summary.verdict).toBe("metastable");
    expect(r.code).toBe(0);
  });
});

describe("the report says what the outage cost", () => {
  it("text: outcomes by kind and reason, dead letters, retries an open breaker refused, and how long each breaker stayed open after the trigger", () => {
    const r = failbook(["--config", "breaker-trap.failbook.yaml", "storm"], { cwd: OUTAGE });
    expect(r.stdout).toMatch(/ {2}outcomes: [\d,]+ succeeded, [\d,]+ dead_lettered to breaker-open, [\d,]+ exhausted \(max_retries\)\n/);
    expect(r.stdout).toMatch(/ {2}dead letters: [\d,]+ \(breaker-open [\d,]+\)\n/);
    expect(r.stdout).toMatch(/ {2}retries refused: 0 by a budget, 0 by throttling, 0 by the quota, [1-9]\d* by an open breaker; [1-9][\d,]* attempts short-circuited\n/);
    // The doubling trap: every client's breaker is still open long after the upstream healed.
    expect(r.stdout).toMatch(/ {2}breaker upstream \(10 in the fleet\): open \d+(\.\d)? % of the run, longest spell \d+ ms, [1-9]\d* reopenings; 10 of 10 still open after the trigger ended, up to 1\d{4} ms after\n/);
    const json = JSON.parse(failbook(["--config", "breaker-trap.failbook.yaml", "storm", "--format", "json"], { cwd: OUTAGE }).stdout) as Report;
    expect(json.storms[0].current.cost.breakers[0]).toMatchObject({ instances: 10, open_after_trigger: 10 });
    expect(json.storms[0].current.cost.breakers[0].longest_after_trigger_ms).toBeGreaterThan(10_000);
  });

  it("HTML: the same lines, escaped, in the page", () => {
    const html = failbook(["--config", "breaker-trap.failbook.yaml", "storm", "--format", "html"], { cwd: OUTAGE }).stdout;
    expect(html).toContain("<h3>what the outage cost</h3>");
    expect(html).toMatch(/<li>dead letters: [\d,]+ \(breaker-open [\d,]+\)<\/li>/);
    expect(html).toMatch(/<li>breaker upstream \(10 in the fleet\): open [^<]*10 of 10 still open after the trigger ended/);
  });
});

describe("--seeds and failures", () => {
  it("--seeds N reports the verdict most seeds reach with its spread, in text and in each sweep cell", () => {
    const text = failbook(["--config", "breaker-trap.failbook.yaml", "storm", "--seeds", "3"], { cwd: OUTAGE }).stdout;
    expect(text).toContain("verdict: 3/3 recovered");
    const sweep = failbook(["--config", "breaker-trap.failbook.yaml", "storm", "--seeds", "2", "--sweep", "ratio=0.5..1:0.5"], { cwd: OUTAGE }).stdout;
    expect(sweep).toMatch(/0\.5 {2}r 2\/2 recovered/);
    expect(failbook(["--config", "breaker-trap.failbook.yaml", "storm", "--seeds", "101"], { cwd: OUTAGE }).stderr).toContain("--seeds takes 1 to 100, not 101");
  });

  it("a sweep that exits 1 says which cell and which expect failed, also with --format json", () => {
    const dir = outage();
    writeFileSync(join(dir, "breaker-trap.storm.yaml"), `${readFileSync(join(dir, "breaker-trap.storm.yaml"), "utf8")}expect:\n  recovers_within_ms: 10000\n`);
    const r = failbook(["--config", "breaker-trap.failbook.yaml", "storm", "--sweep", "ratio=0.5..1:0.5", "--format", "json"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^failbook: sweep breaker-trap \(breaker-trap\.storm\.yaml\) cell ratio=1: expect recovers_within_ms 10000 failed: recovered \d+ ms after the last phase ended \(at 21000 ms\), later than recovers_within_ms 10000/m);
    expect(r.stderr).not.toContain("cell ratio=0.5:");
    const text = failbook(["--config", "breaker-trap.failbook.yaml", "storm", "--sweep", "ratio=0.5..1:0.5"], { cwd: dir });
    expect(text.stdout).toMatch(/✗ cell ratio=1: expect recovers_within_ms 10000: recovered \d+ ms after/);
  });
});

describe("storm merge", () => {
  const sweep = ["--config", "breaker-trap.failbook.yaml", "storm", "--sweep", "ratio=0.5..1:0.5", "--format", "json"];
  function shards(): string {
    const dir = outage();
    for (const i of [1, 2]) writeFileSync(join(dir, `shard-${i}.json`), failbook([...sweep, "--shard", `${i}/2`], { cwd: dir }).stdout);
    return dir;
  }
  const tamper = (dir: string, edit: (report: Record<string, unknown> & { sweeps: Record<string, unknown>[] }) => void) => {
    const report = JSON.parse(readFileSync(join(dir, "shard-1.json"), "utf8")) as Record<string, unknown> & { sweeps: Record<string, unknown>[] };
    edit(report);
    writeFileSync(join(dir, "shard-1.json"), JSON.stringify(report));
  };

  it.each([
    { name: "a null shard and a storm with only an index", edit: (r: Record<string, unknown>) => Object.assign(r, { shard: null, storms: [{ index: 0 }] }), text: "shard-1.json is not a storm report as failbook storm --shard I/N --format json writes it: storms[0].file must be a string, not missing" },
    { name: "cells that are null", edit: (r: { sweeps: Record<string, unknown>[] }) => (r.sweeps[0].cells = null), text: "shard-1.json is not a storm report as failbook storm --shard I/N --format json writes it: sweeps[0].cells must be a list, not null" },
    { name: "cells emptied (half a report)", edit: (r: { sweeps: Record<string, unknown>[] }) => (r.sweeps[0].cells = []), text: "the shards hold 1 of the run's 2 jobs (storms or sweep cells); give every shard's whole report" },
    { name: "another shard's cell", edit: (r: { sweeps: { cells: { index: number }[] }[] }) => (r.sweeps[0].cells[0].index = 1), text: "shard-1.json: sweeps[0].cells[0].index 1 is not a job of shard 1/2; give the reports of failbook storm --shard I/N --format json, as written" },
  ] as { name: string; edit: (r: never) => void; text: string }[])("refuses a shard with $name: one line, exit 2", ({ edit, text }) => {
    const dir = shards();
    tamper(dir, edit as (r: unknown) => void);
    const r = failbook(["storm", "merge", "shard-1.json", "shard-2.json"], { cwd: dir });
    expect(r.stderr).toBe(`failbook: ${text}\n`);
    expect(r.stdout).toBe("");
    expect(r.code).toBe(2);
  });

  it("takes --format and --out, after merge or before it, and writes the file atomically", () => {
    const dir = shards();
    const whole = failbook([...sweep.slice(0, -2), "--format", "html"], { cwd: dir }).stdout;
    const r = failbook(["storm", "merge", "shard-1.json", "shard-2.json", "--format", "html", "--out", "merged.html"], { cwd: dir });
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("wrote merged.html\n");
    expect(readFileSync(join(dir, "merged.html"), "utf8")).toBe(whole);
    const text = failbook(["storm", "--format", "text", "merge", "shard-1.json", "shard-2.json"], { cwd: dir });
    expect(text.stdout).toContain("sweep breaker-trap (breaker-trap.storm.yaml): ratio 0.5..1 step 0.5");
    const refused = failbook(["storm", "--seed", "3", "merge", "shard-1.json", "shard-2.json"], { cwd: dir });
    expect(refused.stderr).toBe("failbook: --seed is a flag of storm, not of storm merge (which takes --format and --out); drop it\n");
    expect(existsSync(join(dir, "merged.html.tmp"))).toBe(false);
  });
});
