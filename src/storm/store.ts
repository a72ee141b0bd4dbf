/**
 * `clients.shared: store` (SPEC 23, "Storms simulate it"): each client keeps its own
 * dispatcher, and its `scope: fleet` policies sync through a fleet store, by the same sync
 * code a service runs against Redis, against the runtime's in-memory store with the sync
 * script's semantics. The storm supplies only the clock: the sync's timers and the store's
 * answers are events on the scheduler, after the storm file's `latency_ms`, and a sync sent
 * inside a `down` window fails.
 */
import { answerSync, memoryFleetStore } from "failbook-runtime/engine/fleet/memory-store.js";
import { FLEET_DEFAULTS, type FleetOptions, type FleetStore, type FleetTimers } from "failbook-runtime/engine/fleet/index.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import { DEFAULT_STORE_LATENCY_MS, type StormStore } from "./model.js";
import type { Entry, Scheduler } from "./scheduler.js";

/** What the store did over the run, for the report. */
export interface StoreCost {
  sync_ms: number;
  latency_ms: number;
  /** Syncs that answered in time, over every client. */
  syncs: number;
  /** Syncs that failed (the store down) or answered after sync_ms. */
  failed_syncs: number;
  /** Time the store was unreachable within the run (its `down` windows). */
  down_ms: number;
  /** `fleet_store_unavailable` reports: a client went `lease_ms` without a good sync and fell back to `on_store_down`. */
  outages: number;
  /** Clients that fell back at least once. */
  clients_fell_back: number;
  /** Time clients spent fallen back, summed over the clients (to duration_ms). */
  fallback_ms: number;
}

/** The sync's status a dispatcher shows (`dispatcher.fleet`). */
interface SyncCounts {
  readonly syncs: number;
  readonly failures: number;
}

/** The sync interval a storm's store runs at: the file's, else the playbook's `fleet.sync_ms`, else the runtime's default. */
export function storeSyncMs(store: StormStore | undefined, playbook: Playbook): number {
  return store?.sync_ms ?? playbook.fleet?.sync_ms ?? FLEET_DEFAULTS.sync_ms;
}

export class SimulatedStore {
  readonly store: FleetStore;
  /** The playbook the clients run: the storm's sync_ms in its `fleet:` block. */
  readonly playbook: Playbook;
  private readonly timers: FleetTimers;
  private readonly syncMs: number;
  private readonly latencyMs: number;
  private readonly down: readonly { from_ms: number; to_ms: number }[];
  private outages = 0;
  private fallbackMs = 0;
  private readonly fellBack = new Set<string>();
  private readonly downSince = new Map<string, number>();

  constructor(
    settings: StormStore | undefined,
    playbook: Playbook,
    scheduler: Scheduler,
    private readonly duration: number,
  ) {
    this.syncMs = storeSyncMs(settings, playbook);
    this.latencyMs = settings?.latency_ms ?? DEFAULT_STORE_LATENCY_MS;
    this.down = settings?.down ?? [];
    this.playbook = { ...playbook, fleet: { ...playbook.fleet, sync_ms: this.syncMs } };
    this.timers = virtualTimers(scheduler);
    this.store = memoryFleetStore({
      now: () => scheduler.now,
      // A storm without outages asks nothing a sync.
      down: this.down.length === 0 ? undefined : (t) => this.down.some((w) => t >= w.from_ms && t < w.to_ms),
      // The answer is an event after the store's latency that hands it to the client's sync: no promise, no closure a sync.
      respond: (reply, answer) => scheduler.after(this.latencyMs, answerSync, reply, answer),
    });
  }

  /** `createDispatcher`'s `fleet` option for one client. */
  optionsFor(client: number): FleetOptions {
    return { store: this.store, instance: `client-${client + 1}`, timers: this.timers };
  }

  /** A client's sync reported the store gone or back. */
  observe(type: string, instance: string, now: number): void {
    if (type === "fleet_store_unavailable") {
      this.outages++;
      this.fellBack.add(instance);
      this.downSince.set(instance, now);
    } else if (type === "fleet_store_recovered") {
      const since = this.downSince.get(instance);
      if (since === undefined) return;
      this.downSince.delete(instance);
      this.fallbackMs += Math.max(0, Math.min(now, this.duration) - since);
    }
  }

  result(dispatchers: readonly ({ fleet?: SyncCounts | undefined } | undefined)[]): StoreCost {
    let [syncs, failed] = [0, 0];
    for (const d of dispatchers) {
      syncs += d?.fleet?.syncs ?? 0;
      failed += d?.fleet?.failures ?? 0;
    }
    let fallback = this.fallbackMs;
    for (const since of this.downSince.values()) fallback += Math.max(0, this.duration - since);
    const downMs = this.down.reduce((sum, w) => sum + Math.max(0, Math.min(w.to_ms, this.duration) - Math.min(w.from_ms, this.duration)), 0);
    return { sync_ms: this.syncMs, latency_ms: this.latencyMs, syncs, failed_syncs: failed, down_ms: downMs, outages: this.outages, clients_fell_back: this.fellBack.size, fallback_ms: Math.round(fallback) };
  }
}

/**
 * The sync's timers as events on the storm's clock. The lease timer is re-armed by every good
 * sync; it keeps one event on the heap, moved on when it comes due early, not one a sync. Each
 * timer is one object and its events call a shared function with it: a storm's thousand
 * clients each fire one every `sync_ms`, and a closure and its context are two objects more
 * to touch a tick.
 */
export function virtualTimers(scheduler: Scheduler): FleetTimers {
  return {
    every: (ms, tick) => new RepeatingTimer(scheduler, ms, tick),
    after: (ms, fire) => new LeaseTimer(scheduler, ms, fire),
  };
}

class RepeatingTimer {
  private stopped = false;
  private readonly entry: Entry;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly ms: number,
    private readonly tick: () => void,
  ) {
    this.entry = scheduler.after(ms, RepeatingTimer.fire, this, undefined);
  }

  private static fire(timer: RepeatingTimer): void {
    if (timer.stopped) return;
    timer.scheduler.again(timer.entry, timer.ms);
    timer.tick();
  }

  stop(): void {
    this.stopped = true;
  }
}

class LeaseTimer {
  private stopped = false;
  private armed = true;
  private due: number;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly ms: number,
    private readonly fire: () => void,
  ) {
    this.due = scheduler.now + ms;
    this.arm();
  }

  /** Its event, at `due`. */
  private arm(): void {
    this.scheduler.at(this.due, LeaseTimer.check, this, undefined);
  }

  /** Its event came: the timer fires, unless it was restarted since (its event moves on to the new time). */
  private static check(timer: LeaseTimer): void {
    if (timer.stopped) return;
    if (timer.scheduler.now < timer.due) {
      timer.arm();
      return;
    }
    timer.armed = false;
    timer.fire();
  }

  restart(): void {
    this.due = this.scheduler.now + this.ms;
    if (this.armed) return;
    this.armed = true;
    this.arm();
  }

  stop(): void {
    this.stopped = true;
  }
}
