/**
 * What a fleet's processes exchange with their store (SPEC 23): each sync sends this
 * process's report and gets back the fleet's totals, in one round trip. Reports are
 * idempotent (a process sends what it holds now, never a delta to add): a sync that is lost,
 * late or sent twice leaves the store's totals right, and the next sync corrects the rest.
 */

/** This process's part of the fleet's state at one sync. */
export interface FleetReport {
  /** The report's format. */
  v: 1;
  /** This process, unique in the fleet. */
  instance: string;
  /** How long the store counts this process without another sync (`fleet.lease_ms`). */
  lease_ms: number;
  /** The process is closing: the store drops it from the totals now. */
  leave?: true;
  /** A `scope: fleet` retry budget: this process's calls and retries in progress now. */
  budget?: { calls: number; retries: number };
  /** A `scope: fleet` retry throttling: this process's token changes since it started, in thousandths. */
  throttling?: FleetTokenReport;
  /** A `scope: fleet` retry quota: this process's token changes since it started. */
  quota?: FleetTokenReport;
  /** Each `scope: fleet` rate limit with a `limit:`, in the playbook's order. */
  rates?: FleetRateReport[];
  /** Each circuit of a `scope: fleet` breaker (one per tool of a `per: tool` one). */
  breakers?: FleetBreakerReport[];
}

/**
 * A fleet breaker's side of a report: this process's counts in its window now (no
 * `evidence: process` failures), in the fleet's window `epoch` it last heard of (the store
 * drops counts of an older one: they were made before the fleet last closed the breaker), and
 * what it asks of the half-open state: the probe's lease (`want`), or the probe's result.
 */
export interface FleetBreakerReport {
  /** The breaker's name, and `/tool` for a `per: tool` breaker's circuit. */
  name: string;
  epoch: number;
  attempts: number;
  failures: number;
  /** This process's circuit is open or half-open now. */
  open: boolean;
  probe?: "want" | "passed" | "failed";
  /** The breaker's settings, so the store decides as the playbook says. */
  ratio: number;
  minimum: number;
  quorum: number;
  break_ms: number;
  max_break_ms?: number;
}

/** The fleet's breaker after the store took a report in. */
export interface FleetBreakerTotals {
  name: string;
  state: "closed" | "open" | "half_open";
  /** The fleet's window: it starts again (epoch + 1) each time the fleet closes the breaker. */
  epoch: number;
  /** The fleet's transitions so far: a process hears of each one once. */
  gen: number;
  /** Open: what is left of the break, ms (0 once half-open). */
  left_ms: number;
  break_ms: number;
  /** This process holds the half-open probe's lease. */
  probe: boolean;
  /** The window summed over the fleet's processes, in this epoch. */
  attempts: number;
  failures: number;
  /** Processes with attempts in the window, and those of them whose own counts cross `failure_ratio`. */
  processes: number;
  crossing: number;
}

/**
 * A fleet rate limit's side of a report: all the tokens this process spent since it started
 * (the store charges what is new since its last report, and takes back the rest of the
 * lease), the lease it wants next (twice what it used in the last interval) and the bucket.
 */
export interface FleetRateReport {
  name: string;
  spent: number;
  want: number;
  capacity: number;
  requests: number;
  per_ms: number;
}

/**
 * A fleet token count's side of a report: the sum of all this process's changes (never a
 * change to add: the store applies what is new since this process's last report) and the
 * bucket's size, which the count never leaves.
 */
export interface FleetTokenReport {
  net: number;
  max: number;
}

/** The fleet's totals after the store took a report in. */
export interface FleetTotals {
  /** The store's clock (Redis `TIME`), in ms since the epoch. */
  now_ms: number;
  /** Processes that synced within their lease, this one included. */
  instances: number;
  /** The retry budget's calls and retries in progress, summed over those processes. */
  budget?: { calls: number; retries: number };
  /** The fleet's retry-throttling tokens, in thousandths. */
  throttling?: { tokens: number };
  /** The fleet's retry-quota tokens. */
  quota?: { tokens: number };
  /** Each reported rate limit, in the report's order: this process's new lease, and the fleet's bucket after it. */
  rates?: { name: string; grant: number; tokens: number }[];
  /** Each reported breaker, in the report's order. */
  breakers?: FleetBreakerTotals[];
}

/** How a store answers `send`. */
export interface FleetReply {
  answered(totals: FleetTotals): void;
  failed(error: unknown): void;
}

/**
 * A fleet's store: `failbook-runtime/redis`'s `redisFleetStore(client)`, or a stand-in in a
 * test. Its calls may be slow or fail; the dispatcher never waits on them.
 */
export interface FleetStore {
  /** Send this process's report, get the fleet's totals: one round trip. */
  sync(report: FleetReport): Promise<FleetTotals>;
  /**
   * `sync` without a promise, for a store that can answer through callbacks (the memory store
   * on a storm's virtual clock, where a promise a sync would be most of the sync's cost): calls
   * exactly one of `reply`'s functions, at once or later. A store that has it is sent through
   * it; `sync` is for everything else.
   */
  send?(report: FleetReport, reply: FleetReply): void;
  /** The store's clock, in ms since the epoch. */
  time(): Promise<number>;
}
