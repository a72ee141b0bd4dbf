/**
 * The retry budget with `scope: fleet` (SPEC 23): retries in progress across the fleet stay
 * below `max(min_concurrency, percent × calls in progress across the fleet)`, each process
 * counting the fleet's totals at its last sync plus its own changes since.
 *
 * Stated bound: between two syncs each process starts at most its share of the headroom it
 * saw (`ceil((limit − fleet retries) / processes)`), so in one `sync_ms` the fleet starts at
 * most the headroom plus one retry per process but one: its retries in progress stay below
 * the limit plus the number of processes.
 */
import type { FleetReport, FleetTotals } from "./store.js";
import type { FleetMode, FleetPart } from "./sync.js";
import type { BudgetView, RetryBudget } from "../policies/retry-budget.js";

export class FleetBudget implements FleetPart, BudgetView {
  /** The fleet's totals at the last sync, and what this process had sent for them. */
  private fleetCalls = 0;
  private fleetRetries = 0;
  private sentCalls = 0;
  private sentRetries = 0;
  private instances = 1;

  constructor(
    private readonly budget: RetryBudget,
    private readonly modeOf: () => FleetMode,
  ) {}

  get mode(): FleetMode {
    return this.modeOf();
  }

  calls(own: number): number {
    return Math.max(own, this.fleetCalls - this.sentCalls + own);
  }

  retries(own: number): number {
    return Math.max(own, this.fleetRetries - this.sentRetries + own);
  }

  /** The retries this process may start since its last sync: its share of the headroom the fleet had then. */
  share(limit: number): number {
    return Math.ceil((limit - this.fleetRetries) / this.instances);
  }

  started(own: number): number {
    return own - this.sentRetries;
  }

  report(into: FleetReport): void {
    into.budget = { calls: this.budget.ownCalls, retries: this.budget.ownRetries };
  }

  apply(totals: FleetTotals, sent: FleetReport): void {
    const fleet = totals.budget;
    if (fleet === undefined || sent.budget === undefined || !(fleet.calls >= 0) || !(fleet.retries >= 0)) return;
    this.fleetCalls = fleet.calls;
    this.fleetRetries = fleet.retries;
    this.sentCalls = sent.budget.calls;
    this.sentRetries = sent.budget.retries;
    this.instances = totals.instances >= 1 ? totals.instances : 1;
  }
}
