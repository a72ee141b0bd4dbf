/** `failbook fleet status` (SPEC 23) against a real redis-server that a fleet's stores wrote to. */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisFleetStore } from "failbook-runtime/redis/index.js";
import { failbook } from "./helpers/cli.js";
import { freePort, skipWithoutRedis, startRedis, type RedisServer } from "./helpers/redis.js";

let redis: RedisServer;
let io: Redis;

describe.skipIf(skipWithoutRedis("fleet-status"))("failbook fleet status", () => {
  beforeAll(async () => {
    redis = await startRedis();
    io = new Redis({ port: redis.port, host: "127.0.0.1", lazyConnect: true });
    await io.connect();
    const store = redisFleetStore(io, { prefix: "payments" });
    const rates = (spent: number, want: number) => [{ name: "github", spent, want, capacity: 20, requests: 20, per_ms: 60_000 }];
    const breaker = { name: "payments", epoch: 0, ratio: 0.5, minimum: 10, quorum: 0, break_ms: 60_000 };
    await store.sync({ v: 1, instance: "web-2", lease_ms: 60_000, budget: { calls: 7, retries: 2 }, throttling: { net: 0, max: 10_000 }, quota: { net: 0, max: 500 }, rates: rates(0, 4), breakers: [{ ...breaker, attempts: 4, failures: 2, open: false }] });
    await store.sync({ v: 1, instance: "web-1", lease_ms: 60_000, budget: { calls: 5, retries: 1 }, throttling: { net: 0, max: 10_000 }, quota: { net: 0, max: 500 }, rates: rates(0, 6) });
    await store.sync({ v: 1, instance: "web-1", lease_ms: 60_000, budget: { calls: 5, retries: 1 }, throttling: { net: -2500, max: 10_000 }, quota: { net: -15, max: 500 }, rates: rates(3, 6), breakers: [{ ...breaker, attempts: 8, failures: 8, open: true }] });
  });
  afterAll(async () => {
    io?.disconnect();
    await redis?.stop();
  });

  const url = () => `redis://127.0.0.1:${redis.port}`;

  it("shows the processes and their last sync, the budget, the tokens, each rate limit's bucket and leases, each breaker", () => {
    const r = failbook(["fleet", "status", "--redis", url(), "--prefix", "payments"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.replace(/\d+ ms ago/g, "N ms ago").replace(/store time \S+/, "store time T").split("\n");
    expect(lines).toEqual([
      `fleet payments at ${url()}, store time T`,
      "processes: 2",
      "  web-1  last sync N ms ago",
      "  web-2  last sync N ms ago",
      "retry budget: 12 calls, 3 retries in progress",
      "retry throttling: 7.5 tokens",
      "retry quota: 485 tokens",
      // 20 tokens: web-2 leased 4, web-1 6; web-1 spent 3 of its 6, gave back 3 and leased 6 again.
      expect.stringMatching(/^rate limit github: 7(\.\d+)? tokens in the fleet's bucket at its refill N ms ago; leases web-1 6, web-2 4$/),
      // 10 failures in 12 attempts crossed half: the fleet opened it at web-1's sync.
      expect.stringMatching(/^breaker payments: open, \d+ ms of its break left; 10 failures in 12 attempts in the fleet's window; 1 of 2 processes see it open$/),
      "",
    ]);
  });

  it("--format json: the same state, for a script", () => {
    const r = failbook(["fleet", "status", "--redis", url(), "--prefix", "payments", "--format", "json"]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({
      prefix: "payments",
      processes: [{ instance: "web-1" }, { instance: "web-2" }],
      retry_budget: { calls: 12, retries: 3 },
      retry_throttling: { tokens: 7.5 },
      retry_quota: { tokens: 485 },
      rate_limits: [{ name: "github", leases: [{ instance: "web-1", tokens: 6 }, { instance: "web-2", tokens: 4 }] }],
      breakers: [{ name: "payments", state: "open", attempts: 12, failures: 10, processes_open: 1, probe: null }],
    });
    expect(Math.abs(report.store_ms - Date.now())).toBeLessThan(5000);
  });

  it("a prefix no process synced under says so, exit 0", () => {
    const r = failbook(["fleet", "status", "--redis", url(), "--prefix", "nobody"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("no fleet state under {failbook:nobody}");
  });

  it.each([
    [["--redis", "localhost:6379"], /^failbook: --redis 'localhost:6379' is a localhost URL; give redis:\/\/HOST\[:PORT\]\[\/DB\]/],
    [["--redis", "not a url"], /^failbook: --redis 'not a url' is not a URL/],
    [["--redis", "redis://127.0.0.1:6379/x"], /the database 'x' is not a number/],
    [[], /^failbook: fleet status needs --redis URL/],
    [["--redis", "redis://u:hunter2@127.0.0.1:PORT", "--format", "yaml"], /^failbook: --format must be one of text, json, not 'yaml'/],
  ])("%j is one line, exit 2", (flags, says) => {
    const r = failbook(["fleet", "status", ...flags.map((f) => f.replace("PORT", String(redis.port)))]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(says);
  });

  it("a Redis that does not answer is one line, exit 2, and never shows the password", async () => {
    const port = await freePort();
    const r = failbook(["fleet", "status", "--redis", `redis://user:hunter2@127.0.0.1:${port}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`failbook: cannot read the fleet from Redis at redis://[REDACTED]@127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}\n`);
  });

  it("a Redis that refuses the password is one line, exit 2", () => {
    const r = failbook(["fleet", "status", "--redis", `redis://:wrong@127.0.0.1:${redis.port}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^failbook: cannot read the fleet from Redis at redis:\/\/\[REDACTED\]@127\.0\.0\.1:\d+: ERR AUTH .*\n$/);
  });
});
