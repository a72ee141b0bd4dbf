/**
 * Time, injected. The dispatcher only reads `now()` and waits with `sleep()`: a virtual
 * clock makes both instant and exact (simulation, tests), a real clock makes them real
 * (production). One dispatcher, two clocks.
 */

/**
 * An AbortSignal where the user's types have one (the DOM library, @types/node), else the part
 * failbook uses: the public types compile under `types: []` (SPEC 17) and still hand a real
 * AbortSignal to code that passes it on (`fetch(url, { signal })`).
 */
export type AbortSignalOf = typeof globalThis extends { AbortSignal: { prototype: infer S } } ? S : AbortSignalLike;

/** The part of an AbortSignal the dispatcher reads. */
export interface AbortSignalLike {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
}

export interface Clock {
  /** Milliseconds on this clock; only differences matter. */
  now(): number;
  /**
   * Wait `ms` milliseconds; a clock may end the wait early when `signal` aborts (an attempt
   * that answered before its timeout). `ms` is Infinity only with a `signal`: wait until it
   * aborts (a hedged call waiting on the attempts it sent, SPEC 18).
   */
  sleep(ms: number, signal?: AbortSignalOf): Promise<void>;
  /**
   * Milliseconds since the Unix epoch, to read an HTTP-date Retry-After against when the
   * error carries no `date` header. Absent on a virtual clock: its `now()` is the time.
   */
  epochMs?(): number;
  /**
   * A virtual clock's attempt timeout (SPEC 18): until the returned release is called, no
   * advance goes past `until`; release says whether one tried to (the attempt took longer,
   * so it ended at its timeout). A real clock has none: the dispatcher races a timer.
   */
  hold?(until: number): () => boolean;
  /**
   * A virtual clock's hedges (SPEC 18): run `send` as if it started now and took its own
   * time, then put the clock back; resolves to its answer and how long it took. The hedging
   * policy then takes the answers in time order. A real clock has none: hedges race.
   */
  measure?<T>(send: () => Promise<T> | T): Promise<{ value: T; ms: number }>;
}

/** A clock that never waits: `sleep` moves time forward and returns at once. */
export class VirtualClock implements Clock {
  protected time: number;
  private limit = Number.POSITIVE_INFINITY;
  private overran = false;

  constructor(start = 0) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  sleep(ms: number): Promise<void> {
    this.advance(ms);
    return Promise.resolve();
  }

  /** Move time forward without waiting (an attempt's recorded latency), never past a hold. */
  advance(ms: number): void {
    if (!(ms > 0)) return;
    const to = this.time + ms;
    if (to > this.limit) {
      this.time = this.limit;
      this.overran = true;
    } else this.time = to;
  }

  async measure<T>(send: () => Promise<T> | T): Promise<{ value: T; ms: number }> {
    const start = this.time;
    try {
      const value = await send();
      return { value, ms: this.time - start };
    } finally {
      this.time = start;
    }
  }

  hold(until: number): () => boolean {
    this.limit = until;
    this.overran = false;
    return () => {
      const overran = this.overran;
      this.limit = Number.POSITIVE_INFINITY;
      this.overran = false;
      return overran;
    };
  }
}

export const virtualClock = (start = 0): VirtualClock => new VirtualClock(start);

export interface RealClockOptions {
  /** Multiply every wait by this factor (tests run a real schedule scaled down; default 1). */
  scale?: number;
}

/** The longest delay a timer takes: Node and browsers fire a longer one at once (TimeoutOverflowWarning). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Wall-clock time and real waits. */
export function realClock(options: RealClockOptions = {}): Clock {
  const scale = options.scale ?? 1;
  const origin = performance.now();
  return {
    now: () => Math.round(performance.now() - origin),
    epochMs: () => Date.now(),
    sleep: (ms, signal) => realSleep(ms === Number.POSITIVE_INFINITY ? ms : Math.max(0, ms * scale), signal),
  };
}

/**
 * Wait `ms` real milliseconds, or until `signal` aborts; the abort listener goes with the
 * wait. A wait longer than a timer can hold is slept in steps: one timer of 2^31 ms or more
 * would fire at once.
 */
function realSleep(ms: number, signal: AbortSignalOf | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const until = performance.now() + ms;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      clearTimeout(timer);
      (signal as AbortSignalWithRemove | undefined)?.removeEventListener?.("abort", done);
      resolve();
    };
    const wait = (left: number) => {
      timer = left > MAX_TIMER_MS ? setTimeout(step, MAX_TIMER_MS) : setTimeout(done, left);
    };
    const step = () => wait(until - performance.now());
    if (ms !== Number.POSITIVE_INFINITY) wait(ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** A signal that can take its listener back (every real AbortSignal can). */
interface AbortSignalWithRemove {
  removeEventListener?(type: "abort", listener: () => void): void;
}
