/**
 * Caller cancellation and deadlines (SPEC 21): a dispatch given `signal` or `deadlineMs`
 * ends at once when the signal aborts or the deadline passes. The run asks this at every
 * step (before an attempt, before a retry, after an answer); on a real clock it also wakes
 * the awaits themselves (an attempt in flight, a backoff sleep, a hedge race), on a virtual
 * clock time only moves when the run moves it, so the steps are where it is seen.
 */
import type { AbortSignalOf, Clock } from "./clock.js";

export type StopReason = "cancelled" | "deadline";

/** Thrown inside a run when it must end; the dispatch turns it into its `exhausted` end. */
export class Stopped extends Error {
  constructor(
    readonly reason: StopReason,
    /** An attempt was in flight: its side effect is unknown. */
    readonly inFlight: boolean,
  ) {
    super(`the dispatch was ${reason === "deadline" ? "past its deadline" : "cancelled"}`);
    this.name = "Stopped";
  }
}

export class DispatchStop {
  /** Aborts when the dispatch must end: what its attempts are handed. */
  private readonly controller = new AbortController();
  /** Ends the deadline's timer when the dispatch ends first. */
  private readonly timer = new AbortController();
  private why: StopReason | undefined;
  private over = false;
  /** Rejects with Stopped when the dispatch must end (real clocks); awaited only in races. */
  readonly stopped: Promise<never>;
  private fail!: (e: Stopped) => void;
  private detach: (() => void) | undefined;

  constructor(
    private readonly clock: Clock,
    signal: AbortSignalOf | undefined,
    readonly deadline: number | undefined,
  ) {
    this.stopped = new Promise<never>((_resolve, reject) => (this.fail = reject));
    this.stopped.catch(() => {});
    if (signal !== undefined) {
      if (signal.aborted) this.end("cancelled");
      else {
        const onAbort = () => this.end("cancelled");
        signal.addEventListener("abort", onAbort, { once: true });
        this.detach = () => (signal as { removeEventListener?(type: "abort", listener: () => void): void }).removeEventListener?.("abort", onAbort);
      }
    }
    // A real clock wakes the dispatch at its deadline; a virtual one is asked at each step.
    if (deadline !== undefined && clock.hold === undefined && this.why === undefined) {
      void clock.sleep(Math.max(0, deadline - clock.now()), this.timer.signal as AbortSignalOf).then(() => this.end("deadline"));
    }
  }

  /** The signal an attempt is handed: it aborts when the dispatch ends this way. */
  get attemptSignal(): AbortSignalOf {
    return this.controller.signal as AbortSignalOf;
  }

  /** Why the dispatch must end now, if it must. */
  check(): StopReason | undefined {
    if (this.why === undefined && this.deadline !== undefined && this.clock.now() >= this.deadline) this.end("deadline");
    return this.why;
  }

  /** Throw Stopped when the dispatch must end now. */
  throwIfStopped(inFlight: boolean): void {
    const why = this.check();
    if (why !== undefined) throw new Stopped(why, inFlight);
  }

  /** An answer, unless the dispatch ends first (then Stopped, the attempt in flight). */
  race<T>(answer: Promise<T> | T): Promise<T> | T {
    if (typeof (answer as { then?: unknown } | null)?.then !== "function") return answer;
    (answer as Promise<T>).catch(() => {}); // a late failure is discarded like a late answer
    return Promise.race([answer as Promise<T>, this.stopped.catch((e: Stopped) => Promise.reject(new Stopped(e.reason, true)))]);
  }

  /** The dispatch is over: no timer or listener survives it. */
  dispose(): void {
    this.over = true;
    this.detach?.();
    this.detach = undefined;
    this.timer.abort();
  }

  private end(why: StopReason): void {
    if (this.why !== undefined || this.over) return;
    this.why = why;
    this.controller.abort(Object.assign(new Error(why === "deadline" ? "the dispatch's deadline passed" : "the dispatch was cancelled"), { name: why === "deadline" ? "TimeoutError" : "AbortError" }));
    this.timer.abort();
    this.fail(new Stopped(why, false));
  }
}
