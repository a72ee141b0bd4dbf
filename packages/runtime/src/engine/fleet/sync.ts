/**
 * The fleet's sync loop (SPEC 23): every `sync_ms` this process sends its report to the
 * store and takes the fleet's totals back, one round trip, one sync in flight at most. A
 * call never waits on it: the policies read the totals of the last sync that answered in
 * time. After `lease_ms` without one, the process applies `on_store_down` and says so
 * (`fleet_store_unavailable`), until the next good sync (`fleet_store_recovered`).
 */
import type { FleetSettings } from "../../model/playbook.js";
import type { FleetReply, FleetReport, FleetStore, FleetTotals } from "./store.js";
import { errorTypeOf } from "../../telemetry/global.js";

export const FLEET_DEFAULTS = Object.freeze({ sync_ms: 250, lease_ms: 1000, on_store_down: "local" as const });

/**
 * How the fleet's policies decide now: on the fleet's totals (`fleet`, a sync within the
 * lease), as `scope: process` would (`alone`: before the first sync, or the store down with
 * `on_store_down: local`), or allowing no retries (`closed`: the store down with `on_store_down: closed`).
 */
export type FleetMode = "fleet" | "alone" | "closed";

/** One `scope: fleet` policy's side of the sync. */
export interface FleetPart {
  /** Put this process's state into the report. */
  report(into: FleetReport): void;
  /** The fleet's totals for the report that `report` wrote. */
  apply(totals: FleetTotals, sent: FleetReport): void;
}

/** What the sync tells the world: the store went away, or came back. */
export type FleetEvent =
  | { type: "fleet_store_unavailable"; instance: string; /** ms since the last good sync */ since_ms: number; error?: string }
  | { type: "fleet_store_recovered"; instance: string; /** ms the store was unavailable */ down_ms: number };

/** How the sync is doing, for a status line or a test. */
export interface FleetStatus {
  readonly instance: string;
  readonly mode: FleetMode;
  /** Good syncs since the start. */
  readonly syncs: number;
  /** Syncs that failed or answered after `sync_ms`. */
  readonly failures: number;
  /** The dispatcher's clock at the last good sync, or undefined before the first. */
  readonly lastSyncMs: number | undefined;
  /** Processes in the fleet at the last good sync. */
  readonly instances: number;
}

/** Timers the loop runs on: real ones, unreferenced (a process that never closes still exits). */
export interface FleetTimers {
  every(ms: number, tick: () => void): { stop(): void };
  /** A one-shot timer that `restart` arms again from now. */
  after(ms: number, fire: () => void): { restart(): void; stop(): void };
}

type Unrefable = { unref?(): void; refresh?(): unknown };
export const realTimers: FleetTimers = {
  every(ms, tick) {
    const handle = setInterval(tick, ms) as unknown as Unrefable;
    handle.unref?.();
    return { stop: () => clearInterval(handle as unknown as Parameters<typeof clearInterval>[0]) };
  },
  after(ms, fire) {
    let handle = setTimeout(fire, ms) as unknown as Unrefable;
    handle.unref?.();
    const stop = (): void => clearTimeout(handle as unknown as Parameters<typeof clearTimeout>[0]);
    return {
      restart() {
        if (handle.refresh !== undefined) handle.refresh();
        else {
          stop();
          handle = setTimeout(fire, ms) as unknown as Unrefable;
        }
      },
      stop,
    };
  },
};

export interface FleetSyncOptions {
  store: FleetStore;
  settings: FleetSettings;
  instance: string;
  parts: readonly FleetPart[];
  /** The dispatcher's clock, in ms. */
  now: () => number;
  emit: (event: FleetEvent) => void;
  timers?: FleetTimers | undefined;
}

/**
 * The sync of one dispatcher. It is itself the reply a store answers through (`answered`,
 * `failed`), and keeps the options a sync reads on itself: a storm's thousand clients each
 * sync every `sync_ms`, and what one sync touches of its client should be few objects.
 */
export class FleetSync implements FleetStatus, FleetReply {
  readonly instance: string;
  mode: FleetMode = "alone";
  syncs = 0;
  failures = 0;
  lastSyncMs: number | undefined;
  instances = 1;
  private readonly syncMs: number;
  private readonly leaseMs: number;
  private readonly whenDown: FleetMode;
  private readonly started: number;
  private down = false;
  /** A sync is in flight: the report sent, and the dispatcher's clock when it was sent. */
  private inFlight = false;
  private sent: FleetReport | undefined;
  private sentAt = 0;
  /** Those waiting for the sync in flight to settle (`syncNow`, `close`): made only when someone waits. */
  private settled: Promise<void> | undefined;
  private release: (() => void) | undefined;
  private readonly parts: readonly FleetPart[];
  private readonly store: FleetStore;
  private readonly now: () => number;
  private closed = false;
  private readonly tick: { stop(): void };
  private readonly lease: { restart(): void; stop(): void };
  private lastError: string | undefined;
  /** Hears each sync that settled: how long it took (the dispatcher's clock), and `error.type` when it failed or answered late (SPEC 24's metrics). */
  syncObserver: ((durationMs: number, errorType: string | undefined) => void) | undefined;

  constructor(private readonly o: FleetSyncOptions) {
    this.instance = o.instance;
    this.syncMs = o.settings.sync_ms ?? FLEET_DEFAULTS.sync_ms;
    this.leaseMs = o.settings.lease_ms ?? FLEET_DEFAULTS.lease_ms;
    this.whenDown = (o.settings.on_store_down ?? FLEET_DEFAULTS.on_store_down) === "closed" ? "closed" : "alone";
    this.parts = o.parts;
    this.store = o.store;
    this.now = o.now;
    this.started = o.now();
    const timers = o.timers ?? realTimers;
    // The lease is a timer re-armed by each good sync: the outage is reported lease_ms after the last one, not at the next tick.
    this.lease = timers.after(this.leaseMs, () => this.leaseEnded());
    this.tick = timers.every(this.syncMs, () => this.send(false));
    this.send(false);
  }

  /** Start a sync unless one is in flight; resolves when it settled. Never rejects. */
  syncNow(leave = false): Promise<void> {
    if (!this.inFlight) this.send(leave);
    if (!this.inFlight) return Promise.resolve();
    return (this.settled ??= new Promise<void>((resolve) => (this.release = resolve)));
  }

  /** Send this process's report unless a sync is in flight; the store answers through `answered` or `failed`. */
  private send(leave: boolean): void {
    if (this.inFlight) return;
    const report: FleetReport = { v: 1, instance: this.instance, lease_ms: this.leaseMs };
    if (leave) report.leave = true;
    for (const part of this.parts) part.report(report);
    this.inFlight = true;
    this.sent = report;
    this.sentAt = this.now();
    const store = this.store;
    try {
      if (store.send !== undefined) store.send(report, this);
      else
        Promise.resolve(store.sync(report)).then(
          (totals) => this.answered(totals),
          (error: unknown) => this.failed(error),
        );
    } catch (e) {
      this.failed(e);
    }
  }

  /** The sync in flight settled: the next may start (in the handlers that run now, too); who waited for it is told after. */
  private settle(): (() => void) | undefined {
    this.inFlight = false;
    const release = this.release;
    this.settled = this.release = undefined;
    return release;
  }

  /**
   * Stop the timers after a last sync (the store drops this process from the totals). Never
   * rejects; waits at most `sync_ms` for a sync in flight and `sync_ms` for the last one.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.tick.stop();
    this.lease.stop();
    if (this.inFlight && !(await within(this.syncNow(), this.syncMs))) return;
    await within(this.syncNow(true), this.syncMs);
  }

  /** The store's answer to the sync in flight (FleetReply): ignored when none is. */
  answered(totals: FleetTotals): void {
    if (!this.inFlight) return;
    const [sent, sentAt] = [this.sent!, this.sentAt];
    const release = this.settle();
    try {
      this.takeIn(totals, sent, sentAt);
    } finally {
      release?.();
    }
  }

  /** The sync in flight failed (FleetReply): ignored when none is. */
  failed(error: unknown): void {
    if (!this.inFlight) return;
    const sentAt = this.sentAt;
    const release = this.settle();
    try {
      this.failures++;
      this.lastError = error instanceof Error ? error.message : String(error);
      this.syncObserver?.(this.now() - sentAt, errorTypeOf(error));
    } finally {
      release?.();
    }
  }

  /** The store's answer to `sent`: the parts take the fleet's totals in, unless it came after sync_ms. */
  private takeIn(totals: FleetTotals, sent: FleetReport, sentAt: number): void {
    // An answer later than sync_ms is stale: the next sync sends the same state again.
    const now = this.now();
    const took = now - sentAt;
    if (took > this.syncMs || totals === null || typeof totals !== "object") {
      this.failures++;
      this.syncObserver?.(took, took > this.syncMs ? "timeout" : "malformed");
      return;
    }
    this.syncObserver?.(took, undefined);
    for (const part of this.parts) part.apply(totals, sent);
    this.syncs++;
    this.lastSyncMs = now;
    this.instances = typeof totals.instances === "number" && totals.instances >= 1 ? totals.instances : 1;
    this.mode = "fleet";
    if (!this.closed) this.lease.restart();
    if (this.down) {
      this.down = false;
      this.o.emit({ type: "fleet_store_recovered", instance: this.instance, down_ms: this.lastSyncMs - this.downSince });
    }
  }

  private downSince = 0;

  private leaseEnded(): void {
    if (this.closed || this.down) return;
    this.down = true;
    this.mode = this.whenDown;
    this.downSince = this.now();
    const event: FleetEvent = { type: "fleet_store_unavailable", instance: this.instance, since_ms: this.downSince - (this.lastSyncMs ?? this.started) };
    if (this.lastError !== undefined) event.error = this.lastError;
    this.o.emit(event);
  }
}

/** Whether `promise` settled within `ms` (a referenced timer: close() is awaited, and must not leave a top-level await hanging). */
function within(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([promise.then(() => true), late]).finally(() => clearTimeout(timer));
}
