/**
 * `failbook storm` as a user runs it: located findings for bad storm files, expect checks
 * with exit 1 naming the bucket and figure, --against side by side, JSON and HTML byte for
 * byte the same, --sweep's map and margin, --shard and merge, --workers.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, failbook, REPO, tempProject } from "./helpers/cli.js";

const EXAMPLE = join(REPO, "examples/storm-retry-collapse");
const read = (path: string) => readFileSync(join(EXAMPLE, path), "utf8");

/** A storm small enough to run in a fraction of a second, its spike the example's collapse in miniature. */
const SMALL_STORM = `apiVersion: failbook/v1
kind: Storm
name: small-spike
seed: 3
duration_ms: 15000
step_ms: 500
clients:
  count: 20
  arrival: { rate_per_s: 100 }
  calls:
    - { tool: inventory.reserve }
upstream:
  latency_ms: { base: 50, per_concurrent: 5 }
  gateway: { timeout_ms: 500 }
phases:
  - { from_ms: 3000, to_ms: 6000, arrival_x: 2.5 }
expect:
  recovers_within_ms: 5000
`;

/** The example's registry, the naive playbook as the current one and the fixed one in baseline/. */
function project(storm = SMALL_STORM, extra: Record<string, string> = {}): string {
  return tempProject({
    "failbook.yaml": "registry: registry.yaml\nplaybook: playbook.yaml\n",
    "registry.yaml": read("registry.yaml"),
    "playbook.yaml": read("naive/playbook.yaml"),
    "baseline/failbook.yaml": "registry: registry.yaml\nplaybook: playbook.yaml\n",
    "baseline/registry.yaml": read("registry.yaml"),
    "baseline/playbook.yaml": read("playbook.yaml"),
    "storms/small.yaml": storm,
    ...extra,
  });
}

describe("storm files are linted with positions", () => {
  const base = SMALL_STORM.replace(/\nexpect:[\s\S]*$/, "\n");
  it.each([
    { name: "zero clients", edit: (s: string) => s.replace("count: 20", "count: 0"), at: "storms/small.yaml:8:10", rule: "schema", text: "'count' must be >= 1, not 0" },
    { name: "a negative rate", edit: (s: string) => s.replace("rate_per_s: 100", "rate_per_s: -5"), at: "storms/small.yaml:9:26", rule: "schema", text: "'rate_per_s' must be > 0, not -5" },
    {
      name: "phases that set the same multiplier over the same time",
      edit: (s: string) => `${s}  - { from_ms: 5000, to_ms: 9000, arrival_x: 3 }\n`,
      at: "storms/small.yaml:17:35",
      rule: "storm-phases-overlap",
      text: "phases 1 and 2 both set arrival_x over 5000-6000 ms",
    },
    {
      name: "a tool no rule, playbook entry or fixture knows",
      edit: (s: string) => s.replace("tool: inventory.reserve", "tool: inventory.reserv"),
      at: "storms/small.yaml:11:15",
      rule: "storm-tool-unknown",
      text: "tool 'inventory.reserv' is named by no registry rule, playbook entry or fixture, so the storm runs it under the playbook's defaults; did you mean 'inventory.reserve'?",
    },
    {
      name: "a duration that would need billions of calls",
      edit: (s: string) => s.replace("duration_ms: 15000", "duration_ms: 604800000").replace("step_ms: 500", "step_ms: 60000").replace("rate_per_s: 100", "rate_per_s: 40000"),
      at: "storms/small.yaml:5:14",
      rule: "storm-too-large",
      text: "duration_ms 604800000 would offer about 24,192,180,000 calls; a storm runs at most 20,000,000 (a few minutes): shorten duration_ms or lower the arrival rate",
    },
    {
      name: "calls whose playbook retries them past the attempts a storm runs",
      edit: (s: string) => s.replace("duration_ms: 15000", "duration_ms: 20000").replace("rate_per_s: 100", "rate_per_s: 1000"),
      files: { "playbook.yaml": read("naive/playbook.yaml").replaceAll("max_retries: 3", "max_retries: 1000").replaceAll("backoff_ms: [0, 0, 0]", "backoff_ms: [0]") },
      at: "storms/small.yaml:5:14",
      rule: "storm-too-large",
      text: "duration_ms 20000 would offer about 24,500 calls, and the playbook allows a call up to 1,001 attempts (verdict 'upstream.timeout': max_retries 1000): about 24,524,500 attempts, retries and hedges included; a storm runs at most 20,000,000 attempts",
    },
    {
      name: "a phase that starts when the run has ended",
      edit: (s: string) => s.replace("from_ms: 3000, to_ms: 6000", "from_ms: 15000, to_ms: 18000"),
      at: "storms/small.yaml:16:16",
      rule: "storm-phase-outside-duration",
      text: "phase 1 starts at 15000 ms, when the run has ended (duration_ms 15000): it never happens, and the storm's expect would pass without its trigger",
    },
    {
      name: "an error no registry rule classifies",
      edit: (s: string) => s.replace("gateway: { timeout_ms: 500 }", "gateway: { timeout_ms: 500, error: { kind: weird } }"),
      at: "storms/small.yaml:14:31",
      rule: "storm-error-unclassified",
      text: "the upstream's error 'weird' classifies to the fallback verdict 'unknown'",
    },
  ] as { name: string; edit: (s: string) => string; files?: Record<string, string>; at: string; rule: string; text: string }[])("$name", ({ edit, files, at, rule, text }) => {
    // A fixture names the tool, so the project has tools to check a storm's against.
    const dir = project(edit(base), { "fixtures/one.yaml": "apiVersion: failbook/v1\nkind: Fixture\nname: one\ncall: { id: c1, tool: inventory.reserve }\nresponses: [{ status: ok }]\n", "failbook.yaml": "registry: registry.yaml\nplaybook: playbook.yaml\nfixtures: [fixtures]\n", ...files });
    const lint = failbook(["lint", "--format", "json"], { cwd: dir });
    const findings = (JSON.parse(lint.stdout) as { findings: { rule: string; file: string; line: number; column: number; message: string }[] }).findings;
    const found = findings.find((f) => f.rule === rule);
    expect(found, lint.stdout).toBeDefined();
    expect(`${found!.file}:${found!.line}:${found!.column}`).toBe(at);
    expect(found!.message).toContain(text);
    const storm = failbook(["storm"], { cwd: dir });
    if (rule === "storm-tool-unknown" || rule === "storm-error-unclassified") return; // warnings: the storm still runs
    expect(storm.code).toBe(1);
    expect(storm.stderr).toContain(`${at} error`);
    expect(storm.stderr).toContain("cannot run storms until their files are valid");
  });
});

describe("failbook storm", () => {
  it("prints the verdict, the summary and a chart, and exits 1 naming the bucket and figure when an expect fails", () => {
    const r = failbook(["storm"], { cwd: project() });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("storm small-spike (storms/small.yaml), seed 3, 20 clients");
    expect(r.stdout).toContain("verdict: metastable (the trigger ended at 6 s");
    expect(r.stdout).toMatch(/amplification 3\.\d+ \(worst \d+(\.\d+)? at /);
    expect(r.stdout).toContain("─ calls offered  ░ attempts sent  █ calls succeeded");
    expect(r.stdout).toMatch(/✗ expect recovers_within_ms 5000: did not recover \(metastable\) after the last phase ended \(at 6000 ms\); recovers_within_ms 5000: success was \d+(\.\d)? % of calls offered at bucket 28 \(14000-14500 ms\)/);
  });

  it("redacts the upstream's error messages with the config's patterns on the linear engine (SPEC 16): a pattern that backtracks cannot hang a storm", () => {
    // (a+)+$ against 34 a's and a "!" takes JavaScript's engine billions of steps an attempt.
    const storm = SMALL_STORM.replace(/\nexpect:[\s\S]*$/, "\n").replace("rate_per_s: 100", "rate_per_s: 10").replace(
      "  gateway: { timeout_ms: 500 }\n",
      `  gateway: { timeout_ms: 500 }\n  errors:\n    - { ratio: 1, error: { kind: http, http_status: 503, message: "${"a".repeat(34)}!" } }\n`,
    );
    const dir = project(storm);
    writeFileSync(join(dir, "failbook.yaml"), 'registry: registry.yaml\nplaybook: playbook.yaml\nredact: ["(a+)+$"]\n');
    // Bounded, so that a regression fails here instead of hanging the suite.
    const r = spawnSync(process.execPath, [BIN, "storm", "--format", "json"], { cwd: dir, encoding: "utf8", timeout: 20_000, env: { PATH: process.env.PATH ?? "", NO_COLOR: "1" } });
    expect(r.signal, "failbook storm was still running after 20 s").toBeNull();
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
  });

  it("exits 0 when every expect holds", () => {
    const dir = project();
    writeFileSync(join(dir, "playbook.yaml"), read("playbook.yaml"));
    const r = failbook(["storm"], { cwd: dir });
    expect(r.stdout).toContain("verdict: recovered");
    expect(r.stdout).toContain("✓ expect recovers_within_ms 5000");
    expect(r.code).toBe(0);
  });

  it("writes the same JSON and HTML, byte for byte, every time; --seed draws another storm", () => {
    const dir = project();
    const json = () => failbook(["storm", "--format", "json"], { cwd: dir }).stdout;
    const first = json();
    expect(json()).toBe(first);
    const report = JSON.parse(first) as { storms: { current: { seed: number; summary: { verdict: string }; buckets: unknown[] } }[] };
    expect(report.storms[0].current.summary.verdict).toBe("metastable");
    expect(report.storms[0].current.buckets).toHaveLength(30);
    expect(failbook(["storm", "--format", "html"], { cwd: dir }).stdout).toBe(failbook(["storm", "--format", "html"], { cwd: dir }).stdout);
    const other = JSON.parse(failbook(["storm", "--format", "json", "--seed", "9"], { cwd: dir }).stdout) as typeof report;
    expect(other.storms[0].current.seed).toBe(9);
    expect(other.storms[0].current.summary.verdict).toBe("metastable");
  });

  it("--against runs both playbooks with the same seed, side by side, the regression marked", () => {
    const r = failbook(["storm", "--against", "baseline"], { cwd: project() });
    expect(r.stdout).toMatch(/verdict\s+metastable\s+recovered \(\d+ ms\)\s+◀ regression/);
    expect(r.stdout).toContain("regressed: verdict recovered -> metastable");
    expect(r.stdout).toContain("baseline (baseline):");
    expect(r.code).toBe(1);
  });

  it("--against git:REV reads the baseline's playbook as committed", () => {
    const dir = project();
    writeFileSync(join(dir, "playbook.yaml"), read("playbook.yaml"));
    const git = (...args: string[]) => spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@failbook.invalid", "-c", "commit.gpgsign=false", ...args], { cwd: dir, encoding: "utf8" });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-q", "-m", "the fix");
    writeFileSync(join(dir, "playbook.yaml"), read("naive/playbook.yaml"));
    const r = failbook(["storm", "--against", "git:HEAD", "--format", "json"], { cwd: dir });
    const report = JSON.parse(r.stdout) as { against: string; storms: { regressions: string[]; baseline: { playbook: string } }[] };
    expect(report.against).toBe("git:HEAD");
    expect(report.storms[0].baseline.playbook).toBe("inventory-fixed");
    expect(report.storms[0].regressions).toContain("verdict recovered -> metastable");
    expect(r.code).toBe(1);
  });

  it("says there is nothing to run when the project has no storms, and exits 0 (failbook:check runs it everywhere)", () => {
    const dir = tempProject({ "failbook.yaml": "registry: registry.yaml\nplaybook: playbook.yaml\n", "registry.yaml": read("registry.yaml"), "playbook.yaml": read("playbook.yaml") });
    const r = failbook(["storm"], { cwd: dir });
    expect(r.stderr).toContain("no storm files in storms/ (set storms: in failbook.yaml to look elsewhere)");
    expect(r.code).toBe(0);
  });

  it.each([
    { args: ["--sweep", "arrival=1..2:0.5"], text: "--sweep takes NAME=FROM..TO:STEP (e.g. arrival_x=1..3:0.25), NAME one of arrival_x, capacity_x" },
    { args: ["--sweep", "capacity_x=1..2:0.5"], text: "--sweep capacity_x: no phase of storm small-spike sets capacity_x" },
    { args: ["--sweep", "arrival_x=1..2000:0.1"], text: "a sweep runs at most 10000 cells" },
    { args: ["--sweep", "ratio=0.5..1.5:0.5"], text: "--sweep ratio=0.5..1.5:0.5: an error ratio is a share of attempts, at most 1" },
    { args: ["--shard", "3/2"], text: "--shard takes I/N with 1 <= I <= N" },
    { args: ["missing.yaml"], text: "storm file not found: missing.yaml" },
    { args: ["storms/*.json"], text: "no storm file matches storms/*.json: name storm files, a directory or a glob that holds some" },
    { args: ["fixtures"], text: "no storm file matches fixtures (a directory with no .yaml or .yml file)" },
    {
      args: ["--sweep", "rate_per_s=1000000..1000000:1"],
      text: "storms/small.yaml:5:14: storm small-spike with --sweep rate_per_s=1000000 is too large to run (storm-too-large): duration_ms 15000 would offer about 19,500,000 calls, and the playbook allows a call up to 4 attempts (verdict 'upstream.timeout': max_retries 3): about 78,000,000 attempts",
    },
  ])("refuses $args with one line and exit 2", ({ args, text }) => {
    const r = failbook(["storm", ...args], { cwd: project(SMALL_STORM, { "fixtures/README.md": "no fixtures yet\n" }) });
    expect(r.stderr).toContain(text);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.code).toBe(2);
  });
});

describe("failbook storm --sweep", () => {
  const sweep = ["--sweep", "arrival_x=1..3:1", "--sweep", "trigger_ms=1000..3000:2000"];

  it("maps the verdicts over the grid and gives the margin to the nearest metastable cell", () => {
    const dir = project();
    writeFileSync(join(dir, "playbook.yaml"), read("playbook.yaml"));
    const r = failbook(["storm", "--sweep", "arrival_x=1..3:0.5"], { cwd: dir });
    expect(r.stdout).toContain("sweep small-spike (storms/small.yaml): arrival_x 1..3 step 0.5; operating point arrival_x 2.5");
    expect(r.stdout).toMatch(/2\.5 {2}r recovered .*◀ operating point/);
    expect(r.stdout).toMatch(/^ {4}1 {2}\. stable/m);
    const json = JSON.parse(failbook(["storm", "--sweep", "arrival_x=1..3:0.5", "--format", "json"], { cwd: dir }).stdout) as { sweeps: { cells: { values: number[]; verdict: string }[]; nearest_metastable: unknown }[] };
    expect(json.sweeps[0].cells.map((c) => c.values[0])).toEqual([1, 1.5, 2, 2.5, 3]);
    expect(json.sweeps[0].cells[0].verdict).toBe("stable");
  });

  it("names the nearest metastable cell and its margin in each figure", () => {
    const r = failbook(["storm", "--sweep", "arrival_x=1..2.5:0.5", "--format", "json"], { cwd: project() });
    const json = JSON.parse(r.stdout) as { sweeps: { operating: number[]; cells: { verdict: string }[]; nearest_metastable: { values: number[]; margin: number[] } }[] };
    const s = json.sweeps[0];
    expect(s.operating).toEqual([2.5]);
    expect(s.cells.map((c) => c.verdict)).toEqual(["stable", "stable", "metastable", "metastable"]);
    expect(s.nearest_metastable).toEqual({ values: [2.5], margin: [0] });
  });

  it("--shard I/N and storm merge: the merge of every shard is the unsharded JSON, byte for byte; --workers changes nothing", () => {
    const dir = project();
    const whole = failbook(["storm", ...sweep, "--format", "json"], { cwd: dir });
    for (const i of [1, 2, 3]) writeFileSync(join(dir, `shard-${i}.json`), failbook(["storm", ...sweep, "--format", "json", "--shard", `${i}/3`], { cwd: dir }).stdout);
    const merged = failbook(["storm", "merge", "shard-3.json", "shard-1.json", "shard-2.json"], { cwd: dir });
    expect(merged.stdout).toBe(whole.stdout);
    expect(merged.code).toBe(whole.code);
    expect(failbook(["storm", ...sweep, "--format", "json", "--workers", "2"], { cwd: dir }).stdout).toBe(whole.stdout);
    const missing = failbook(["storm", "merge", "shard-1.json", "shard-2.json"], { cwd: dir });
    expect(missing.stderr).toContain("shard 3 of 3 missing");
    expect(missing.code).toBe(2);
  });
});

describe("the example project", () => {
  it("shows in its README exactly what failbook storm prints for it", () => {
    const readme = read("README.md");
    for (const [args, config] of [[["storm"], "."], [["storm"], "naive"], [["storm", "--against", "."], "naive"]] as const) {
      const r = failbook(["--config", config, ...args], { cwd: EXAMPLE });
      expect(readme).toContain(r.stdout);
    }
  });
});
