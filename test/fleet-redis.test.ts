/**
 * Fleet state through a real Redis (SPEC 23): processes of one service, each a child running
 * the built failbook-runtime, share a `scope: fleet` retry budget through redis-server on a
 * loopback port, while they call one loopback HTTP upstream.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Redis } from "ioredis";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import { redisFleetStore } from "failbook-runtime/redis/index.js";
import type { FleetBreakerReport } from "failbook-runtime/engine/fleet/store.js";
import { createDispatcher } from "failbook-runtime/engine/dispatch.js";
import { REPO } from "./helpers/cli.js";
import { playbook, REGISTRY } from "./helpers/dispatch.js";
import { redisCommand, skipWithoutRedis, sleep, slowProxy, startRedis, type RedisServer } from "./helpers/redis.js";

const CHILD = join(REPO, "test/helpers/fleet-child.mjs");
const BUDGET = { percent: 1, min_concurrency: 4 };

/** A loopback upstream: holds each request `holdMs`, answers 503 while `failing`; counts the retries, and those in flight at once; logs each answer. */
function upstream(): { server: Server; port: () => number; failing: boolean; holdMs: number; maxRetriesInFlight: number; retries: number; times: number[]; answers: { at: number; ok: boolean }[]; reset(): void } {
  let retriesInFlight = 0;
  const state = {
    server: createServer((req, res) => {
      const retry = Number(req.headers["x-attempt"]) > 1;
      if (retry) state.retries++;
      state.times.push(Date.now());
      if (retry) state.maxRetriesInFlight = Math.max(state.maxRetriesInFlight, ++retriesInFlight);
      setTimeout(() => {
        if (retry) retriesInFlight--;
        state.answers.push({ at: Date.now(), ok: !state.failing });
        res.writeHead(state.failing ? 503 : 200).end();
      }, state.holdMs);
    }),
    port: () => (state.server.address() as { port: number }).port,
    failing: false,
    holdMs: 5,
    maxRetriesInFlight: 0,
    retries: 0,
    times: [] as number[],
    answers: [] as { at: number; ok: boolean }[],
    reset() {
      state.maxRetriesInFlight = 0;
      state.retries = 0;
      state.times = [];
      state.answers = [];
    },
  };
  return state;
}

interface ChildSummary {
  calls: number;
  maxMs: number;
  events: { type: string; at: number }[];
  status: { syncs: number; failures: number; mode: string };
  code: number | null;
}

interface FleetRun {
  processes: number;
  scope: "process" | "fleet";
  durationMs: number;
  concurrency: number;
  gapMs?: number;
  fleet?: Playbook["fleet"];
  prefix: string;
  /** Wait for each process's first good sync before the start (default). */
  waitSync?: boolean;
  /** Runs while the processes dispatch, from the moment they start. */
  during?: () => Promise<void>;
  /** The playbook's shared policies, `scope` set on each (default: the retry budget). */
  policies?: Partial<Pick<Playbook, "retry_budget" | "retry_throttling" | "retry_quota" | "rate_limits" | "circuit_breakers">>;
  maxRetries?: number;
  /** The prefixes of the event types the processes keep (default fleet_). */
  record?: string[];
}

let redis: RedisServer;
const up = upstream();
const dir = mkdtempSync(join(tmpdir(), "failbook-fleet-"));

/** Start the processes, wait for each one's first sync, start them together, collect their summaries. */
async function runFleet(run: FleetRun, redisPort = redis.port): Promise<ChildSummary[]> {
  const project = join(dir, `${run.prefix}.json`);
  const policies: Partial<Playbook> = { ...(run.policies ?? { retry_budget: BUDGET }) };
  for (const key of ["retry_budget", "retry_throttling", "retry_quota"] as const) if (policies[key] !== undefined) policies[key] = { ...policies[key], scope: run.scope } as never;
  for (const key of ["rate_limits", "circuit_breakers"] as const) {
    if (policies[key] !== undefined) policies[key] = Object.fromEntries(Object.entries(policies[key]).map(([name, policy]) => [name, { ...policy, scope: run.scope }])) as never;
  }
  const maxRetries = run.maxRetries ?? 5;
  const action = maxRetries === 0 ? { action: "fail" as const } : { action: "retry_with_backoff" as const, max_retries: maxRetries, backoff_ms: Array(maxRetries).fill(5) };
  const book = playbook({ server: action }, { ...policies, fleet: run.fleet ?? { sync_ms: 50, lease_ms: 1000 } });
  writeFileSync(project, JSON.stringify({ registry: REGISTRY, playbook: book }));
  const children = Array.from({ length: run.processes }, (_, i) => {
    const settings = { project, redisPort, upstreamPort: up.port(), prefix: run.prefix, instance: `p${i}`, client: i % 2 === 0 ? "ioredis" : "node-redis", durationMs: run.durationMs, concurrency: run.concurrency, gapMs: run.gapMs ?? 0, waitSync: run.waitSync ?? true, record: run.record };
    const child = spawn(process.execPath, [CHILD, JSON.stringify(settings)], { stdio: ["pipe", "pipe", "inherit"] });
    const lines = createInterface({ input: child.stdout! });
    const ready = new Promise<void>((resolve) => {
      lines.once("line", () => resolve());
      child.once("exit", () => resolve());
    });
    const summary = new Promise<ChildSummary>((resolve) => {
      let last = "";
      lines.on("line", (line) => (last = line));
      child.on("exit", (code) => resolve({ ...(last.startsWith("{") ? JSON.parse(last) : { calls: 0, maxMs: 0, events: [], status: {} }), code }));
    });
    return { child, ready, summary };
  });
  await Promise.all(children.map((c) => c.ready));
  for (const c of children) c.child.stdin!.write("go\n");
  await run.during?.();
  return Promise.all(children.map((c) => c.summary));
}

/** The most requests in any window of `ms`. */
function busiestWindow(times: number[], ms: number): number {
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= ms) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe.skipIf(skipWithoutRedis("fleet-redis"))("fleet state through Redis (SPEC 23)", () => {
  beforeAll(async () => {
    redis = await startRedis();
    await new Promise<void>((resolve) => up.server.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    await redis?.stop();
    up.server.close();
  });

  it("(a) a fleet retry budget holds across eight processes within its stated bound, where scope: process overshoots it about eightfold", async () => {
    up.failing = true;
    up.holdMs = 30;
    const peaks: Record<string, number> = {};
    for (const scope of ["process", "fleet"] as const) {
      up.reset();
      const summaries = await runFleet({ processes: 8, scope, durationMs: 1200, concurrency: 6, prefix: `budget-${scope}` });
      for (const s of summaries) expect(s.code).toBe(0);
      peaks[scope] = up.maxRetriesInFlight;
    }
    // The limit is max(4, 1 % of about 48 calls) = 4. Stated bound (docs/fleet.md): the limit plus
    // ceil(limit / processes) per process started since its last sync: 4 + 8 × 1 = 12.
    expect(peaks.fleet).toBeLessThanOrEqual(12);
    expect(peaks.process).toBeGreaterThan(4 * 5);
    expect(peaks.process).toBeGreaterThan(2 * peaks.fleet!);
  }, 30_000);

  // Eight processes, one call at a time each, on an upstream that only fails.
  // Throttling: scope: process retries while each process's own count is above 10, about 8 retries each;
  // stated bound (docs/fleet.md): max_tokens / 2 + 2 × processes = 26 for the fleet's one count.
  // Quota: scope: process takes 10 retries of cost 5 in each process (80); stated bound:
  // capacity / cost + 2 × processes = 26.
  it.each([
    { policy: "retry throttling", policies: { retry_throttling: { max_tokens: 20, token_ratio: 0.1 } }, processAtLeast: 60, fleetAtLeast: 9 },
    { policy: "retry quota", policies: { retry_quota: { capacity: 50, cost: 5 } }, processAtLeast: 80, fleetAtLeast: 10 },
  ])("a fleet $policy keeps one token count: on a failing upstream the fleet retries within its stated bound, where scope: process retries in every process", async ({ policies, processAtLeast, fleetAtLeast }) => {
    up.failing = true;
    up.holdMs = 5;
    const retries: Record<string, number> = {};
    for (const scope of ["process", "fleet"] as const) {
      up.reset();
      const summaries = await runFleet({ processes: 8, scope, durationMs: 800, concurrency: 1, gapMs: 20, maxRetries: 12, policies, prefix: `${Object.keys(policies)[0]}-${scope}` });
      for (const s of summaries) expect(s.code).toBe(0);
      retries[scope] = up.retries;
    }
    expect(retries.process, JSON.stringify(retries)).toBeGreaterThanOrEqual(processAtLeast);
    expect(retries.fleet, JSON.stringify(retries)).toBeLessThanOrEqual(26);
    expect(retries.fleet, JSON.stringify(retries)).toBeGreaterThanOrEqual(fleetAtLeast);
  }, 30_000);

  it("a fleet retry quota is one token count: each store applies what is new in a process's sum of changes, once, within [0, capacity]", async () => {
    const io = new Redis({ port: redis.port, host: "127.0.0.1", lazyConnect: true });
    const node = createClient({ socket: { port: redis.port, host: "127.0.0.1" } });
    await io.connect();
    await node.connect();
    try {
      const a = redisFleetStore(io, { prefix: "quota" });
      const b = redisFleetStore(node, { prefix: "quota" });
      const report = (instance: string, net: number, leave?: true) => ({ v: 1 as const, instance, lease_ms: 1000, quota: { net, max: 100 }, ...(leave ? { leave } : {}) });
      // A new fleet starts full; a process's first report starts from its sum then.
      expect((await a.sync(report("a", 0))).quota).toEqual({ tokens: 100 });
      expect((await b.sync(report("b", -5))).quota).toEqual({ tokens: 100 });
      expect((await a.sync(report("a", -30))).quota).toEqual({ tokens: 70 });
      // Sent twice (a sync that answered late), the same sum applies nothing more.
      expect((await a.sync(report("a", -30))).quota).toEqual({ tokens: 70 });
      expect((await b.sync(report("b", -25))).quota).toEqual({ tokens: 50 });
      expect((await a.sync(report("a", -100))).quota).toEqual({ tokens: 0 });
      expect((await b.sync(report("b", 500))).quota).toEqual({ tokens: 100 });
      expect(await io.hget("{failbook:quota}:quota", "i:b")).toBe("500");
      await a.sync(report("a", -100, true));
      expect(await io.hexists("{failbook:quota}:quota", "i:a")).toBe(0);
      expect(await io.pttl("{failbook:quota}:quota")).toBeGreaterThan(0);
      // A tampered count is ignored (the fleet starts full again), never an error.
      await io.hset("{failbook:quota}:quota", "tokens", "lots");
      expect((await b.sync(report("b", 490))).quota).toEqual({ tokens: 100 });
    } finally {
      io.disconnect();
      await node.quit();
    }
  });

  it("(b) a fleet breaker opens in every process within 2 × sync_ms of the fleet crossing its threshold, and the upstream sees one half-open probe per break", async () => {
    up.failing = true;
    up.holdMs = 5;
    up.reset();
    const fleet = { sync_ms: 100, lease_ms: 1000 };
    const breaker = { tools: "up.*", failure_ratio: 0.5, minimum_throughput: 40, sampling_ms: 60_000, break_ms: 500 };
    let healedAt = 0;
    const summaries = await runFleet({
      processes: 8,
      scope: "fleet",
      durationMs: 2600,
      concurrency: 1,
      gapMs: 10,
      maxRetries: 0,
      fleet,
      policies: { circuit_breakers: { up: breaker } },
      record: ["breaker_"],
      prefix: "breaker-fleet",
      during: async () => {
        await sleep(1400);
        up.failing = false;
        healedAt = Date.now();
      },
    });
    for (const s of summaries) expect(s.code, JSON.stringify(s)).toBe(0);
    // Every attempt fails until the heal: the fleet crosses its threshold at its 40th answer.
    const crossedAt = up.answers[breaker.minimum_throughput - 1]!.at;
    const opened = summaries.map((s) => s.events.find((e) => e.type === "breaker_opened")?.at ?? Infinity);
    // A process hears of it at its next sync and opens at its next call (10 ms apart, plus the attempt's 5).
    for (const at of opened) expect(at - crossedAt, JSON.stringify({ crossedAt, opened })).toBeLessThanOrEqual(2 * fleet.sync_ms + 30);
    // From the moment the last process opened (and its attempts in flight answered) to the first success, every
    // request is a half-open probe: one per break, each after a whole break.
    const allOpen = Math.max(...opened) + up.holdMs + 10;
    const firstOk = up.answers.find((a) => a.ok && a.at >= healedAt)!.at;
    const probes = up.times.filter((t) => t > allOpen && t <= firstOk);
    const breaks = Math.max(...summaries.map((s) => s.events.filter((e) => e.type === "breaker_opened").length));
    expect(probes.length, JSON.stringify({ probes, breaks, allOpen, firstOk })).toBe(breaks);
    for (let i = 1; i < probes.length; i++) expect(probes[i]! - probes[i - 1]!).toBeGreaterThanOrEqual(breaker.break_ms - 20);
    expect(breaks).toBeGreaterThanOrEqual(2);
    // The probe's success closes the breaker everywhere within 2 × sync_ms.
    for (const s of summaries) {
      const closed = s.events.filter((e) => e.type === "breaker_closed").at(-1);
      expect(closed, JSON.stringify(s.events)).toBeDefined();
      expect(closed!.at - firstOk).toBeLessThanOrEqual(2 * fleet.sync_ms + 30);
    }
  }, 30_000);

  it("a fleet breaker's quorum: one sick process cannot open a healthy fleet's breaker; half-open, one process wins the probe's lease, and its result closes the breaker for all", async () => {
    const io = new Redis({ port: redis.port, host: "127.0.0.1", lazyConnect: true });
    await io.connect();
    try {
      const store = redisFleetStore(io, { prefix: "quorum" });
      const settings = { ratio: 0.1, minimum: 40, quorum: 0.5, break_ms: 100 };
      const report = (instance: string, attempts: number, failures: number, more: Partial<FleetBreakerReport> = {}) =>
        store.sync({ v: 1, instance, lease_ms: 1000, breakers: [{ name: "up", epoch: 0, attempts, failures, open: false, ...settings, ...more }] }).then((t) => t.breakers![0]!);
      for (let i = 1; i < 8; i++) await report(`p${i}`, 20, 0);
      // 30 failures in 170 attempts cross 10 %, but one process of eight does not make a quorum of half.
      expect(await report("p0", 30, 30)).toMatchObject({ state: "closed", attempts: 170, failures: 30, processes: 8, crossing: 1 });
      // Without a quorum the same sums open it.
      expect(await report("p0", 30, 30, { quorum: 0 })).toMatchObject({ state: "open", gen: 1, left_ms: 100, break_ms: 100 });
      await sleep(120);
      // Half-open: the first process to ask wins the probe's lease (SET NX PX); the others keep short-circuiting.
      const asks = await Promise.all(["p1", "p2", "p3"].map((p) => report(p, 20, 0, { open: true, probe: "want" })));
      expect(asks.map((a) => a.state)).toEqual(["half_open", "half_open", "half_open"]);
      expect(asks.filter((a) => a.probe)).toHaveLength(1);
      const winner = ["p1", "p2", "p3"][asks.findIndex((a) => a.probe)]!;
      expect(await io.get("{failbook:quorum}:probe:up")).toBe(winner);
      expect(await io.pttl("{failbook:quorum}:probe:up")).toBeGreaterThan(0);
      // Its probe passed: the fleet closes the breaker and its window starts again (epoch 1): counts of epoch 0 are dropped.
      expect(await report(winner, 20, 0, { open: false, probe: "passed" })).toMatchObject({ state: "closed", epoch: 1, gen: 2, attempts: 0 });
      expect(await report("p0", 30, 30)).toMatchObject({ state: "closed", epoch: 1, attempts: 0 });
      expect(await report("p0", 5, 1, { epoch: 1 })).toMatchObject({ state: "closed", attempts: 5, failures: 1 });
      // A tampered state is ignored (the breaker starts closed again), never an error.
      await io.hset("{failbook:quorum}:breaker:up", "state", "exploded");
      expect(await report("p0", 0, 0, { epoch: 1 })).toMatchObject({ state: "closed", epoch: 0 });
    } finally {
      io.disconnect();
    }
  });

  it("a verdict with evidence: process counts in its process's own view only: its breaker opens there, the fleet's stays closed; an upstream failure opens it everywhere", async () => {
    const node = createClient({ socket: { port: redis.port, host: "127.0.0.1" } });
    await node.connect();
    const registry = { ...REGISTRY, verdicts: [...REGISTRY.verdicts, { code: "bad_key", class: "policy", retryable: false, evidence: "process" as const, match: [{ kind: "auth" }] }] };
    const book = playbook(
      { server: { action: "fail" }, bad_key: { action: "fail" } },
      { fleet: { sync_ms: 20, lease_ms: 1000 }, circuit_breakers: { up: { tools: "up.*", counts: ["transient", "policy"], failure_ratio: 0.5, minimum_throughput: 6, sampling_ms: 60_000, break_ms: 60_000, scope: "fleet" } } },
    );
    const opened: string[] = [];
    const [a, b, c] = ["a", "b", "c"].map((instance) =>
      createDispatcher({ registry, playbook: book, fleet: { store: redisFleetStore(node, { prefix: "evidence" }), instance }, onEvent: (e) => e.type === "breaker_opened" && opened.push(instance) }),
    );
    const failing = (kind: string) => async () => ({ status: "error" as const, error: kind === "auth" ? { kind: "auth" } : { kind: "http", http_status: 503 } });
    const call = (id: string) => ({ id, tool: "up.get", args: {} });
    try {
      for (let i = 0; i < 8; i++) await a!.dispatch(call(`k${i}`), failing("auth"));
      expect(opened).toEqual(["a"]);
      await sleep(100);
      const sent: number[] = [];
      for (let i = 0; i < 4; i++) await b!.dispatch(call(`b${i}`), async () => (sent.push(i), { status: "ok" as const, value: {} }));
      expect(sent).toHaveLength(4);
      expect(opened).toEqual(["a"]);
      // Upstream failures (in c) are the fleet's evidence: b opens at its first call after a sync.
      for (let i = 0; i < 8; i++) await c!.dispatch(call(`s${i}`), failing("http"));
      await sleep(100);
      await b!.dispatch(call("after"), failing("http"));
      expect(opened).toEqual(["a", "c", "b"]);
    } finally {
      await Promise.all([a!.close(), b!.close(), c!.close()]);
      await node.quit();
    }
  });

  it("(c) a fleet rate limit holds the upstream's count per window to the limit plus its stated bound across four processes, where scope: process lets each spend the whole limit", async () => {
    up.failing = false;
    up.holdMs = 2;
    const windows: Record<string, number> = {};
    const limit = { requests: 20, per_ms: 1000 };
    for (const scope of ["process", "fleet"] as const) {
      up.reset();
      const summaries = await runFleet({ processes: 4, scope, durationMs: 3000, concurrency: 4, policies: { rate_limits: { up: { tools: "up.*", limit, max_wait_ms: 5000 } } }, prefix: `rate-${scope}` });
      for (const s of summaries) expect(s.code).toBe(0);
      windows[scope] = busiestWindow(up.times, limit.per_ms);
    }
    // One bucket allows burst + requests in any window of per_ms (40). Stated bound (docs/fleet.md):
    // + 3 × requests × sync_ms / per_ms (the leases out, and what the next sync charges) + processes = 47.
    expect(windows.process, JSON.stringify(windows)).toBeGreaterThanOrEqual(4 * 40 - 8);
    expect(windows.fleet, JSON.stringify(windows)).toBeLessThanOrEqual(40 + 3 + 4);
    // The leases do not starve the fleet: it still gets the limit's rate.
    expect(windows.fleet, JSON.stringify(windows)).toBeGreaterThanOrEqual(limit.requests);
  }, 30_000);

  it("(d) redis killed with SIGKILL and restarted mid-run: no call waits on it, each process reports the outage within lease_ms and recovers after", async () => {
    up.failing = false;
    up.holdMs = 2;
    const fleet = { sync_ms: 50, lease_ms: 400 };
    let killedAt = 0;
    let restartedAt = 0;
    const summaries = await runFleet({
      processes: 4,
      scope: "fleet",
      durationMs: 2000,
      concurrency: 2,
      fleet,
      prefix: "outage",
      during: async () => {
        await sleep(400);
        killedAt = Date.now();
        await redis.kill();
        await sleep(800);
        await redis.restart();
        restartedAt = Date.now();
      },
    });
    for (const s of summaries) {
      expect(s.code, JSON.stringify(s)).toBe(0);
      // A call takes the upstream's 2 ms and the event loop's share of four processes (a loaded
      // 2-core CI machine adds its own): never a wait on the dead store, which would take seconds.
      expect(s.maxMs).toBeLessThan(400);
      const down = s.events.find((e) => e.type === "fleet_store_unavailable");
      const back = s.events.find((e) => e.type === "fleet_store_recovered");
      expect(down, JSON.stringify(s.events)).toBeDefined();
      // Within lease_ms of the last good sync (before the kill), plus a loaded machine's timer lateness.
      expect(down!.at - killedAt).toBeLessThanOrEqual(fleet.lease_ms + 300);
      expect(back, JSON.stringify(s.events)).toBeDefined();
      expect(back!.at).toBeGreaterThanOrEqual(restartedAt - 50);
      // The clients reconnect within 50 ms; then the next sync answers.
      expect(back!.at - restartedAt).toBeLessThanOrEqual(2 * fleet.sync_ms + 400);
    }
  }, 30_000);

  it("(e) a store slowed by 500 ms does not slow calls", async () => {
    up.failing = false;
    up.holdMs = 2;
    const proxy = await slowProxy(redis.port, 500);
    try {
      const summaries = await runFleet({ processes: 2, scope: "fleet", durationMs: 1200, concurrency: 2, fleet: { sync_ms: 100, lease_ms: 5000 }, prefix: "slow", waitSync: false }, proxy.port);
      for (const s of summaries) {
        expect(s.code, JSON.stringify(s)).toBe(0);
        expect(s.calls).toBeGreaterThan(200);
        // A call that waited on the store would take its 500 ms at least.
        expect(s.maxMs).toBeLessThan(400);
        // Each exchange with the store takes a second or more: no sync answered within sync_ms.
        expect(s.status.syncs, JSON.stringify(s)).toBe(0);
      }
    } finally {
      await proxy.close();
    }
  }, 30_000);

  it("(f) INFO commandstats: one EVALSHA per process per sync_ms, at 1 call a second and at thousands", async () => {
    up.failing = false;
    up.holdMs = 0;
    const counts: Record<string, { evalsha: number; calls: number; ms: number }> = {};
    for (const [rate, gapMs, concurrency] of [["low", 1000, 1], ["high", 0, 20]] as const) {
      await redisCommand(redis.port, "CONFIG", "RESETSTAT");
      const start = Date.now();
      const [s] = await runFleet({ processes: 1, scope: "fleet", durationMs: 1000, concurrency, gapMs, fleet: { sync_ms: 100, lease_ms: 1000 }, prefix: `rate-${rate}` });
      counts[rate] = { evalsha: await redis.calls("evalsha"), calls: s!.calls, ms: Date.now() - start };
    }
    expect(counts.low!.calls).toBeLessThanOrEqual(2);
    // Hundreds of times the low rate (over a thousand on a quiet machine; a loaded CI machine makes fewer).
    expect(counts.high!.calls).toBeGreaterThan(300);
    for (const c of Object.values(counts)) {
      // Never more than one a sync_ms over the process's life (its start included), and the last sync of
      // close(), whatever the call rate; at least half as many when a loaded machine's timers fire late.
      expect(c.evalsha, JSON.stringify(counts)).toBeGreaterThanOrEqual(Math.floor(1000 / 100 / 2));
      expect(c.evalsha, JSON.stringify(counts)).toBeLessThanOrEqual(Math.ceil(c.ms / 100) + 2);
    }
    // The call rate does not change how often a process syncs.
    expect(Math.abs(counts.high!.evalsha - counts.low!.evalsha), JSON.stringify(counts)).toBeLessThanOrEqual(5);
  }, 30_000);

  it("(g) node-redis 5 and ioredis 5 share one fleet: keys under one hash tag, each with a TTL, the script reloaded after SCRIPT FLUSH", async () => {
    const io = new Redis({ port: redis.port, host: "127.0.0.1", lazyConnect: true });
    const node = createClient({ socket: { port: redis.port, host: "127.0.0.1" } });
    await io.connect();
    await node.connect();
    try {
      const a = redisFleetStore(io, { prefix: "clients" });
      const b = redisFleetStore(node, { prefix: "clients" });
      const report = (instance: string, calls: number, retries: number) => ({ v: 1 as const, instance, lease_ms: 1000, budget: { calls, retries } });
      await a.sync(report("io", 5, 1));
      const totals = await b.sync(report("node", 7, 2));
      expect(totals).toMatchObject({ instances: 2, budget: { calls: 12, retries: 3 } });
      expect(Math.abs(totals.now_ms - Date.now())).toBeLessThan(1000);
      expect(Math.abs((await a.time()) - (await b.time()))).toBeLessThan(1000);
      const keys = (await io.keys("*clients*")).sort();
      expect(keys).toEqual(["{failbook:clients}:budget", "{failbook:clients}:instances"]);
      for (const key of keys) expect(await io.pttl(key)).toBeGreaterThan(0);
      await io.script("FLUSH");
      expect((await b.sync(report("node", 1, 0))).budget).toEqual({ calls: 6, retries: 1 });
      expect((await a.sync({ ...report("io", 0, 0), leave: true })).instances).toBe(1);
      expect(() => redisFleetStore({} as never)).toThrow(/neither node-redis .* nor ioredis/);
      expect(() => redisFleetStore(io, { prefix: "a}b" })).toThrow(/without braces/);
    } finally {
      io.disconnect();
      await node.quit();
    }
  });
});

