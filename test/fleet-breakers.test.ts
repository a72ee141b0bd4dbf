/**
 * Fleet breakers (SPEC 23) in one process, on a virtual clock, through the runtime's memory
 * store (the sync script's semantics, held to it by test/fleet-memory-store.test.ts): what a
 * process does with the fleet's answers across a probe, and across a store that lost its state.
 */
import { describe, expect, it } from "vitest";
import { VirtualClock } from "failbook-runtime/engine/clock.js";
import { createDispatcher } from "failbook-runtime/engine/dispatch.js";
import { memoryFleetStore } from "failbook-runtime/engine/fleet/memory-store.js";
import type { FleetStore } from "failbook-runtime/engine/fleet/store.js";
import { seededRandom } from "failbook-runtime/engine/random.js";
import { CALL, err, manualFleetTimers, ok, playbook, REGISTRY, settle } from "./helpers/dispatch.js";

const BOOK = playbook(
  { server: { action: "fail" }, unknown: { action: "fail" } },
  { fleet: { sync_ms: 100, lease_ms: 1000 }, circuit_breakers: { pay: { tools: "payments.*", failure_ratio: 0.5, minimum_throughput: 4, sampling_ms: 60_000, break_ms: 500, scope: "fleet" } } },
);

function fleetProcess(instance: string, store: FleetStore, clock: VirtualClock) {
  const timers = manualFleetTimers();
  const events: string[] = [];
  const d = createDispatcher({ registry: REGISTRY, playbook: BOOK, clock, random: seededRandom(1), fleet: { store, instance, timers: timers.timers }, onEvent: (e) => e.type.startsWith("breaker_") && events.push(e.type) });
  return { d, events, sync: async () => (timers.tick(), await settle()) };
}

describe("fleet breakers in a process", () => {
  it("one process's probe closes the breaker for the other at its next sync; the store restarted, a process's counts count again", async () => {
    const clock = new VirtualClock();
    let now = 0;
    let memory = memoryFleetStore({ now: () => now });
    // The store the processes share; `restart` loses its state, as a Redis restarted without persistence would.
    const store: FleetStore = { sync: (r) => memory.sync(r), time: () => memory.time() };
    const [a, b] = [fleetProcess("a", store, clock), fleetProcess("b", store, clock)];
    await settle();
    for (let i = 0; i < 4; i++) await a.d.dispatch({ ...CALL, id: `a${i}` }, () => err("http", { http_status: 503 }));
    expect(a.events).toEqual(["breaker_opened"]);
    await a.sync();
    await b.sync();
    expect((await b.d.dispatch({ ...CALL, id: "b0" }, () => ok())).outcome.kind).toBe("failed");
    expect(b.events).toEqual(["breaker_opened"]);
    // The break ends; b asks first and wins the probe; a keeps short-circuiting.
    now += 600;
    clock.advance(600);
    await b.sync();
    await a.sync();
    let sentByA = 0;
    expect((await a.d.dispatch({ ...CALL, id: "a-wait" }, () => (sentByA++, ok()))).outcome.kind).toBe("failed");
    expect(sentByA).toBe(0);
    expect((await b.d.dispatch({ ...CALL, id: "probe" }, () => ok())).outcome.kind).toBe("succeeded");
    expect(b.events).toEqual(["breaker_opened", "breaker_half_open", "breaker_closed"]);
    // b's next sync tells the store; a hears at its own.
    await b.sync();
    await a.sync();
    expect((await a.d.dispatch({ ...CALL, id: "a-after" }, () => ok())).outcome.kind).toBe("succeeded");
    expect(a.events).toEqual(["breaker_opened", "breaker_half_open", "breaker_closed"]);
    // The store restarts empty (its window epoch back to 0): a's failures since count in the fleet's window again.
    memory = memoryFleetStore({ now: () => now });
    await a.d.dispatch({ ...CALL, id: "a-fail" }, () => err("http", { http_status: 503 }));
    await a.sync();
    await a.sync();
    const totals = await memory.sync({ v: 1, instance: "probe", lease_ms: 1000, breakers: [{ name: "pay", epoch: 0, attempts: 0, failures: 0, open: false, ratio: 0.5, minimum: 4, quorum: 0, break_ms: 500 }] });
    expect(totals.breakers![0]).toMatchObject({ attempts: 2, failures: 1 });
  });
});
