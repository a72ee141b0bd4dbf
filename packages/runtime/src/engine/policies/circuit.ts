/**
 * One circuit of a circuit breaker (SPEC 18): the state machine and its window, pure, the
 * time passed in. Closed, it counts attempts in a window and opens when, within the last
 * `sampling_ms`, at least `minimum_throughput` were counted and the failures' share is at
 * least `failure_ratio`. Open, it lets nothing through for `break_ms`; then it is half-open
 * and lets `half_open_probes` attempts through: all succeed and it closes with an empty
 * window, one fails and it opens again, for a break doubled up to `max_break_ms` when set.
 */
import type { BreakerState } from "../../model/fixture.js";
import type { CircuitBreakerPolicy } from "../../model/playbook.js";

/** Polly v8's defaults: 10 % of at least 100 attempts in 30 s opens it for 5 s. */
export const BREAKER_DEFAULTS = Object.freeze({ failure_ratio: 0.1, minimum_throughput: 100, sampling_ms: 30_000, break_ms: 5_000, half_open_probes: 1 });

/**
 * What an answered attempt means to a breaker: a success, a failure it counts, or neither. A
 * `process_failure` is a counted failure whose verdict is `evidence: process` (SPEC 23): a
 * fleet breaker counts it in this process's own view only, never in the fleet's.
 */
export type CircuitOutcome = "success" | "failure" | "process_failure" | "ignored";

/**
 * A `scope: fleet` circuit's link to the fleet (engine/fleet/breakers.ts): what the fleet's
 * last sync says, read without waiting on the store. News it heard at a sync (the fleet opened
 * the breaker, or closed it after a probe) waits in `news` for the circuit's next admission,
 * so its transition is an event of the dispatch that meets it.
 */
export interface CircuitFleet {
  /** Does the fleet's summed window, this process's shared counts now included, cross the threshold and the quorum? */
  crosses(total: number, failures: number): boolean;
  /** May this process send a half-open probe now: it holds the fleet's probe lease, or the fleet is not deciding. */
  mayProbe(): boolean;
  /** The circuit's probes passed (true: it closed), one failed (false: it opened again), or one met a process-evidence failure (undefined). */
  probed(passed: boolean | undefined): void;
}

/** What the fleet's last sync told a fleet circuit, taken in at its next admission. */
export type FleetNews =
  | { type: "open"; /** the dispatcher's clock when the fleet's break started */ openedAt: number; breakMs: number; failures: number; attempts: number }
  | { type: "closed" };

export type CircuitTransition = { type: "opened"; failures: number; attempts: number; breakMs: number } | { type: "half_open" } | { type: "closed" };

/** May an attempt go: as an ordinary attempt (closed), as a probe (half-open), or not at all. */
export type CircuitAdmission = "closed" | "probe" | "rejected";

export class Circuit {
  private state: BreakerState = "closed";
  private openedAt = 0;
  /** When it last closed, and last became half-open (or was made so): a snapshot's "since" (SPEC 24). */
  private closedAt: number;
  private halfOpenAt: number;
  private breakMs: number;
  private probesOut = 0;
  private probesPassed = 0;
  private readonly window: Window;
  private readonly ratio: number;
  private readonly minimum: number;
  private readonly probes: number;
  /** With `scope: fleet`: the link, and the window of the counts the fleet sees (no `evidence: process` failures). */
  private fleet: CircuitFleet | undefined;
  private sharedWindow: Window | undefined;
  private news: FleetNews | undefined;

  constructor(
    private readonly policy: CircuitBreakerPolicy,
    /** The clock when the breaker was made: buckets are aligned to it, and a start in `open` breaks from it. */
    origin: number,
    start: BreakerState = "closed",
  ) {
    this.ratio = policy.failure_ratio ?? BREAKER_DEFAULTS.failure_ratio;
    this.minimum = policy.minimum_throughput ?? BREAKER_DEFAULTS.minimum_throughput;
    this.probes = policy.half_open_probes ?? BREAKER_DEFAULTS.half_open_probes;
    this.breakMs = policy.break_ms ?? BREAKER_DEFAULTS.break_ms;
    this.window = windowOf(policy, origin);
    this.state = start;
    this.openedAt = origin;
    this.closedAt = origin;
    this.halfOpenAt = origin;
  }

  /** Its state at `now`, since when, and the break an open circuit keeps (snapshots, SPEC 24). Changes nothing. */
  viewAt(now: number): { state: BreakerState; since: number; breakMs: number } {
    const state = this.stateAt(now);
    // An open circuit whose break is over is half-open since the break ended, whether or not a probe came yet.
    const since = state === "closed" ? this.closedAt : state === "open" ? this.openedAt : this.state === "half_open" ? this.halfOpenAt : this.openedAt + this.breakMs;
    return { state, since, breakMs: this.breakMs };
  }

  /** The state at `now`: an open circuit whose break is over is half-open. */
  stateAt(now: number): BreakerState {
    return this.state === "open" && now - this.openedAt >= this.breakMs ? "half_open" : this.state;
  }

  /** Closed: `admit` lets an attempt through as an ordinary one, changing nothing and emitting nothing. */
  get closed(): boolean {
    return this.state === "closed" && this.news === undefined;
  }

  /**
   * Make this circuit the fleet's (SPEC 23): `fleet` tells it what the fleet's last sync said.
   * With `processEvidence` (the registry has `evidence: process` verdicts) it keeps a second
   * window, of the counts the fleet sees; without, its own window is the fleet's share.
   */
  linkFleet(fleet: CircuitFleet, origin: number, processEvidence: boolean): void {
    this.fleet = fleet;
    if (processEvidence) this.sharedWindow = windowOf(this.policy, origin);
  }

  /** The counts the fleet sees at `now`, over the window (called by the sync, off the call path). */
  sharedAt(now: number): { total: number; failures: number; open: boolean; halfOpen: boolean } {
    const window = this.sharedWindow ?? this.window;
    window.settle(now);
    const state = this.stateAt(now);
    return { total: window.total, failures: window.failures, open: state !== "closed", halfOpen: state === "half_open" };
  }

  /** The fleet's news from a sync (`closed` on a closed circuit only empties its windows: the fleet's window restarted). */
  hear(news: FleetNews): void {
    if (news.type === "closed" && this.state === "closed" && this.news === undefined) this.clearWindows();
    else this.news = news;
  }

  /** Would `admit` refuse an attempt now? Changes nothing: a rate limit asks before it spends a token on an attempt that will not be sent. */
  refuses(now: number): boolean {
    if (this.news !== undefined || this.state === "closed") return false;
    if (this.state === "open" && now - this.openedAt < this.breakMs) return true;
    // An open circuit whose break is over turns half-open at its next admission, with no probe taken yet.
    return !this.probeFree(this.state === "open" ? 0 : this.probesOut + this.probesPassed);
  }

  /** Half-open with `taken` probes out or passed: may one more go (this process holds the fleet's probe, or it is its own)? */
  private probeFree(taken: number): boolean {
    return taken < this.probes && (this.fleet === undefined || this.fleet.mayProbe());
  }

  /** May an attempt go now? `emit` hears the move from open to half-open. */
  admit(now: number, emit: (t: CircuitTransition) => void): CircuitAdmission {
    if (this.news !== undefined) this.takeNews(now, emit);
    if (this.state === "closed") return "closed";
    if (this.state === "open") {
      if (now - this.openedAt < this.breakMs) return "rejected";
      this.state = "half_open";
      this.halfOpenAt = this.openedAt + this.breakMs;
      this.probesOut = 0;
      this.probesPassed = 0;
      emit({ type: "half_open" });
    }
    return this.probeFree(this.probesOut + this.probesPassed) ? "probe" : "rejected";
  }

  /** The fleet opened the breaker (aligned to the fleet's break) or closed it after a probe. */
  private takeNews(now: number, emit: (t: CircuitTransition) => void): void {
    const news = this.news!;
    this.news = undefined;
    if (news.type === "closed") {
      if (this.state !== "closed") this.close(now, emit);
      else this.clearWindows();
      return;
    }
    // Already open (its break over or not: it announced nothing since) it only takes the fleet's break; half-open or closed, it opens.
    const wasOpen = this.state === "open";
    this.state = "open";
    this.openedAt = news.openedAt;
    this.breakMs = news.breakMs;
    this.probesOut = 0;
    this.probesPassed = 0;
    if (!wasOpen) emit({ type: "opened", failures: news.failures, attempts: news.attempts, breakMs: news.breakMs });
  }

  /** An admitted probe takes its place (once every breaker guarding the tool admitted the attempt). */
  takeProbe(): void {
    this.probesOut++;
  }

  /** An admitted attempt answered. */
  record(now: number, admitted: CircuitAdmission, outcome: CircuitOutcome, emit: (t: CircuitTransition) => void): void {
    if (admitted === "probe") {
      if (this.state !== "half_open") return;
      this.probesOut--;
      if (outcome === "failure" || outcome === "process_failure") {
        this.open(now, true, emit);
        this.fleet?.probed(outcome === "failure" ? false : undefined);
      } else if (outcome === "success" && ++this.probesPassed >= this.probes) {
        this.close(now, emit);
        this.fleet?.probed(true);
      }
      return;
    }
    // An attempt let through while closed that answers once the circuit has opened moves nothing.
    if (admitted !== "closed" || this.state !== "closed" || outcome === "ignored") return;
    const failed = outcome !== "success";
    this.window.add(now, failed);
    if (this.sharedWindow !== undefined && outcome !== "process_failure") this.sharedWindow.add(now, failed);
    if (!failed) return;
    if (this.window.total >= this.minimum && this.window.failures >= this.ratio * this.window.total) this.open(now, false, emit);
    else if (this.fleet !== undefined) {
      const shared = this.sharedWindow ?? this.window;
      if (this.fleet.crosses(shared.total, shared.failures)) this.open(now, false, emit, shared);
    }
  }

  private close(now: number, emit: (t: CircuitTransition) => void): void {
    this.state = "closed";
    this.closedAt = now;
    this.breakMs = this.policy.break_ms ?? BREAKER_DEFAULTS.break_ms;
    this.clearWindows();
    emit({ type: "closed" });
  }

  private clearWindows(): void {
    this.window.clear();
    this.sharedWindow?.clear();
  }

  private open(now: number, again: boolean, emit: (t: CircuitTransition) => void, window: Window = this.window): void {
    // Reopened by a probe: its probes are what it saw (those that passed, and the one that failed).
    // Opened on the fleet's view: the counts this process saw of it (the fleet's summed window is the store's).
    const failures = again ? 1 : window.failures;
    const attempts = again ? this.probesPassed + 1 : window.total;
    if (again && this.policy.max_break_ms !== undefined) this.breakMs = Math.min(this.policy.max_break_ms, this.breakMs * 2);
    this.state = "open";
    this.openedAt = now;
    emit({ type: "opened", failures, attempts, breakMs: this.breakMs });
  }
}

/** The counted attempts of the window, evicted as time (and the count bound) moves on. */
interface Window {
  readonly total: number;
  readonly failures: number;
  add(now: number, failed: boolean): void;
  clear(): void;
  /** Let time move on to `now` without adding (a sync reads the window between attempts). */
  settle(now: number): void;
}

function windowOf(policy: CircuitBreakerPolicy, origin: number): Window {
  const samplingMs = policy.sampling_ms ?? BREAKER_DEFAULTS.sampling_ms;
  return policy.buckets === undefined ? new ExactWindow(samplingMs, policy.sampling_attempts) : new BucketWindow(samplingMs, policy.buckets, origin);
}

/**
 * Every counted attempt within the last `samplingMs` (and, when set, only the last
 * `maxAttempts` of them), exactly. Runs of like outcomes in the same millisecond share an
 * entry, so the memory follows the traffic, never a configured number.
 */
class ExactWindow implements Window {
  total = 0;
  failures = 0;
  // A queue of runs: time, outcome, how many; `head` is the oldest live entry.
  private times: number[] = [];
  private failed: boolean[] = [];
  private counts: number[] = [];
  private head = 0;

  constructor(
    private readonly samplingMs: number,
    private readonly maxAttempts = Number.POSITIVE_INFINITY,
  ) {}

  add(now: number, failed: boolean): void {
    this.evictBefore(now - this.samplingMs);
    const last = this.times.length - 1;
    if (last >= this.head && this.times[last] === now && this.failed[last] === failed) this.counts[last]++;
    else {
      this.times.push(now);
      this.failed.push(failed);
      this.counts.push(1);
    }
    this.total++;
    if (failed) this.failures++;
    while (this.total > this.maxAttempts) this.drop(1);
  }

  clear(): void {
    this.times = [];
    this.failed = [];
    this.counts = [];
    this.head = 0;
    this.total = 0;
    this.failures = 0;
  }

  settle(now: number): void {
    this.evictBefore(now - this.samplingMs);
  }

  /** Drop the entries at or before `t`: "within the last sampling_ms" keeps those after it. */
  private evictBefore(t: number): void {
    while (this.head < this.times.length && this.times[this.head] <= t) this.drop(this.counts[this.head]);
  }

  /** Drop `n` attempts from the oldest entry. */
  private drop(n: number): void {
    const i = this.head;
    this.counts[i] -= n;
    this.total -= n;
    if (this.failed[i]) this.failures -= n;
    if (this.counts[i] > 0) return;
    this.head++;
    // Compact now and then, so the queue's arrays stay as long as the live window.
    if (this.head >= 1024 && this.head * 2 >= this.times.length) {
      this.times = this.times.slice(this.head);
      this.failed = this.failed.slice(this.head);
      this.counts = this.counts.slice(this.head);
      this.head = 0;
    }
  }
}

/**
 * The window as `buckets` buckets of `samplingMs / buckets`, aligned to the breaker's
 * origin: the current bucket and the ones before it (opossum's and Hystrix's rolling
 * window). Constant memory, whatever the traffic.
 */
class BucketWindow implements Window {
  total = 0;
  failures = 0;
  private readonly successesIn: number[];
  private readonly failuresIn: number[];
  private current = 0;

  constructor(
    private readonly samplingMs: number,
    private readonly buckets: number,
    private readonly origin: number,
  ) {
    this.successesIn = new Array<number>(buckets).fill(0);
    this.failuresIn = new Array<number>(buckets).fill(0);
  }

  add(now: number, failed: boolean): void {
    const index = Math.floor(((now - this.origin) * this.buckets) / this.samplingMs);
    if (index > this.current) this.rotateTo(index);
    const slot = this.current % this.buckets;
    if (failed) this.failuresIn[slot]++;
    else this.successesIn[slot]++;
    this.total++;
    if (failed) this.failures++;
  }

  clear(): void {
    this.successesIn.fill(0);
    this.failuresIn.fill(0);
    this.total = 0;
    this.failures = 0;
  }

  settle(now: number): void {
    const index = Math.floor(((now - this.origin) * this.buckets) / this.samplingMs);
    if (index > this.current) this.rotateTo(index);
  }

  /** Empty the buckets that fell out of the window on the way to bucket `index`. */
  private rotateTo(index: number): void {
    const from = Math.max(this.current + 1, index - this.buckets + 1);
    for (let i = from; i <= index; i++) {
      const slot = i % this.buckets;
      this.total -= this.successesIn[slot] + this.failuresIn[slot];
      this.failures -= this.failuresIn[slot];
      this.successesIn[slot] = 0;
      this.failuresIn[slot] = 0;
    }
    this.current = index;
  }
}
