/**
 * Rate limits on a dispatch's attempts (SPEC 22): before an attempt is sent, a token of each
 * limit over its tool, waited for on the dispatcher's clock within `max_wait_ms` and the
 * dispatch's deadline; a hedge never waits (with no token it is not sent); every answer's
 * quota headers and throttling heard. The run loop (engine/run.ts) calls these and turns a
 * refusal into an unsent attempt failed as `rate_limited`.
 */
import type { UnstampedEvent } from "../model/outcome.js";
import type { Clock } from "./clock.js";
import type { CircuitBreakers } from "./policies/breakers.js";
import type { RateLimits } from "./policies/rate-limits.js";
import type { Redactor } from "./redact.js";
import type { DispatchStop } from "./stop.js";

/** What pacing needs of a dispatch: its clock, its stop (signal and deadline), its breakers, its events. */
export interface PacedRun {
  readonly clock: Clock;
  /** An attempt an open breaker will refuse takes no token: it is never sent (SPEC 22). */
  readonly breakers: CircuitBreakers | undefined;
  readonly stop: DispatchStop | undefined;
  readonly redact: Redactor;
  emit(event: UnstampedEvent): void;
}

/**
 * A token of each limit over `tool` before an attempt. Undefined: go now (tokens taken, or
 * none: an open breaker refuses the attempt, which is never sent). A
 * promise: the attempt waits for its tokens first. A string: the limit that refused it
 * (empty with `when_empty: fail`, or a wait past `max_wait_ms` or the deadline).
 */
export function pace(limits: RateLimits, run: PacedRun, tool: string): Promise<string | undefined> | string | undefined {
  const { clock, stop } = run;
  if (run.breakers?.refuses(tool, clock.now()) === true) return undefined;
  const decision = limits.pace(tool, clock.now(), stop?.deadline);
  if (decision.kind === "refused") return refused(run, decision.limit);
  const adaptive = limits.adaptiveOf(tool);
  let behind = false;
  for (let i = 0; i < adaptive.length; i++) if (!(adaptive[i]!.limiter.active === false)) behind = true;
  if (decision.waitMs === 0 && !behind) return undefined;
  return (async () => {
    if (decision.waitMs > 0) {
      run.emit({ type: "rate_limit_waited", limit: run.redact(decision.limit!), ms: decision.waitMs });
      await clock.sleep(decision.waitMs, stop?.attemptSignal);
      stop?.throwIfStopped(false);
    }
    for (const { name, limiter, fail, maxWaitMs } of adaptive) {
      if (limiter.tryAcquire()) continue;
      // Never a wait past max_wait_ms or the deadline (SPEC 22): refused before it starts.
      const deadline = stop?.deadline;
      const bound = Math.min(maxWaitMs ?? Number.POSITIVE_INFINITY, deadline === undefined ? Number.POSITIVE_INFINITY : deadline - clock.now());
      if (fail || limiter.nextWait() > bound) return refused(run, name);
      // The AWS SDK's own loop: wait, refill, until a token is there (a wait under 1 ms sleeps 1 ms, as its setTimeout does).
      const waited = await limiter.acquire(async (ms) => {
        await clock.sleep(Math.max(1, ms), stop?.attemptSignal);
        stop?.throwIfStopped(false);
      });
      run.emit({ type: "rate_limit_waited", limit: run.redact(name), ms: Math.round(waited) });
    }
    return undefined;
  })();
}

/** A hedge's tokens: taken now (undefined), or the limit that had none: the hedge is not sent. */
export function paceHedge(limits: RateLimits, run: PacedRun, tool: string): string | undefined {
  if (run.breakers?.refuses(tool, run.clock.now()) === true) return undefined;
  const decision = limits.pace(tool, run.clock.now(), run.stop?.deadline, false);
  if (decision.kind === "refused") return refused(run, decision.limit);
  for (const { name, limiter } of limits.adaptiveOf(tool)) if (!limiter.tryAcquire()) return refused(run, name);
  return undefined;
}

/** The rate limits over a tool hear an answer: its quota headers, whether it was throttled. */
export function heard(limits: RateLimits, run: PacedRun, tool: string, headers: Record<string, string> | undefined, throttling: boolean): void {
  const clock = run.clock;
  limits.answered(tool, headers, throttling, clock.now(), clock.epochMs?.() ?? clock.now(), (limit, header, value) =>
    run.emit({ type: "rate_limit_header_ignored", limit: run.redact(limit), header: run.redact(header), value: run.redact(value) }),
  );
}

function refused(run: PacedRun, limit: string): string {
  run.emit({ type: "rate_limited", limit: run.redact(limit) });
  return limit;
}
