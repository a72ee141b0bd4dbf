/**
 * `failbook fleet status --watch` (SPEC 23): the fleet's state again every second until the
 * caller stops it. On a terminal each frame replaces the last (clear and redraw); elsewhere
 * each is printed after the last, as `kubectl get -w` keeps printing into a pipe. The clock
 * and the screen are injected, so the loop is tested without a terminal or a real second.
 */

/** Where the frames go: a terminal redraws in place, a pipe or a file appends. */
export interface WatchScreen {
  draw(frame: string): void;
}

/** The loop's time: a clock in ms, and a sleep that ends early when `signal` aborts. */
export interface WatchClock {
  now(): number;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export interface WatchOptions {
  /** One frame: the fleet's state now, as text. A read that fails rejects; its message is drawn instead, and the next tick tries again. */
  read(): Promise<string>;
  screen: WatchScreen;
  clock: WatchClock;
  /** Ends the loop (Ctrl-C): after the frame being read, no other starts. */
  signal: AbortSignal;
  /** Between the starts of two frames (default 1000 ms). */
  intervalMs?: number;
  /** A frame for a read that failed: what went wrong, and that the watch goes on. */
  failed(error: unknown): string;
}

/**
 * Draw a frame every `intervalMs` on the clock's ticks (a slow read delays its own frame,
 * not the ticks after it), until `signal` aborts. Returns the frames drawn.
 */
export async function watch(o: WatchOptions): Promise<number> {
  const interval = o.intervalMs ?? 1000;
  const start = o.clock.now();
  let frames = 0;
  while (!o.signal.aborted) {
    let frame: string;
    try {
      frame = await o.read();
    } catch (e) {
      frame = o.failed(e);
    }
    if (o.signal.aborted) break;
    o.screen.draw(frame);
    frames++;
    if (o.signal.aborted) break;
    const elapsed = o.clock.now() - start;
    await o.clock.sleep(interval - (elapsed % interval), o.signal);
  }
  return frames;
}

/** Real time: `setTimeout`, cleared when the signal aborts. */
export const realWatchClock: WatchClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
    }),
};

/** ANSI: cursor home, clear the screen. */
const CLEAR = "\x1b[H\x1b[2J";

/** A terminal's screen: each frame replaces the last. `write` takes the escape sequence as is, and the frame made printable. */
export function terminalScreen(write: (raw: string, frame: string) => void): WatchScreen {
  return { draw: (frame) => write(CLEAR, frame) };
}

/** A pipe's or a file's: each frame after the last (a blank line between text frames). */
export function appendingScreen(write: (frame: string) => void, separator: string): WatchScreen {
  let first = true;
  return {
    draw(frame) {
      write(first ? frame : separator + frame);
      first = false;
    },
  };
}
