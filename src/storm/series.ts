/**
 * What a storm measures, bucket by bucket (SPEC 19): counts by the time they happen, the
 * upstream's attempts in progress and queued as time averages, breakers open at each
 * bucket's end, and every call's latency for the percentiles.
 */

export type Counter = "offered" | "sent" | "succeeded" | "retries" | "hedges" | "short_circuited" | "throttled" | "budget_refused";
export const COUNTERS: readonly Counter[] = ["offered", "sent", "succeeded", "retries", "hedges", "short_circuited", "throttled", "budget_refused"];

export class Series {
  readonly buckets: number;
  readonly counts: Record<Counter, Float64Array>;
  /**
   * Of the calls offered in each bucket: those that succeeded within the run (before the
   * duration ended), those judged within it (ended, or failed an attempt, before then), and
   * those that ended at all. A call still on its first attempt when the run ends is not judged:
   * the drain, when no new call arrives, never lifts a collapsed run's last buckets.
   */
  readonly cohortSucceeded: Float64Array;
  readonly cohortJudged: Float64Array;
  readonly cohortEnded: Float64Array;
  /** Calls that ended in each bucket, by outcome kind. */
  readonly outcomes = new Map<string, Float64Array>();
  /** Failed attempts answered in each bucket, by error kind. */
  readonly attemptErrors = new Map<string, Float64Array>();
  /** ∫ attempts in progress dt and ∫ attempts queued dt over each bucket. */
  private readonly inProgressArea: Float64Array;
  private readonly queuedArea: Float64Array;
  /** Breakers open and half-open at each bucket's end. */
  readonly breakersOpen: Float64Array;
  readonly breakersHalfOpen: Float64Array;
  /** Every call's latency, for calls offered within the duration. */
  private latencies = new Float64Array(1024);
  private latencyCount = 0;

  private lastTime = 0;
  private inProgress = 0;
  private queued = 0;
  private open = 0;
  private halfOpen = 0;
  /** Totals over the run: calls offered and attempts sent, succeeded, unfinished. */
  offered = 0;
  sent = 0;
  succeeded = 0;

  constructor(
    readonly durationMs: number,
    readonly stepMs: number,
  ) {
    this.buckets = Math.max(1, Math.ceil(durationMs / stepMs));
    const make = () => new Float64Array(this.buckets);
    this.counts = Object.fromEntries(COUNTERS.map((c) => [c, make()])) as Record<Counter, Float64Array>;
    this.cohortSucceeded = make();
    this.cohortJudged = make();
    this.cohortEnded = make();
    this.inProgressArea = make();
    this.queuedArea = make();
    this.breakersOpen = make();
    this.breakersHalfOpen = make();
  }

  /** The bucket of time `t`, or -1 past the duration. */
  bucketOf(t: number): number {
    return t < this.durationMs ? Math.floor(t / this.stepMs) : -1;
  }

  count(counter: Counter, t: number, n = 1): void {
    const b = this.bucketOf(t);
    if (b >= 0) this.counts[counter][b] += n;
  }

  countKind(table: Map<string, Float64Array>, kind: string, t: number): void {
    const b = this.bucketOf(t);
    if (b < 0) return;
    let row = table.get(kind);
    if (row === undefined) table.set(kind, (row = new Float64Array(this.buckets)));
    row[b]++;
  }

  /** A call ended at `t`; it was offered at `offeredAt`, and first failed an attempt at `failedAt` (Infinity: never). */
  callEnded(kind: string, success: boolean, offeredAt: number, t: number, failedAt: number): void {
    this.countKind(this.outcomes, kind, t);
    if (offeredAt < this.durationMs) {
      if (this.latencyCount === this.latencies.length) {
        const grown = new Float64Array(this.latencies.length * 2);
        grown.set(this.latencies);
        this.latencies = grown;
      }
      this.latencies[this.latencyCount++] = t - offeredAt;
    }
    const b = this.bucketOf(offeredAt);
    if (b >= 0) {
      this.cohortEnded[b]++;
      if (t < this.durationMs || failedAt < this.durationMs) this.cohortJudged[b]++;
      if (success && t < this.durationMs) this.cohortSucceeded[b]++;
    }
    if (!success) return;
    this.count("succeeded", t);
    if (b >= 0) this.succeeded++;
  }

  /**
   * Of the calls offered in bucket `b`, the share that succeeded within the run, of those
   * judged within it (a call that never ended counts as judged); null when none was.
   */
  successShare(b: number): number | null {
    const judged = this.cohortJudged[b] + this.counts.offered[b] - this.cohortEnded[b];
    return judged === 0 ? null : this.cohortSucceeded[b] / judged;
  }

  /** The upstream's load changes at `t` (by +1 or -1). */
  loadChanged(t: number, inProgress: number, queued: number): void {
    this.advance(t);
    this.inProgress += inProgress;
    this.queued += queued;
  }

  breakerChanged(t: number, open: number, halfOpen: number): void {
    this.advance(t);
    this.open += open;
    this.halfOpen += halfOpen;
  }

  /** Close the books at the duration's end. */
  finish(): void {
    this.advance(this.durationMs);
  }

  /** Time-average attempts in progress and queued in bucket `b`. */
  meanInProgress(b: number): number {
    return this.inProgressArea[b] / this.widthOf(b);
  }
  meanQueued(b: number): number {
    return this.queuedArea[b] / this.widthOf(b);
  }
  widthOf(b: number): number {
    return Math.min(this.stepMs, this.durationMs - b * this.stepMs);
  }

  /** Call latencies, sorted. */
  sortedLatencies(): Float64Array {
    return this.latencies.slice(0, this.latencyCount).sort();
  }

  /** Accrue the time averages up to `t` (never past the duration), bucket by bucket. */
  private advance(t: number): void {
    const end = Math.min(t, this.durationMs);
    while (this.lastTime < end) {
      const b = Math.floor(this.lastTime / this.stepMs);
      const bucketEnd = Math.min((b + 1) * this.stepMs, this.durationMs);
      const until = Math.min(end, bucketEnd);
      const dt = until - this.lastTime;
      this.inProgressArea[b] += this.inProgress * dt;
      this.queuedArea[b] += this.queued * dt;
      this.lastTime = until;
      if (until === bucketEnd) {
        this.breakersOpen[b] = this.open;
        this.breakersHalfOpen[b] = this.halfOpen;
      }
    }
  }
}
