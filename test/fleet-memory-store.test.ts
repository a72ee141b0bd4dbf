/**
 * The in-memory fleet store (storms' store, SPEC 23) against the sync script on a real
 * redis-server: random reports from several processes (budget counts, token sums, rate
 * leases, leaving, lapsing), each sent to Redis and then to the memory store at the time the
 * script read from Redis `TIME`, must give the same totals, sync after sync.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryFleetState } from "failbook-runtime/engine/fleet/memory-store.js";
import type { FleetReport } from "failbook-runtime/engine/fleet/store.js";
import { redisFleetStore } from "failbook-runtime/redis/index.js";
import { seededRandom } from "failbook-runtime/engine/random.js";
import { skipWithoutRedis, sleep, startRedis, type RedisServer } from "./helpers/redis.js";

describe.skipIf(skipWithoutRedis("fleet-memory-store"))("the memory fleet store answers as the sync script does (SPEC 23)", () => {
  let redis: RedisServer;
  let client: Redis;
  beforeAll(async () => {
    redis = await startRedis();
    client = new Redis({ port: redis.port, host: "127.0.0.1", lazyConnect: false });
  });
  afterAll(async () => {
    client?.disconnect();
    await redis?.stop();
  });

  it.each([1, 2, 3])("random reports from five processes give identical totals (seed %i)", async (seed) => {
    const store = redisFleetStore(client, { prefix: `diff-${seed}` });
    const memory = new MemoryFleetState();
    const random = seededRandom(seed);
    const int = (n: number) => Math.floor(random() * n);
    const instances = ["a", "b", "c", "d", "e"];
    // Each process's own running sums, as a dispatcher reports them (sums, never deltas).
    const own = new Map(instances.map((id) => [id, { throttling: 0, quota: 0, spent: [0, 0], epoch: 0 }]));
    const breaker = { gens: 0, epochs: 0, probes: 0 };
    let lapses = 0;
    let leaves = 0;
    // When each key the script touched expires, by the script's clock (TIME). Redis dates a key's
    // TTL and checks it by its own snapshot of the time when the script started, which TIME can
    // be a millisecond ahead of: at the very millisecond a key expires the two clocks may
    // disagree. A sync sent within a few ms of one of these moments waits until it has passed.
    let expiries: number[] = [];
    const clearOfExpiries = async (): Promise<void> => {
      for (let t = Date.now(), near = expiries.find((e) => t >= e - 3 && t <= e + 2); near !== undefined; t = Date.now(), near = expiries.find((e) => t >= e - 3 && t <= e + 2)) {
        await sleep(near + 3 - t);
      }
      expiries = expiries.filter((e) => e > Date.now() - 10);
    };
    const expiring = (report: FleetReport, totals: Awaited<ReturnType<typeof store.sync>>): void => {
      const n = totals.now_ms;
      const ttl = 2 * report.lease_ms;
      expiries.push(n + ttl);
      if (report.rates !== undefined) for (const r of report.rates) expiries.push(n + Math.max(ttl, Math.ceil(r.per_ms * 2)));
      for (const b of totals.breakers ?? []) {
        expiries.push(n + ttl + b.break_ms);
        // The probe's lease (PX lease_ms), from the sync that won it.
        if (b.probe) expiries.push(n + report.lease_ms);
      }
    };
    for (let step = 0; step < 300; step++) {
      const id = instances[int(instances.length)]!;
      const mine = own.get(id)!;
      mine.throttling += int(3) === 0 ? 100 : -1000;
      mine.quota += int(4) === 0 ? 5 : -1;
      mine.spent = mine.spent.map((s) => s + int(4));
      // A lease of 40 ms: a process that a pause below skips drops out of the totals.
      const report: FleetReport = { v: 1, instance: id, lease_ms: 40 };
      if (int(20) === 0) {
        report.leave = true;
        leaves++;
      }
      if (int(5) > 0) report.budget = { calls: int(30), retries: int(8) };
      if (int(5) > 0) report.throttling = { net: mine.throttling, max: 10_000 };
      if (int(5) > 0) report.quota = { net: mine.quota, max: 50 };
      if (int(4) > 0) {
        report.rates = [
          { name: "github", spent: mine.spent[0]!, want: 1 + int(6), capacity: 20, requests: 7, per_ms: 1000 },
          { name: "openai", spent: mine.spent[1]!, want: 1 + int(6), capacity: 3, requests: 1, per_ms: 30 },
        ];
      }
      if (int(3) > 0) {
        // A fleet breaker's window in the epoch the process last heard of, and what it asks of the half-open state.
        const attempts = int(20);
        const probe = [undefined, "want", "want", "passed", "failed"][int(5)] as "want" | "passed" | "failed" | undefined;
        report.breakers = [
          {
            name: "payments",
            epoch: int(8) === 0 ? mine.epoch + 1 : mine.epoch,
            attempts,
            failures: Math.min(attempts, [0, int(4), attempts, int(20)][int(4)]!),
            open: int(2) === 0,
            ratio: 0.5,
            minimum: 10,
            quorum: [0, 0.5][int(2)]!,
            break_ms: 5 + int(20),
            ...(int(2) === 0 ? { max_break_ms: 60 } : {}),
            ...(probe === undefined ? {} : { probe }),
          },
        ];
      }
      if (int(10) === 0) {
        await sleep(25 + int(30));
        lapses++;
      }
      await clearOfExpiries();
      const fromRedis = await store.sync(report);
      expiring(report, fromRedis);
      const fromMemory = memory.sync(report, fromRedis.now_ms);
      expect({ step, ...fromMemory }).toEqual({ step, ...fromRedis });
      const b = fromRedis.breakers?.[0];
      if (b !== undefined) {
        mine.epoch = b.epoch;
        breaker.gens = Math.max(breaker.gens, b.gen);
        breaker.epochs = Math.max(breaker.epochs, b.epoch);
        if (b.probe) breaker.probes++;
      }
      // Now and then a short pause: a break ends, the breaker is half-open.
      if (int(6) === 0) await sleep(5 + int(15));
    }
    // The sequence went through every part of the script: processes left and lapsed, counts came and went.
    expect(lapses).toBeGreaterThan(10);
    expect(leaves).toBeGreaterThan(5);
    // The breaker opened, its probe's lease was won, probes closed it and opened it again.
    expect(breaker, JSON.stringify(breaker)).toMatchObject({ gens: expect.any(Number), epochs: expect.any(Number) });
    expect(breaker.gens).toBeGreaterThan(5);
    expect(breaker.epochs).toBeGreaterThan(1);
    expect(breaker.probes).toBeGreaterThan(3);
  }, 60_000);
});
