/**
 * Time, injected. The dispatcher only reads `now()` and waits with `sleep()`: a virtual
 * clock makes both instant and exact (simulation, tests), a real clock makes them real
 * (production). One dispatcher, two clocks.
 */

export interface Clock {
  /** Milliseconds on this clock; only differences matter. */
  now(): number;
  /** Wait `ms` milliseconds. */
  sleep(ms: number): Promise<void>;
  /**
   * Milliseconds since the Unix epoch, to read an HTTP-date Retry-After against when the
   * error carries no `date` header. Absent on a virtual clock: its `now()` is the time.
   */
  epochMs?(): number;
}

/** A clock that never waits: `sleep` moves time forward and returns at once. */
export class VirtualClock implements Clock {
  private time: number;

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

  /** Move time forward without waiting (an attempt's recorded latency). */
  advance(ms: number): void {
    if (ms > 0) this.time += ms;
  }
}

export const virtualClock = (start = 0): VirtualClock => new VirtualClock(start);

export interface RealClockOptions {
  /** Multiply every wait by this factor (tests run a real schedule scaled down; default 1). */
  scale?: number;
}

/** Wall-clock time and real waits. */
export function realClock(options: RealClockOptions = {}): Clock {
  const scale = options.scale ?? 1;
  const origin = performance.now();
  return {
    now: () => Math.round(performance.now() - origin),
    epochMs: () => Date.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms * scale))),
  };
}
