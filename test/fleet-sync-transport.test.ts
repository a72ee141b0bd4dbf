/**
 * The fleet sync's two transports (SPEC 23): a store's `sync` (a promise: Redis) and its
 * `send` (callbacks: the memory store, which storms run 2.4 million syncs through). Both are
 * taken into the same handlers, so the same reports give the same state; a store that throws
 * or never answers costs a failed sync, never a crash or a hung `close()`.
 */
import { describe, expect, it } from "vitest";
import { VirtualClock } from "failbook-runtime/engine/clock.js";
import { createDispatcher } from "failbook-runtime/engine/dispatch.js";
import { answerSync, memoryFleetStore } from "failbook-runtime/engine/fleet/memory-store.js";
import type { FleetStore } from "failbook-runtime/engine/fleet/store.js";
import { seededRandom } from "failbook-runtime/engine/random.js";
import { CALL, err, manualFleetTimers, ok, playbook, REGISTRY, settle } from "./helpers/dispatch.js";

const BOOK = playbook(
  { server: { action: "retry_with_backoff", max_retries: 2, backoff_ms: [10, 20] }, unknown: { action: "fail" } },
  { fleet: { sync_ms: 100, lease_ms: 1000 }, retry_throttling: { max_tokens: 10, token_ratio: 0.1, scope: "fleet" } },
);

function fleetProcess(instance: string, store: FleetStore, clock = new VirtualClock()) {
  const timers = manualFleetTimers();
  const d = createDispatcher({ registry: REGISTRY, playbook: BOOK, clock, random: seededRandom(1), fleet: { store, instance, timers: timers.timers } });
  return { d, timers, clock };
}

describe("the fleet sync's transports", () => {
  it("a store's send and its promise give the same state for the same reports", async () => {
    const runs = await Promise.all(
      ["send", "sync"].map(async (transport) => {
        const memory = memoryFleetStore({ now: () => 0, respond: answerSync });
        // The same store, seen through one transport only.
        const store: FleetStore = transport === "send" ? { send: memory.send, sync: () => Promise.reject(new Error("sync is not used")), time: memory.time } : { sync: memory.sync, time: memory.time };
        const [a, b] = [fleetProcess("a", store), fleetProcess("b", store)];
        const outcomes: string[] = [];
        for (let i = 0; i < 12; i++) {
          const p = i % 2 === 0 ? a : b;
          outcomes.push((await p.d.dispatch({ ...CALL, id: `c${i}` }, (_c, n) => (n < 3 && i % 3 !== 0 ? err("http", { http_status: 503 }) : ok()))).outcome.kind);
          p.timers.tick();
          await settle();
        }
        return { outcomes, a: a.d.snapshot(), b: b.d.snapshot(), status: [a.d.fleet!.syncs, b.d.fleet!.syncs, a.d.fleet!.failures, a.d.fleet!.mode] };
      }),
    );
    expect(runs[0]!.status).toEqual([7, 7, 0, "fleet"]);
    expect(runs[1]).toEqual(runs[0]);
  });

  it("an answer through send is taken in at once, with no promise to wait for", () => {
    const memory = memoryFleetStore({ now: () => 0, respond: answerSync });
    const { d, timers } = fleetProcess("a", { send: memory.send, sync: memory.sync, time: memory.time });
    expect([d.fleet!.syncs, d.fleet!.mode]).toEqual([1, "fleet"]);
    timers.tick();
    timers.tick();
    expect(d.fleet!.syncs).toBe(3);
  });

  it("a store whose send or sync throws, or whose answer is no object, fails that sync and nothing else", async () => {
    for (const store of [
      { send: () => { throw new Error("socket closed"); }, sync: () => Promise.reject(new Error("unused")), time: () => Promise.resolve(0) },
      { sync: () => { throw new Error("socket closed"); }, time: () => Promise.resolve(0) },
      { sync: () => Promise.resolve(null as never), time: () => Promise.resolve(0) },
    ] as FleetStore[]) {
      const { d, timers } = fleetProcess("a", store);
      await settle();
      timers.tick();
      await settle();
      expect([d.fleet!.syncs, d.fleet!.failures, d.fleet!.mode]).toEqual([0, 2, "alone"]);
      expect((await d.dispatch(CALL, () => ok())).outcome.kind).toBe("succeeded");
    }
  });

  it("close() ends within two sync_ms when the store never answers, through either transport", async () => {
    for (const store of [
      { send: () => {}, sync: () => new Promise<never>(() => {}), time: () => Promise.resolve(0) },
      { sync: () => new Promise<never>(() => {}), time: () => Promise.resolve(0) },
    ] as FleetStore[]) {
      const { d } = fleetProcess("a", store);
      const started = Date.now();
      await d.close();
      expect(Date.now() - started).toBeLessThan(1000);
      expect(d.fleet!.syncs).toBe(0);
    }
  });
});
