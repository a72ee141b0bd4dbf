/**
 * Attempt timeout (SPEC 18): an attempt that has not answered after `attempt_timeout_ms`
 * ends as the adapter error `attempt_timeout`, its side effect unknown (the upstream may
 * still act), and is classified like any other error. On a virtual clock the attempt's
 * latency is held at the timeout; on a real one the dispatcher stops waiting, aborts the
 * attempt's signal and discards a late answer. `budgets.wall_ms` stays the dispatch's deadline.
 */
import type { AdapterError, Response } from "../../model/fixture.js";
import type { Playbook } from "../../model/playbook.js";
import type { AbortSignalOf, Clock } from "../clock.js";
import { globMatches } from "../match.js";

export const ATTEMPT_TIMEOUT: AdapterError = Object.freeze({ kind: "attempt_timeout", side_effect_state: "unknown" });

/** What a timed-out attempt counts as. */
const TIMED_OUT: Response = Object.freeze({ status: "error", error: ATTEMPT_TIMEOUT });

/** Which timeout applies to a tool: its first `tools:` entry that sets one, else the playbook's. */
export class AttemptTimeouts {
  private readonly byTool = new Map<string, number | undefined>();

  private constructor(
    private readonly fallback: number | undefined,
    private readonly entries: readonly (readonly [string, number])[],
  ) {}

  /** The playbook's timeouts, or undefined when it sets none (most playbooks: no work per attempt). */
  static of(playbook: Playbook): AttemptTimeouts | undefined {
    const entries: [string, number][] = [];
    for (const glob in playbook.tools ?? {}) {
      const ms = playbook.tools![glob].attempt_timeout_ms;
      if (Object.hasOwn(playbook.tools!, glob) && ms !== undefined) entries.push([glob, ms]);
    }
    if (playbook.attempt_timeout_ms === undefined && entries.length === 0) return undefined;
    return new AttemptTimeouts(playbook.attempt_timeout_ms, entries);
  }

  forTool(tool: string): number | undefined {
    if (this.byTool.has(tool)) return this.byTool.get(tool);
    const entry = this.entries.find(([glob]) => globMatches(glob, tool));
    const ms = entry === undefined ? this.fallback : entry[1];
    if (this.byTool.size >= 4096) this.byTool.clear();
    this.byTool.set(tool, ms);
    return ms;
  }
}

/**
 * Send one attempt, waiting at most `timeoutMs`: its answer, or the `attempt_timeout`
 * error when it took longer. `send` receives the signal that aborts when the wait ends, or
 * when `cancel` aborts (a hedge cancelled, SPEC 18): then nobody waits for the answer. An
 * answer given at once is returned at once (a storm's hedged call takes it before it waits).
 */
export function sendWithin(clock: Clock, timeoutMs: number, send: (signal: AbortSignalOf) => Promise<Response> | Response, cancel?: AbortSignalOf): Promise<Response> | Response {
  const controller = new AbortController();
  const answered = new AbortController();
  cancel?.addEventListener(
    "abort",
    () => {
      controller.abort((cancel as { reason?: unknown }).reason);
      answered.abort();
    },
    { once: true },
  );
  if (clock.hold !== undefined) return sendHeld(clock, clock.hold, timeoutMs, send, controller);
  const timer = clock.sleep(timeoutMs, answered.signal).then(() => TIMED_OUT);
  let sent: Promise<Response> | Response;
  try {
    sent = send(controller.signal);
  } catch (e) {
    answered.abort();
    throw e;
  }
  if (typeof (sent as { then?: unknown } | null)?.then !== "function") {
    answered.abort();
    return sent;
  }
  return raceTimeout(Promise.resolve(sent), timer, controller, answered, timeoutMs);
}

/** A virtual clock's timeout: no advance goes past it while the attempt runs. */
async function sendHeld(clock: Clock, hold: (until: number) => () => boolean, timeoutMs: number, send: (signal: AbortSignalOf) => Promise<Response> | Response, controller: AbortController): Promise<Response> {
  const release = hold.call(clock, clock.now() + timeoutMs);
  let response: Response;
  try {
    response = await send(controller.signal);
  } finally {
    if (release()) controller.abort(timeoutReason(timeoutMs));
  }
  return controller.signal.aborted ? TIMED_OUT : response;
}

/** A real clock's timeout: the answer raced against a timer; a late answer is discarded. */
async function raceTimeout(answer: Promise<Response>, timer: Promise<Response>, controller: AbortController, answered: AbortController, timeoutMs: number): Promise<Response> {
  try {
    const first = await Promise.race([answer, timer]);
    if (first !== TIMED_OUT) return first;
    controller.abort(timeoutReason(timeoutMs));
    answer.catch(() => {}); // a late failure is discarded like a late answer
    return TIMED_OUT;
  } finally {
    answered.abort();
  }
}

const timeoutReason = (ms: number): Error => Object.assign(new Error(`the attempt did not answer within ${ms}ms`), { name: "TimeoutError" });
