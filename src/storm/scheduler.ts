/**
 * The storm's discrete-event scheduler: one virtual clock, an event heap ordered by (time,
 * sequence), and a loop. Brooker's simulators are this and a callback per event; here the
 * clients are real dispatches (async code), so an event may wake one of them.
 *
 * A dispatch waits on the scheduler in two ways only: the clock's `sleep` (a backoff, and
 * whatever else the dispatcher times with its clock) and an attempt at the upstream. Each
 * is a promise this scheduler resolves when its time comes. After resolving one, the loop
 * lets the woken dispatch run, in microtasks, until it parks again (sleeps, sends an
 * attempt) or ends; only then does it take the next event. No macrotask per event (that
 * would cost ~7 µs each, a second per 150,000 events), nothing sleeps for real, and one
 * dispatch runs at a time, so every run of the same storm takes the same steps.
 *
 * A dispatch may wait on two promises at once (an attempt raced against its timeout): the
 * first to resolve wakes it. A promise it made before it last woke (the race's loser) is
 * resolved without waking anything: nobody awaits it any more. An attempt that carries the
 * dispatcher's AbortSignal says so itself: it wakes its dispatch unless the dispatcher gave
 * up on it (a timeout, a cancelled hedge), however long ago it was sent.
 */
import type { Clock } from "failbook-runtime/engine/clock.js";

/** A dispatch, as the scheduler knows it: `span` counts its wake-ups. */
export interface Coroutine {
  span: number;
}

/** A promise the scheduler will resolve, and whom it wakes. */
export interface Ticket<T> {
  readonly co: Coroutine;
  /** The coroutine's span when it parked on this promise. */
  readonly span: number;
  readonly resolve: (value: T) => void;
  /** The dispatcher's signal for an attempt or a timer: aborted when it stopped waiting for it. */
  readonly signal: AbortSignal | undefined;
}

/** What a cancelled event does: nothing, and the loop skips it without moving time. */
const DROPPED = (): void => {};

/** An event on the heap. */
export interface Entry {
  t: number;
  seq: number;
  fn: (a: unknown, b: unknown) => void;
  a: unknown;
  b: unknown;
}

/** Events at one fixed delay, in the order scheduled (so in time order), from `head` on. */
interface Lane {
  entries: Entry[];
  head: number;
}

/** Microtask turns a woken dispatch may take without parking before the loop stops waiting for it. */
const IDLE_TURNS = 64;

export class Scheduler {
  now = 0;
  private readonly heap: Entry[] = [];
  /**
   * Events at a fixed delay from when they were scheduled (the fleet sync's ticks, a store's
   * answers: thousands at once in a big storm) come due in the order they were scheduled: each
   * delay is a FIFO lane beside the heap, taken in (time, sequence) order with it, so they
   * cost the heap's other events nothing.
   */
  private readonly lanes = new Map<number, Lane>();
  private laneList: Lane[] = [];
  private seq = 0;
  /** The dispatch that ran last (woken or started): what it waits on next is its own. */
  private current: Coroutine | null = null;
  /** It has not parked yet: the loop waits for it before taking the next event. */
  private running = false;
  /** Bumped whenever the running dispatch does something the scheduler sees. */
  private activity = 0;
  /** Wake-ups that found their dispatch never parked again within IDLE_TURNS (should stay 0). */
  stalls = 0;

  /** The clock every dispatcher of the storm is given. */
  readonly clock: Clock = {
    now: () => this.now,
    sleep: (ms, signal) => {
      if (!(ms > 0) || signal?.aborted === true) {
        this.touch();
        return Promise.resolve();
      }
      // A wait with a signal wakes its dispatch when it ends, whatever else the dispatch awaits
      // meanwhile (a hedged call waits on a hedge's delay and its attempts' timeouts at once):
      // until the signal aborts, and then its event is dropped, it is still waited on.
      const { promise, ticket } = this.park<void>(signal as AbortSignal | undefined);
      // One of Infinity only parks (a hedged call awaiting its attempts): no event, its signal ends it.
      const entry = ms === Number.POSITIVE_INFINITY ? undefined : this.at(this.now + ms, this.wakeLater, ticket, undefined);
      // The wait ends when its signal aborts (an attempt answered before its timeout, a hedge's
      // delay no longer needed): its event is dropped, else it would wake the dispatch later, in
      // the middle of another wait.
      signal?.addEventListener("abort", () => this.cancel(entry, ticket), { once: true });
      return promise;
    },
  };

  /** A sleep's signal aborted: its event (none for a sleep of Infinity) is dropped, and the sleep ends now, in its dispatch's turn. */
  private cancel(entry: Entry | undefined, ticket: Ticket<void>): void {
    if (entry !== undefined) {
      if (entry.fn === DROPPED) return;
      entry.fn = DROPPED;
    }
    // Aborted by the dispatch itself while it runs: the sleep ends at once. Otherwise its own turn, now.
    // Woken so, it runs unless it woke since it parked on this wait (its signal aborted, the span tells).
    if (this.running && this.current === ticket.co) ticket.resolve();
    else this.at(this.now, this.wakeLater, { ...ticket, signal: undefined }, undefined);
  }

  /** An event that resolves a ticket (a sleep's end). */
  private readonly wakeLater = (ticket: Ticket<void>): void => this.wake(ticket, undefined);

  /** Schedule `fn(a, b)` at time `t` (never before now). */
  at<A, B>(t: number, fn: (a: A, b: B) => void, a: A, b: B): Entry {
    const heap = this.heap;
    const entry: Entry = { t: t < this.now ? this.now : t, seq: this.seq++, fn: fn as Entry["fn"], a, b };
    let i = heap.length;
    heap.push(entry);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent];
      if (p.t < entry.t || (p.t === entry.t && p.seq < entry.seq)) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = entry;
    return entry;
  }

  /** Schedule `fn(a, b)` at `delay` from now, in its delay's lane. */
  after<A, B>(delay: number, fn: (a: A, b: B) => void, a: A, b: B): Entry {
    const entry: Entry = { t: 0, seq: 0, fn: fn as Entry["fn"], a, b };
    this.again(entry, delay);
    return entry;
  }

  /** Schedule the event that is running now once more, `delay` from now, in its delay's lane: a timer that repeats keeps one entry. */
  again(entry: Entry, delay: number): void {
    let lane = this.lanes.get(delay);
    if (lane === undefined) {
      lane = { entries: [], head: 0 };
      this.lanes.set(delay, lane);
      this.laneList = [...this.lanes.values()];
    }
    entry.t = this.now + delay;
    entry.seq = this.seq++;
    lane.entries.push(entry);
  }

  /** The running dispatch waits: a promise and the ticket to resolve it with. */
  park<T>(signal?: AbortSignal): { promise: Promise<T>; ticket: Ticket<T> } {
    const co = this.current;
    if (co === null) throw new Error("storm scheduler: a dispatch waited outside its turn");
    this.running = false;
    this.activity++;
    let resolve!: (value: T) => void;
    const promise = new Promise<T>((r) => (resolve = r));
    return { promise, ticket: { co, span: co.span, resolve, signal } };
  }

  /** Resolve a ticket now; its dispatch runs next, unless it woke since it parked on it. */
  wake<T>(ticket: Ticket<T>, value: T): void {
    const co = ticket.co;
    if (ticket.signal === undefined ? co.span === ticket.span : !ticket.signal.aborted) {
      co.span++;
      this.current = co;
      this.running = true;
      this.activity++;
    }
    ticket.resolve(value);
  }

  /** A dispatch starts now: it runs until it first parks. */
  begin(co: Coroutine): void {
    this.current = co;
    this.running = true;
    this.activity++;
  }

  /** The running dispatch ended. */
  end(): void {
    this.current = null;
    this.running = false;
    this.activity++;
  }

  /**
   * The running dispatch got an answer at once (an attempt turned away, a sleep of 0): it
   * goes on running, even if it parked on something else a moment ago (a timeout raced
   * against this attempt).
   */
  touch(): void {
    this.running = this.current !== null;
    this.activity++;
  }

  /**
   * Take events in (time, sequence) order until there are none, `stop()` says so, or the
   * next is after `until`; after each, let the dispatch it woke run until it parks.
   */
  async run(until: number, stop: () => boolean, maxAtOnce = Infinity): Promise<void> {
    let atOnce = 0;
    while (!stop()) {
      const entry = this.next();
      if (entry === undefined) break;
      if (entry.fn === DROPPED) continue; // a cancelled sleep: time does not move for it
      if (entry.t > until) break;
      if (entry.t !== this.now) atOnce = 0;
      else if (++atOnce > maxAtOnce) throw new TimeStopped(this.now);
      this.now = entry.t;
      entry.fn(entry.a, entry.b);
      let idle = 0;
      while (this.running) {
        const seen = this.activity;
        await undefined;
        if (this.activity !== seen) idle = 0;
        else if (++idle > IDLE_TURNS) {
          this.running = false;
          this.stalls++;
        }
      }
    }
  }

  /** The earliest event of the heap and the lanes, taken off; undefined when there is none. */
  private next(): Entry | undefined {
    let best: Lane | undefined;
    let entry = this.heap.length > 0 ? this.heap[0] : undefined;
    for (const lane of this.laneList) {
      const head = lane.entries[lane.head];
      if (head !== undefined && (entry === undefined || head.t < entry.t || (head.t === entry.t && head.seq < entry.seq))) {
        entry = head;
        best = lane;
      }
    }
    if (best === undefined) return entry === undefined ? undefined : this.pop();
    best.entries[best.head++] = undefined as unknown as Entry;
    if (best.head > 1024 && best.head * 2 > best.entries.length) {
      best.entries = best.entries.slice(best.head);
      best.head = 0;
    }
    return entry;
  }

  private pop(): Entry {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop()!;
    const n = heap.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        let c = l;
        if (r < n && (heap[r].t < heap[l].t || (heap[r].t === heap[l].t && heap[r].seq < heap[l].seq))) c = r;
        const child = heap[c];
        if (last.t < child.t || (last.t === child.t && last.seq < child.seq)) break;
        heap[i] = child;
        i = c;
      }
      heap[i] = last;
    }
    return top;
  }
}

/** Time stopped: more events at one instant than the storm could need (calls that end at once, and start again at once). */
export class TimeStopped extends Error {
  constructor(readonly at: number) {
    super(`time stopped at ${at} ms`);
  }
}
