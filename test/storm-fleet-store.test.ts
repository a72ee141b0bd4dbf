/**
 * Storms with a shared fleet store (SPEC 23, "Storms simulate it"), as a user runs them:
 * `clients.shared: store` runs each client's own dispatcher, its `scope: fleet` policies
 * synced through the runtime's memory store on the storm's clock. Per-client throttling
 * amplifies an outage that the store absorbs nearly as one dispatcher for the fleet does;
 * the same seed gives the same bytes; a `down` window makes the clients fall back, and the
 * report says so; `--sweep sync_ms` maps the sync interval; `--against shared:MODE` compares.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { failbook, REPO, tempProject } from "./helpers/cli.js";

const REGISTRY = readFileSync(join(REPO, "examples/storm-retry-collapse/registry.yaml"), "utf8");

/** gRPC's retry throttling, one token count for the fleet, synced every 100 ms. */
const PLAYBOOK = `apiVersion: failbook/v1
kind: Playbook
name: inventory-fleet-throttling
fleet: { sync_ms: 100, lease_ms: 1000 }
retry_throttling: { max_tokens: 10, token_ratio: 0.1, scope: fleet }
verdicts:
  upstream.timeout: { action: retry_with_backoff, max_retries: 3, backoff_ms: [50, 100, 200] }
  upstream.unavailable: { action: retry_with_backoff, max_retries: 3, backoff_ms: [50, 100, 200] }
  unknown: { action: fail }
`;

/** Fifty clients; for ten seconds the upstream fails every attempt. */
const STORM = `apiVersion: failbook/v1
kind: Storm
name: inventory-outage
seed: 3
duration_ms: 30000
clients:
  count: 50
  shared: store
  store: { latency_ms: 2 }
  arrival: { rate_per_s: 100 }
  calls:
    - { tool: inventory.reserve }
upstream:
  latency_ms: { base: 20 }
phases:
  - { from_ms: 10000, to_ms: 20000, errors: [{ ratio: 1, error: { kind: http, http_status: 503 } }] }
`;

function project(storm = STORM, playbook = PLAYBOOK): string {
  return tempProject({ "failbook.yaml": "registry: registry.yaml\nplaybook: playbook.yaml\n", "registry.yaml": REGISTRY, "playbook.yaml": playbook, "storms/outage.yaml": storm });
}

interface Result {
  shared: string;
  summary: { calls: number; attempts: number; amplification: number; worst_bucket: { amplification: number } | null };
  store?: { sync_ms: number; latency_ms: number; syncs: number; failed_syncs: number; down_ms: number; outages: number; clients_fell_back: number; fallback_ms: number };
  buckets: { from_ms: number; offered: number; sent: number }[];
}
interface Report {
  storms: { current: Result; baseline: Result | null }[];
  sweeps: { axes: { name: string; values: number[] }[]; operating: number[]; cells: { values: number[]; verdict: string; amplification: number }[] }[];
}

function json(args: string[], dir: string): Report {
  const r = failbook(["storm", ...args, "--format", "json"], { cwd: dir });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Report;
}

/** Attempts beyond the calls offered: the retries an outage drew. */
const extra = (r: Result) => r.summary.attempts - r.summary.calls;

describe("storms with shared: store (SPEC 23)", () => {
  it("per-client throttling amplifies the outage; the store absorbs it nearly as one dispatcher for the fleet does", () => {
    const dir = project();
    const [client, fleet] = ["client", "fleet"].map((mode) => json(["--against", `shared:${mode}`], dir).storms[0]!);
    const store = client!.current;
    expect([store.shared, client!.baseline!.shared, fleet!.baseline!.shared]).toEqual(["store", "client", "fleet"]);
    // Each client's own 10 tokens let it fail 5 times before it throttles: 50 clients, some 250 retries into the outage.
    expect(extra(client!.baseline!)).toBeGreaterThan(150);
    expect(client!.baseline!.summary.worst_bucket!.amplification).toBeGreaterThan(2);
    // Through the store, the fleet's one count throttles them all within a sync or two.
    expect(extra(store)).toBeLessThan(extra(client!.baseline!) / 8);
    expect(extra(store)).toBeLessThan(extra(fleet!.baseline!) + 25);
    expect(store.summary.worst_bucket!.amplification).toBeLessThan(1.25);
    // Every client synced about every 100 ms, and the store never failed one.
    expect(store.store).toMatchObject({ sync_ms: 100, latency_ms: 2, failed_syncs: 0, down_ms: 0, outages: 0, clients_fell_back: 0, fallback_ms: 0 });
    expect(store.store!.syncs).toBeGreaterThan(50 * 290);
    expect(store.store!.syncs).toBeLessThanOrEqual(50 * 300);
  });

  it("as the sync gets fresher the store converges on one dispatcher for the fleet: at 1 ms and no latency they draw the same retries", () => {
    const fresh = (syncMs: number) => json(["--against", "shared:fleet"], project(STORM.replace("store: { latency_ms: 2 }", `store: { latency_ms: 0, sync_ms: ${syncMs} }`))).storms[0]!;
    const [one, hundred] = [fresh(1), fresh(100)];
    // The ideal (fleet) does not depend on the store; the store's staleness is all that separates them.
    expect(extra(one.baseline!)).toBe(extra(hundred.baseline!));
    expect(Math.abs(extra(one.current) - extra(one.baseline!))).toBeLessThanOrEqual(1);
    expect(extra(hundred.current)).toBeGreaterThan(extra(one.current) + 3);
    expect(one.current.store!.syncs).toBeGreaterThan(50 * 29_000);
  });

  it("shows another sharing mode side by side in text and HTML, the store's syncs among what the run cost", () => {
    const r = failbook(["storm", "--against", "shared:client"], { cwd: project() });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("50 clients (a dispatcher each, synced through a store every 100 ms)");
    expect(r.stdout).toMatch(/ {2}amplification +1\.0\d+ +1\.\d+/);
    expect(r.stdout).toMatch(/current +shared:client/);
    expect(r.stdout).toMatch(/store: sync every 100 ms, latency 2 ms; [\d,]+ syncs, 0 failed; down 0 ms; no client fell back/);
    const html = failbook(["storm", "--against", "shared:fleet", "--format", "html"], { cwd: project() });
    expect(html.code).toBe(0);
    expect(html.stdout).toContain("50 clients, a dispatcher each, synced through a store every 100 ms;");
    expect(html.stdout).toMatch(/<li>store: sync every 100 ms, latency 2 ms; [\d,]+ syncs, 0 failed; down 0 ms; no client fell back<\/li>/);
  });

  it("gives byte-identical output for the same seed, text and JSON", () => {
    const dir = project(STORM.replace("store: { latency_ms: 2 }", "store: { latency_ms: 2, down: [{ from_ms: 12000, to_ms: 16000 }] }"));
    for (const format of ["text", "json"]) {
      const [a, b] = [1, 2].map(() => failbook(["storm", "--format", format], { cwd: dir }));
      expect(a!.code).toBe(0);
      expect(a!.stdout.length).toBeGreaterThan(500);
      expect(b!.stdout).toBe(a!.stdout);
    }
    const other = failbook(["storm", "--format", "json", "--seed", "4"], { cwd: dir });
    expect(other.stdout).not.toBe(failbook(["storm", "--format", "json"], { cwd: dir }).stdout);
  });

  it("a down window makes every client fall back to deciding alone after lease_ms, and the report shows it", () => {
    // The store is unreachable from 5 s to 15 s; the upstream fails every attempt from 10 s to 20 s.
    const down = STORM.replace("store: { latency_ms: 2 }", "store: { latency_ms: 2, down: [{ from_ms: 5000, to_ms: 15000 }] }");
    const up = json([], project()).storms[0]!.current;
    const r = json([], project(down)).storms[0]!.current;
    // Syncs sent in the window fail: 50 clients, 10 a second, 10 seconds.
    expect(r.store).toMatchObject({ down_ms: 10000, failed_syncs: 5000, outages: 50, clients_fell_back: 50 });
    // Each client decides alone from lease_ms (1 s) into the window until its first good sync after it.
    expect(r.store!.fallback_ms).toBeGreaterThanOrEqual(50 * 9000);
    expect(r.store!.fallback_ms).toBeLessThanOrEqual(50 * 9100);
    // Alone, each client spends its own tokens: the outage draws per-client retries until the store is back, and not after.
    const retriesIn = (x: Result, from: number, to: number) => x.buckets.filter((b) => b.from_ms >= from && b.from_ms < to).reduce((a, b) => a + b.sent - b.offered, 0);
    expect(retriesIn(r, 10000, 15000)).toBeGreaterThan(retriesIn(up, 10000, 15000) + 100);
    expect(retriesIn(r, 0, 5000)).toBe(retriesIn(up, 0, 5000));
    const text = failbook(["storm"], { cwd: project(down) }).stdout;
    expect(text).toMatch(/store: sync every 100 ms, latency 2 ms; [\d,]+ syncs, 5,000 failed; down 10 s; 50 clients fell back \(50 outages reported\), [\d.]+ s without the fleet in all/);
  });

  it("sweeps sync_ms from the playbook's operating point, and the grid runs on two workers", () => {
    const report = json(["--sweep", "sync_ms=50..1000:50", "--workers", "2"], project());
    const sweep = report.sweeps[0]!;
    expect(sweep.axes[0]!.name).toBe("sync_ms");
    expect(sweep.operating).toEqual([100]);
    expect(sweep.cells.map((c) => c.values[0])).toEqual(Array.from({ length: 20 }, (_, i) => 50 * (i + 1)));
    for (const cell of sweep.cells) expect(cell.verdict).toBe("recovered");
    // Staler totals let more retries through before the fleet's count throttles them.
    expect(sweep.cells[19]!.amplification).toBeGreaterThan(sweep.cells[0]!.amplification);
    // The file's own store.sync_ms is the operating point when it sets one.
    const own = json(["--sweep", "sync_ms=100..300:100"], project(STORM.replace("store: { latency_ms: 2 }", "store: { latency_ms: 2, sync_ms: 200 }")));
    expect(own.sweeps[0]!.operating).toEqual([200]);
  });

  it.each([
    { name: "sync_ms on a storm without a store", args: ["--sweep", "sync_ms=50..100:50"], storm: STORM.replace("  shared: store\n  store: { latency_ms: 2 }\n", ""), text: "--sweep sync_ms: storm inventory-outage has shared: client; sync_ms is how often clients sync with a fleet store (shared: store)" },
    { name: "sync_ms from 0", args: ["--sweep", "sync_ms=0..100:50"], storm: STORM, text: "--sweep sync_ms=0..100:50: sync_ms takes whole milliseconds from 1" },
    { name: "an unknown sharing mode", args: ["--against", "shared:everyone"], storm: STORM, text: "--against shared:MODE takes one of shared:client, shared:store, shared:fleet, not 'shared:everyone'" },
  ])("refuses $name in one line, exit 2", ({ args, storm, text }) => {
    const r = failbook(["storm", ...args], { cwd: project(storm) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(text);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });

  it.each([
    { name: "a store: without shared: store", storm: STORM.replace("  shared: store\n", ""), playbook: PLAYBOOK, at: "storms/outage.yaml:8:3", rule: "schema", severity: "error", text: "store: is the fleet store the clients sync through with shared: store, and this storm has shared: client" },
    { name: "a down window that ends before it starts", storm: STORM.replace("store: { latency_ms: 2 }", "store: { latency_ms: 2, down: [{ from_ms: 5000, to_ms: 4000 }] }"), playbook: PLAYBOOK, at: "storms/outage.yaml:9:58", rule: "schema", severity: "error", text: "store down window 1 ends (to_ms 4000) before it starts (from_ms 5000)" },
    { name: "a misspelt store key", storm: STORM.replace("store: { latency_ms: 2 }", "store: { latency: 2 }"), playbook: PLAYBOOK, at: "storms/outage.yaml:9:12", rule: "schema", severity: "error", text: "latency" },
    { name: "a store that would sync more often than a storm runs", storm: STORM.replace("count: 50", "count: 5000").replace("store: { latency_ms: 2 }", "store: { latency_ms: 2, sync_ms: 1 }"), playbook: PLAYBOOK, at: "storms/outage.yaml:9:36", rule: "storm-too-large", severity: "error", text: "3,000 clients syncing with the store every 1 ms for duration_ms 30000 would make about 90,000,000 syncs; a storm runs at most 20,000,000: raise store.sync_ms" },
    { name: "shared: store under a playbook with no scope: fleet policy", storm: STORM, playbook: PLAYBOOK.replace(", scope: fleet", ""), at: "storms/outage.yaml:8:11", rule: "storm-store-unused", severity: "warning", text: "shared: store syncs the playbook's scope: fleet policies through the store, and the playbook has none: the storm runs as shared: client" },
  ])("lint locates $name", ({ storm, playbook, at, rule, severity, text }) => {
    const r = failbook(["lint", "--format", "json"], { cwd: project(storm, playbook) });
    const findings = (JSON.parse(r.stdout) as { findings: { rule: string; severity: string; file: string; line: number; column: number; message: string }[] }).findings.filter((f) => f.file.startsWith("storms/"));
    expect(findings.map((f) => [f.rule, f.severity, `${f.file}:${f.line}:${f.column}`]), r.stdout).toEqual([[rule, severity, at]]);
    expect(findings[0]!.message).toContain(text);
  });

  it("a fleet breaker opens for every client through the store, where fifty breakers of their own never see enough attempts to open", () => {
    // 100 calls a second over 50 clients: 2 a second each, never the 40 attempts a breaker needs in its window on its own.
    const breaker = "circuit_breakers:\n  api: { tools: \"inventory.*\", failure_ratio: 0.5, minimum_throughput: 40, sampling_ms: 2000, break_ms: 2000, scope: fleet }\nverdicts:";
    const dir = project(STORM, PLAYBOOK.replace("verdicts:", breaker));
    type Costed = Result & { cost: { short_circuited: number; breakers: { breaker: string; instances: number; open_after_trigger: number }[] } };
    const [{ current: store, baseline: client }] = json(["--against", "shared:client"], dir).storms as [{ current: Costed; baseline: Costed }];
    expect(client.cost.short_circuited).toBe(0);
    // Through the store the fleet's summed window opens it within two syncs, in every client: the outage's attempts are short-circuited.
    expect(store.cost.short_circuited).toBeGreaterThan(500);
    expect(store.cost.breakers).toEqual([expect.objectContaining({ breaker: "api", instances: 50, open_after_trigger: 50 })]);
    expect(store.summary.attempts).toBeLessThan(client.summary.attempts - 500);
  });

  it("a sharded sweep over sync_ms merges into the unsharded report, the store's figures included", () => {
    const dir = project();
    const whole = failbook(["storm", "--sweep", "sync_ms=100..400:100", "--format", "json"], { cwd: dir }).stdout;
    const shards = [1, 2].map((i) => failbook(["storm", "--sweep", "sync_ms=100..400:100", "--shard", `${i}/2`, "--format", "json", "--out", `shard-${i}.json`], { cwd: dir }));
    for (const s of shards) expect(s.code).toBe(0);
    const merged = failbook(["storm", "merge", "shard-1.json", "shard-2.json"], { cwd: dir });
    expect(merged.code).toBe(0);
    expect(merged.stdout).toBe(whole);
    const stormJson = failbook(["storm", "--format", "json", "--shard", "1/1", "--out", "one.json"], { cwd: dir });
    expect(stormJson.code).toBe(0);
    expect(failbook(["storm", "merge", "one.json"], { cwd: dir }).stdout).toContain('"syncs":');
  });
});
