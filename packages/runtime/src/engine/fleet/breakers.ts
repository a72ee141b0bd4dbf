/**
 * Circuit breakers with `scope: fleet` (SPEC 23). The fleet's summed window decides: the store
 * sums the counts every process reports and opens the breaker for all of them when the sum
 * crosses the threshold (and, with `quorum: Q`, when at least that share of the processes with
 * attempts in the window cross `failure_ratio` on their own counts, so one sick process cannot
 * open a healthy fleet's breaker). Between syncs a process decides on the fleet's last sums
 * plus its own counts since, and opens at once when they cross; the store's decision reaches
 * every other process at its next sync. Half-open, one process in the fleet wins the probe (a
 * `SET NX PX` lease on the store); the others keep short-circuiting until the fleet closes the
 * breaker or the lease expires.
 *
 * Stated bound: the fleet opens the breaker at the first sync after its summed window crosses,
 * and every process hears of it at its next sync: each process opens within `2 × sync_ms` of
 * the fleet crossing its threshold. Before that, each process sends at most what it sends in
 * `2 × sync_ms` at its own rate. With the store down (or before the first sync) each
 * circuit decides alone, as `scope: process`.
 *
 * A failure whose verdict is `evidence: process` counts in this process's own window only.
 */
import type { CircuitBreakerPolicy } from "../../model/playbook.js";
import { BREAKER_DEFAULTS, type Circuit, type CircuitFleet } from "../policies/circuit.js";
import type { FleetBreakerReport, FleetBreakerTotals, FleetReport, FleetTotals } from "./store.js";
import type { FleetMode, FleetPart } from "./sync.js";

/** One fleet circuit's link: what the fleet's last sync said of it, and what this process sent then. */
class FleetCircuit implements CircuitFleet {
  private epoch = 0;
  private gen = 0;
  private state: FleetBreakerTotals["state"] = "closed";
  private granted = false;
  /** The probe's result, until a sync carried it to the store. */
  private result: "passed" | "failed" | undefined;
  /** The fleet's sums at the last sync, and this process's part of them. */
  private attempts = 0;
  private failures = 0;
  private processes = 0;
  private crossing = 0;
  private sentAttempts = 0;
  private sentFailures = 0;
  private readonly ratio: number;
  private readonly minimum: number;
  private readonly quorum: number;

  constructor(
    readonly id: string,
    private readonly circuit: Circuit,
    private readonly policy: CircuitBreakerPolicy,
    private readonly modeOf: () => FleetMode,
  ) {
    this.ratio = policy.failure_ratio ?? BREAKER_DEFAULTS.failure_ratio;
    this.minimum = policy.minimum_throughput ?? BREAKER_DEFAULTS.minimum_throughput;
    this.quorum = policy.quorum ?? 0;
  }

  crosses(total: number, failures: number): boolean {
    if (this.modeOf() !== "fleet") return false;
    const sumTotal = this.attempts - this.sentAttempts + total;
    const sumFailures = this.failures - this.sentFailures + failures;
    if (sumTotal < this.minimum || sumFailures <= 0 || sumFailures < this.ratio * sumTotal) return false;
    if (this.quorum === 0) return true;
    const sent = this.crosses1(this.sentAttempts, this.sentFailures);
    const crossing = this.crossing - (sent ? 1 : 0) + (this.crosses1(total, failures) ? 1 : 0);
    const processes = this.processes - (this.sentAttempts > 0 ? 1 : 0) + (total > 0 ? 1 : 0);
    return crossing >= this.quorum * processes;
  }

  /** One process's own counts cross `failure_ratio` (the quorum's test; `minimum_throughput` is the fleet's). */
  private crosses1(total: number, failures: number): boolean {
    return total > 0 && failures > 0 && failures >= this.ratio * total;
  }

  mayProbe(): boolean {
    return this.modeOf() !== "fleet" || this.state === "closed" || this.granted;
  }

  probed(passed: boolean | undefined): void {
    this.granted = false;
    if (passed !== undefined && this.state !== "closed") this.result = passed ? "passed" : "failed";
  }

  report(now: number): FleetBreakerReport {
    const own = this.circuit.sharedAt(now);
    const report: FleetBreakerReport = {
      name: this.id,
      epoch: this.epoch,
      attempts: own.total,
      failures: own.failures,
      open: own.open,
      ratio: this.ratio,
      minimum: this.minimum,
      quorum: this.quorum,
      break_ms: this.policy.break_ms ?? BREAKER_DEFAULTS.break_ms,
    };
    if (this.policy.max_break_ms !== undefined) report.max_break_ms = this.policy.max_break_ms;
    if (this.result !== undefined) report.probe = this.result;
    else if (this.state !== "closed" && own.halfOpen) report.probe = "want";
    return report;
  }

  apply(fleet: FleetBreakerTotals, sent: FleetBreakerReport, now: number): void {
    if (sent.probe === "passed" || sent.probe === "failed") this.result = undefined;
    if (fleet.epoch !== this.epoch) {
      // A later epoch: the fleet closed the breaker after a probe, its window starts again, and so does
      // this process's. An earlier one: the store lost its state (a restart): this process's counts stand.
      if (fleet.epoch > this.epoch) this.circuit.hear({ type: "closed" });
      this.epoch = fleet.epoch;
    }
    if (fleet.state !== "closed" && fleet.gen !== this.gen) {
      this.circuit.hear({ type: "open", openedAt: now - (fleet.break_ms - fleet.left_ms), breakMs: fleet.break_ms, failures: fleet.failures, attempts: fleet.attempts });
    }
    this.gen = fleet.gen;
    this.state = fleet.state;
    this.granted = fleet.probe === true;
    this.attempts = fleet.attempts;
    this.failures = fleet.failures;
    this.processes = fleet.processes;
    this.crossing = fleet.crossing;
    // Counts of an older epoch were dropped by the store: none of the sums is this process's.
    const counted = sent.epoch === fleet.epoch;
    this.sentAttempts = counted ? sent.attempts : 0;
    this.sentFailures = counted ? sent.failures : 0;
  }
}

/** Every fleet circuit of a dispatcher: one part of the sync. */
export class FleetBreakers implements FleetPart {
  private readonly circuits: FleetCircuit[] = [];

  constructor(
    private readonly now: () => number,
    private readonly modeOf: () => FleetMode,
  ) {}

  /** The linker `CircuitBreakers.linkFleet` takes: a `per: tool` breaker's circuits join as their tools appear. */
  readonly link = (id: string, circuit: Circuit, policy: CircuitBreakerPolicy): CircuitFleet => {
    const link = new FleetCircuit(id, circuit, policy, this.modeOf);
    this.circuits.push(link);
    return link;
  };

  report(into: FleetReport): void {
    if (this.circuits.length === 0) return;
    const now = this.now();
    into.breakers = this.circuits.map((c) => c.report(now));
  }

  apply(totals: FleetTotals, sent: FleetReport): void {
    const fleet = totals.breakers;
    const reports = sent.breakers;
    if (!Array.isArray(fleet) || reports === undefined) return;
    const now = this.now();
    // The report listed the circuits in order; one a `per: tool` breaker made since comes after them.
    for (let i = 0; i < reports.length; i++) {
      const answer = fleet[i];
      if (isBreakerTotals(answer, reports[i].name)) this.circuits[i].apply(answer, reports[i], now);
    }
  }
}

function isBreakerTotals(answer: unknown, name: string): answer is FleetBreakerTotals {
  const a = answer as Partial<FleetBreakerTotals> | null | undefined;
  return (
    a !== null &&
    typeof a === "object" &&
    a.name === name &&
    (a.state === "closed" || a.state === "open" || a.state === "half_open") &&
    [a.epoch, a.gen, a.left_ms, a.break_ms, a.attempts, a.failures, a.processes, a.crossing].every((n) => typeof n === "number" && Number.isFinite(n) && n >= 0)
  );
}
