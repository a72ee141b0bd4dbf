/**
 * Hedging (SPEC 18, gRPC's hedgingPolicy, A6): for an idempotent call to a hedged tool, the
 * first attempt goes at once and each `delay_ms` without an answer sends the next, up to
 * `max_attempts` in all, the first included (so never more in flight; gRPC counts them the
 * same way). The first success wins and the others are cancelled: their AbortSignal fires. A
 * failure whose class or code is in `non_fatal` sends the next hedge at once; any other
 * failure cancels the rest and ends the race. Retry throttling may refuse a hedge after the
 * first: then no more are sent, and the race waits for those in flight.
 *
 * Pure: the clock and the attempt come in. On a virtual clock (`clock.measure`) each hedge's
 * answer and latency are known when it is sent, and the answers are taken in time order (send
 * order on a tie); on a real clock, and a storm's scheduler, hedges are promises raced
 * against the next hedge's timer.
 */
import type { HedgingPolicy, Playbook } from "../../model/playbook.js";
import type { AbortSignalOf, Clock } from "../clock.js";
import { globMatches } from "../match.js";
import { Stopped } from "../stop.js";

/** Which tools the playbook hedges, and how. */
export class Hedging {
  readonly maxAttempts: number;
  readonly delayMs: number;
  private readonly globs: readonly string[];
  private readonly nonFatal: ReadonlySet<string>;
  private readonly byTool = new Map<string, boolean>();

  constructor(policy: HedgingPolicy) {
    this.maxAttempts = policy.max_attempts;
    this.delayMs = policy.delay_ms ?? 0;
    this.globs = typeof policy.tools === "string" ? [policy.tools] : policy.tools;
    this.nonFatal = new Set(policy.non_fatal ?? []);
  }

  static of(playbook: Playbook): Hedging | undefined {
    return playbook.hedging === undefined ? undefined : new Hedging(playbook.hedging);
  }

  /** Is a call to `tool` hedged (when it is idempotent)? */
  hedges(tool: string): boolean {
    let hedged = this.byTool.get(tool);
    if (hedged === undefined) {
      hedged = this.globs.some((glob) => globMatches(glob, tool));
      if (this.byTool.size >= 4096) this.byTool.clear();
      this.byTool.set(tool, hedged);
    }
    return hedged;
  }

  /** Does a failure of this verdict send the next hedge at once (rather than end the race)? */
  isNonFatal(verdictClass: string | undefined, code: string): boolean {
    return this.nonFatal.has(code) || (verdictClass !== undefined && this.nonFatal.has(verdictClass));
  }
}

/** What a hedge's answer means to the race. */
export type HedgeAnswer = "won" | "non_fatal" | "fatal";

/** What the race asks of the dispatcher: send, judge, ask the throttle, hear of a cancel. */
export interface HedgeHooks<A> {
  /** Send hedge `i` (1 for the first attempt); `signal` aborts when the race cancels it. */
  send(i: number, signal: AbortSignalOf): Promise<A> | A;
  /** Hedge `i`, sent at `sentAt`, has answered now: what the answer means. */
  judge(answer: A, i: number, sentAt: number): HedgeAnswer;
  /** May a hedge after the first go now (retry throttling)? */
  mayHedge(): boolean;
  /** Hedge `i` was cancelled before it answered. */
  cancelled(i: number): void;
  /** Rejects when the whole dispatch must end (SPEC 21): a real clock's race stops waiting, and its hedges are aborted. */
  stopped?: Promise<never> | undefined;
}

export interface RaceEnd<A> {
  /** The answer that ended the race: the winner, a fatal failure, or the last non-fatal one. */
  readonly answer: A;
  readonly i: number;
  readonly how: HedgeAnswer;
  /** Hedges sent, the first included. */
  readonly sent: number;
  /** The race ran out of hedges because retry throttling refused one. */
  readonly throttled: boolean;
}

interface Flight<A> {
  readonly i: number;
  readonly sentAt: number;
  readonly controller: AbortController;
  /** Virtual clock: when it answers. */
  answerAt: number;
  value: A | undefined;
  /** Real clock: it answered at once (a breaker stopped it, the upstream turned it away). */
  ready: boolean;
  /** Real clock: settles with this flight when it answers. */
  done: Promise<Flight<A>> | undefined;
}

const cancelReason = (): Error => Object.assign(new Error("hedge cancelled: the race was decided by another attempt"), { name: "AbortError" });

/** Run one hedged call's race to its end. An exception from `send` cancels the rest and propagates. */
export async function race<A>(clock: Clock, hedging: Hedging, hooks: HedgeHooks<A>): Promise<RaceEnd<A>> {
  const flying: Flight<A>[] = [];
  let sent = 0;
  let dueAt: number | undefined = clock.now();
  let refused = false;
  let last: Flight<A> | undefined;
  try {
    for (;;) {
      // Every hedge that is due goes now (with delay_ms 0, all of them).
      while (dueAt !== undefined && dueAt <= clock.now()) {
        if (sent > 0 && !hooks.mayHedge()) {
          refused = true;
          dueAt = undefined;
          break;
        }
        const flight = launch(clock, hooks, ++sent);
        flying.push(flight instanceof Promise ? await flight : flight);
        dueAt = sent < hedging.maxAttempts ? clock.now() + hedging.delayMs : undefined;
      }
      if (flying.length === 0) return { answer: last!.value as A, i: last!.i, how: "non_fatal", sent, throttled: refused };
      // An answer given at once is taken before any wait: a storm's scheduler must not see this call park first.
      const next = flying.find((f) => f.ready) ?? (await nextAnswer(clock, flying, dueAt, hooks.stopped));
      if (next === undefined) continue;
      flying.splice(flying.indexOf(next), 1);
      const how = hooks.judge(next.value as A, next.i, next.sentAt);
      if (how !== "non_fatal") {
        for (const f of flying.splice(0)) {
          f.controller.abort(cancelReason());
          hooks.cancelled(f.i);
        }
        return { answer: next.value as A, i: next.i, how, sent, throttled: false };
      }
      last = next;
      if (sent < hedging.maxAttempts && !refused) dueAt = clock.now();
    }
  } finally {
    // Only after a throw are any left: nobody awaits them.
    for (const f of flying) f.controller.abort(cancelReason());
  }
}

/** Send hedge `i`: on a virtual clock, measured aside; else a promise that settles with its flight. */
function launch<A>(clock: Clock, hooks: HedgeHooks<A>, i: number): Flight<A> | Promise<Flight<A>> {
  const controller = new AbortController();
  const sentAt = clock.now();
  if (clock.measure !== undefined) {
    return clock.measure(() => hooks.send(i, controller.signal)).then(({ value, ms }): Flight<A> => ({ i, sentAt, controller, answerAt: sentAt + ms, value, ready: false, done: undefined }));
  }
  const flight: Flight<A> = { i, sentAt, controller, answerAt: Number.NaN, value: undefined, ready: false, done: undefined };
  const answer = hooks.send(i, controller.signal);
  if (typeof (answer as { then?: unknown } | null)?.then !== "function") {
    flight.value = answer as A;
    flight.ready = true;
  }
  flight.done = Promise.resolve(answer).then((value) => {
    flight.value = value;
    return flight;
  });
  // A cancelled hedge's late failure is nobody's: the race rethrows only one it awaits.
  flight.done.catch(() => {});
  return flight;
}

/** The next hedge to answer, or undefined when the next hedge is due first. */
async function nextAnswer<A>(clock: Clock, flying: readonly Flight<A>[], dueAt: number | undefined, stopped: Promise<never> | undefined): Promise<Flight<A> | undefined> {
  if (clock.measure !== undefined) {
    let first = flying[0];
    for (const f of flying) if (f.answerAt < first.answerAt) first = f;
    // An answer at the very moment the next hedge is due comes first: that hedge is not needed.
    if (dueAt !== undefined && dueAt < first.answerAt) {
      await clock.sleep(dueAt - clock.now());
      return undefined;
    }
    await clock.sleep(first.answerAt - clock.now());
    return first;
  }
  const timer = new AbortController();
  try {
    const waits: Promise<Flight<A> | undefined>[] = flying.map((f) => f.done!);
    waits.push(clock.sleep(dueAt === undefined ? Number.POSITIVE_INFINITY : dueAt - clock.now(), timer.signal).then(() => undefined));
    // Stopped while the hedges were out: every one of them is in flight, its side effect unknown (SPEC 21).
    if (stopped !== undefined) waits.push(stopped.catch((e: unknown) => Promise.reject(e instanceof Stopped ? new Stopped(e.reason, true) : e)));
    return await Promise.race(waits);
  } finally {
    timer.abort();
  }
}
