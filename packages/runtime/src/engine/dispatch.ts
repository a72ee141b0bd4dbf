/**
 * The dispatcher (SPEC 4): one call, attempt by attempt, every failure classified afresh
 * and handed to its verdict's action, under the playbook's guards and budgets.
 *
 * Time, randomness and the attempt itself are injected: simulation runs this exact code
 * with a virtual clock and an attempt function that reads recorded responses; production
 * runs it with a real clock and an attempt function that calls the tool.
 */
import type { Call, PolicyState, Response } from "../model/fixture.js";
import type { AttemptError, DeadLetterEntry, DispatchEvent, Outcome, RecoveryPacket } from "../model/outcome.js";
import type { Playbook } from "../model/playbook.js";
import type { DispatchRecord, RecordSink } from "../model/record.js";
import type { Registry } from "../model/registry.js";
import type { ActionEffects, End } from "./call.js";
import { realClock, type AbortSignalOf, type Clock } from "./clock.js";
import { createPolicies, type SharedPolicies } from "./policies/index.js";
import { RetryQuotaBucket } from "./quota.js";
import { cryptoRandom, type Random } from "./random.js";
import { createRedactor, redactDeep, rememberRedactions, type Redactor } from "./redact.js";
import type { BudgetLedger } from "./retry.js";
import { startRecording } from "./record.js";
import { idempotencyKey } from "./idempotency.js";
import type { Admission } from "./policies/breakers.js";
import { checkedTraceId, DispatchRun, ledgerFrom, PLAIN_CONTEXT, succeededAtOnce, toolFactsOf, type Failed, type RunShared, type ToolFacts } from "./run.js";
import { DispatchStop, Stopped } from "./stop.js";
import { startFleet, type FleetEvent, type FleetOptions, type FleetStatus } from "./fleet/index.js";
import { snapshotOf, type DispatcherSnapshot } from "../telemetry/snapshot.js";
import { dispatchMetrics } from "../telemetry/metrics.js";
import { attemptTracing } from "../telemetry/spans.js";

export type { BudgetLedger } from "./retry.js";
export { EMPTY_RESPONSE, actionFor, isIdempotent, type ShownCall } from "./call.js";

/** What the dispatcher tells the attempt function besides the call. */
export interface AttemptContext {
  /** The attempt goes to the fallback tool (simulation reads `fallback_responses`). */
  fallback: boolean;
  /** The `retry_with_hint` hint, on the retry it scheduled. */
  hint?: string;
  /** Aborts when the attempt's timeout (`attempt_timeout_ms`, SPEC 18) ends the wait: stop the work, its answer is discarded. */
  signal?: AbortSignalOf;
  /** Set on the attempt after `refresh_credentials` (SPEC 18). */
  refreshed?: "credentials";
  /** A hedge after the call's first attempt (SPEC 18); its `signal` aborts when another attempt wins. */
  hedge?: true;
}

/**
 * Makes one attempt of a call and reports how it went. It should not throw: report a
 * failure as `{ status: "error", error }`. A throw ends the dispatch with that exception.
 */
export type AttemptFn = (call: Call, n: number, idempotencyKey: string, context: AttemptContext) => Promise<Response> | Response;

/** Side effects of actions, for production; simulation leaves them out. */
export interface Effects extends ActionEffects {
  escalate?(packet: RecoveryPacket): Promise<void> | void;
  deadLetter?(entry: DeadLetterEntry): Promise<void> | void;
}

/** The format of the `PROJECT` that `failbook gen ts` writes; createDispatcher refuses another. */
export const PROJECT_FORMAT = "failbook.project/1";

/**
 * A project as `failbook gen ts` exports it (`PROJECT`): the registry and playbook that
 * failbook validated, and the config's `redact:` patterns that lint checked, as plain data.
 */
export interface ProjectData {
  readonly format: typeof PROJECT_FORMAT;
  readonly registry: object;
  readonly playbook: object;
  readonly redact: readonly string[];
}

/** What the dispatcher runs on: a generated `PROJECT`, or a registry and playbook in hand (a loaded project, a test). */
export type ProjectSource = { project: ProjectData; registry?: undefined; playbook?: undefined } | { project?: undefined; registry: Registry; playbook: Playbook };

export type DispatcherOptions = ProjectSource & {
  /** Default: the real clock. Simulation passes a VirtualClock. */
  clock?: Clock | undefined;
  /** Default: a seeded source drawn from `crypto`. Simulation passes seededRandom(seed). */
  random?: Random | undefined;
  /** Applied to the outcome, the events, packets and dead letters (default: built-in patterns, and a `PROJECT`'s own). */
  redact?: Redactor | undefined;
  effects?: Effects | undefined;
  /** Every event as it happens (redacted), e.g. for a trace store. */
  onEvent?: ((event: DispatchEvent) => void) | undefined;
  /** Tokens the playbook's retry quota starts with (default: a full bucket). */
  quotaTokens?: number | undefined;
  /** Where the breakers and retry throttling start (a fixture's `state:`, SPEC 18; default closed and full). */
  state?: PolicyState | undefined;
  /**
   * A record sink (`DispatchOptions.record`) that threw or rejected: the dispatch resolves
   * as it would have without the sink. Default: one process warning per dispatcher.
   */
  onRecordError?: ((error: unknown) => void) | undefined;
  /**
   * The fleet's store (SPEC 23): the playbook's `scope: fleet` policies share their counts
   * with the service's other processes through it, synced every `fleet.sync_ms` in the
   * background. Call `dispatcher.close()` at shutdown.
   */
  fleet?: FleetOptions | undefined;
};

/** The options with every default filled in: what a dispatch runs on. */
export interface DispatchSettings {
  registry: Registry;
  playbook: Playbook;
  clock: Clock;
  random: Random;
  effects?: Effects | undefined;
  onEvent?: ((event: DispatchEvent) => void) | undefined;
  quotaTokens?: number | undefined;
  state?: PolicyState | undefined;
}

export interface DispatchOptions {
  /** Part of the idempotency key (a fixture's `run_id`, else its name). */
  runId?: string;
  /** Budgets shared with other dispatches of the same run (saga steps, waves). */
  ledger?: BudgetLedger;
  /** Put the call's id on every event (multi-call runs). */
  label?: boolean;
  /** Hand the finished dispatch, as one redacted record (SPEC 14), to this sink: production's corpus for `failbook replay`. */
  record?: RecordSink;
  /**
   * The caller's cancellation (SPEC 21): when it aborts, the dispatch ends at once,
   * `exhausted` with reason `cancelled`: a backoff is cut short, the attempt in flight has its
   * own signal aborted and its late answer discarded, nothing more is sent.
   */
  signal?: AbortSignalOf;
  /** A time on the dispatcher's clock (`dispatcher.clock.now() + ms`) by which the dispatch ends: reason `deadline`; a retry that would end past it is not scheduled. */
  deadlineMs?: number;
  /**
   * The caller's trace id (SPEC 21): a W3C trace-id, such as the active OpenTelemetry span's.
   * It is the outcome's `trace_id` as given; without it the trace id is `fb_` and 12 hex
   * digits of the idempotency key.
   */
  traceId?: string;
}

export interface DispatchResult {
  outcome: Outcome;
  events: DispatchEvent[];
  /** Every failed attempt's error, for dead-letter entries. */
  errors: AttemptError[];
  idempotencyKey: string;
}

export interface Dispatcher {
  readonly registry: Registry;
  readonly playbook: Playbook;
  readonly clock: Clock;
  readonly redact: Redactor;
  /** The retry quota every dispatch of this dispatcher shares, when the playbook sets `retry_quota`. */
  readonly quota: RetryQuotaBucket | undefined;
  /** The breakers, retry budget and retry throttling every dispatch of this dispatcher shares (SPEC 18). */
  readonly policies: SharedPolicies;
  dispatch(call: Call, attempt: AttemptFn, options?: DispatchOptions): Promise<DispatchResult>;
  /** A fresh budget ledger starting now: share it to make several dispatches one run. */
  newLedger(): BudgetLedger;
  /** Redact a dead-letter entry and hand it to the `deadLetter` effect. */
  deadLetter(entry: DeadLetterEntry): Promise<DeadLetterEntry>;
  /** The fleet's sync (SPEC 23), when the dispatcher has a `fleet` and the playbook a `scope: fleet` policy. */
  readonly fleet: FleetStatus | undefined;
  /** Stops the fleet's sync after a last one (this process leaves the fleet's totals). Never rejects. */
  close(): Promise<void>;
  /** Every shared policy's state now, as plain JSON, for a health endpoint (SPEC 24). Changes nothing. */
  snapshot(): DispatcherSnapshot;
}

const NO_OPTIONS: DispatchOptions = Object.freeze({});

export function createDispatcher(dispatcherOptions: DispatcherOptions): Dispatcher {
  const { registry, playbook, ownPatterns } = projectOf(dispatcherOptions);
  const options: DispatchSettings = { ...dispatcherOptions, registry, playbook, clock: dispatcherOptions.clock ?? realClock(), random: dispatcherOptions.random ?? cryptoRandom() };
  const redact = dispatcherOptions.redact ?? createRedactor(ownPatterns);
  const shown = rememberRedactions(redact);
  const quota = options.playbook.retry_quota === undefined ? undefined : new RetryQuotaBucket(options.playbook.retry_quota, options.quotaTokens);
  const policies = createPolicies(options.playbook, options.clock.now(), options.state, () => options.clock.now());
  const shared: RunShared = { o: options, redact: shown, tools: new Map(), last: undefined, quota, policies, emptyIsFailure: options.playbook.empty_response_is_failure ?? false };
  const { breakers, budget } = policies;
  const fleet = dispatcherOptions.fleet === undefined ? undefined : startFleet(options.registry, options.playbook, policies, quota, dispatcherOptions.fleet, () => options.clock.now(), fleetEvent);
  const recordFailed = dispatcherOptions.onRecordError ?? warnOnce("failbook: a dispatch's record could not be written (pass onRecordError to createDispatcher to handle it)");
  const dispatcher: Dispatcher = {
    registry: options.registry,
    playbook: options.playbook,
    clock: options.clock,
    redact,
    quota,
    policies,
    newLedger: () => ledgerFrom(options.clock.now()),
    fleet,
    close: () => fleet?.close() ?? Promise.resolve(),
    dispatch(call, attempt, dispatchOptions = NO_OPTIONS) {
      try {
        const tool = toolFactsOf(shared, call.tool);
        const admission = breakers?.closedAdmission(call.tool);
        if (
          tool.direct &&
          (breakers === undefined || admission !== undefined) &&
          dispatchOptions.record === undefined &&
          dispatchOptions.label !== true &&
          dispatchOptions.signal === undefined &&
          dispatchOptions.deadlineMs === undefined &&
          // A rate limit's token, when one is there now (taken last: nothing is taken for a call that goes to the run).
          (!tool.paced || (!tool.listened && policies.rateLimits!.tryTake(call.tool, options.clock.now())))
        ) {
          return dispatchAtOnce(call, attempt, dispatchOptions, tool, admission);
        }
        return dispatchInRun(call, attempt, dispatchOptions);
      } catch (e) {
        return Promise.reject(e);
      }
    },
    async deadLetter(entry) {
      const clean = redactDeep(entry, redact);
      await options.effects?.deadLetter?.(clean);
      return clean;
    },
    snapshot: () => snapshotOf(policies, quota, fleet, options.clock.now(), shown),
  };
  // SPEC 24: with a MeterProvider registered, each finished dispatch is counted from its events (`finished`); without one, nothing is.
  const metrics = dispatchMetrics(dispatcher.snapshot, warnOnce("failbook: a metric could not be recorded (the dispatch went on)"), fleet);
  /** A finished dispatch's result, counted first when there are metrics. */
  const measured = (result: DispatchResult): DispatchResult => (metrics === undefined ? result : metrics.observe(result));
  // With a TracerProvider registered, each attempt is a span; without one, dispatch stays as it is.
  const tracing = attemptTracing(shown, warnOnce("failbook: an attempt span could not be recorded (the dispatch went on)"));
  if (tracing !== undefined) {
    const dispatch = dispatcher.dispatch;
    dispatcher.dispatch = (call, attempt, dispatchOptions) => tracing.traced(attempt, (traced) => dispatch(call, traced, dispatchOptions));
  }

  /**
   * The common call (no hedge, no attempt timeout, every breaker guarding it closed, neither
   * recorded nor labelled): its first attempt is sent before any run exists, and a success is
   * the whole dispatch (`succeededAtOnce`). Anything else makes the run, which goes on from
   * that attempt as if it had sent it (`resumeAtOnce`).
   *
   * Not an async function: its answer is taken with `then` where `await` would take it (the
   * same job, so concurrent dispatches on one clock keep their order), without an async
   * function's frame, which cost the success path more than the rest of its bookkeeping.
   */
  function dispatchAtOnce(call: Call, attempt: AttemptFn, dispatchOptions: DispatchOptions, tool: ToolFacts, admission: Admission | undefined): Promise<DispatchResult> {
    const runId = dispatchOptions.runId ?? "";
    const trace = dispatchOptions.traceId === undefined ? undefined : checkedTraceId(dispatchOptions.traceId);
    const key = idempotencyKey(runId, call);
    const before = options.clock.now();
    budget?.callStarted();
    let sent: Promise<Response> | Response;
    let answer: Promise<unknown>;
    try {
      sent = attempt(call, 1, key, PLAIN_CONTEXT);
      answer = awaited(sent);
    } catch (e) {
      budget?.callEnded(false);
      throw e;
    }
    return thenAsAwait(
      answer,
      (settled: unknown): DispatchResult | PromiseLike<DispatchResult> => {
        const response = (answer === ANSWERED ? sent : settled) as Response;
        let done: DispatchResult | undefined;
        try {
          done = succeededAtOnce(shared, call, tool, key, admission, before, dispatchOptions.ledger, response, trace);
        } catch (e) {
          // A malformed answer or a throwing onEvent: the call is no longer in progress.
          budget?.callEnded(false);
          throw e;
        }
        if (done === undefined) return resumeAtOnce(call, attempt, dispatchOptions.ledger, tool, admission, runId, trace, key, before, response);
        budget?.callEnded(false);
        return measured(done);
      },
      attemptRejected,
    );
  }

  /** The first attempt's promise rejected: the call is no longer in progress. */
  function attemptRejected(e: unknown): never {
    budget?.callEnded(false);
    throw e;
  }

  /**
   * The first attempt did not succeed: the run takes it over and goes on. What an async
   * function would do after its `await`, job for job: the run's end is heard where `await`
   * would hear it, and the dispatch's promise settles in that very job (`Settling`).
   */
  function resumeAtOnce(call: Call, attempt: AttemptFn, ledger: BudgetLedger | undefined, tool: ToolFacts, admission: Admission | undefined, runId: string, trace: string | undefined, key: string, before: number, response: Response): DispatchResult | PromiseLike<DispatchResult> {
    const run = new DispatchRun(shared, ledger, runId, undefined, before);
    run.traceId = trace;
    let resumed: Promise<End> | End;
    try {
      // A question ends the call at once (as when the run sent the attempt); a failure goes on in the run loop.
      resumed = run.resume(call, attempt, tool, key, admission, before, response);
    } catch (e) {
      ended(run);
      throw e;
    }
    const settling = new Settling<DispatchResult>();
    if (!(resumed instanceof Promise)) {
      ended(run);
      return finishedAtOnce(run, resumed, settling) ?? settling.promised();
    }
    thenAsAwait(
      resumed,
      (end: End) =>
        settling.settleWith(() => {
          ended(run);
          return finishedAtOnce(run, end, settling);
        }),
      (e: unknown) =>
        settling.settleWith(() => {
          ended(run);
          throw e;
        }),
    );
    return settling.promised();
  }

  /** A run's dispatch ended (dispatchInRun's `finally`): an unanswered attempt's breaker probe given back, the call no longer in progress. */
  function ended(run: DispatchRun): void {
    run.abandon();
    budget?.callEnded(run.retrying);
  }

  /**
   * The run's end as the dispatch's result; with effects, undefined: `settling` gets the
   * result once they are applied (their promise heard where `await` would hear it).
   */
  function finishedAtOnce(run: DispatchRun, end: End, settling: Settling<DispatchResult>): DispatchResult | undefined {
    const result = run.finish(end);
    if (options.effects === undefined) return measured(result);
    thenAsAwait(
      run.applyEffects(result.outcome),
      () => settling.settleWith(() => measured(result)),
      (e: unknown) => settling.settleWith(() => {
        throw e;
      }),
    );
    return undefined;
  }

  /** Any other call: the run sends every attempt, the first too. */
  async function dispatchInRun(call: Call, attempt: AttemptFn, dispatchOptions: DispatchOptions): Promise<DispatchResult> {
    // A dispatch of its own (no shared ledger) makes its ledger only if a failure needs one.
    const run = new DispatchRun(shared, dispatchOptions.ledger, dispatchOptions.runId ?? "", dispatchOptions.label ? call.id : undefined);
    if (dispatchOptions.traceId !== undefined) run.traceId = checkedTraceId(dispatchOptions.traceId);
    const recording = dispatchOptions.record === undefined ? undefined : startRecording(attempt, options.clock);
    const fn = recording?.attempt ?? attempt;
    if (recording !== undefined) run.onBlocked = recording.blocked;
    if (dispatchOptions.signal !== undefined || dispatchOptions.deadlineMs !== undefined) run.stop = new DispatchStop(options.clock, dispatchOptions.signal, dispatchOptions.deadlineMs);
    budget?.callStarted();
    let end: End;
    try {
      // The first attempt is awaited here: a call that succeeds at once costs that one await.
      // A hedged call (start sends nothing) races its attempts in the run loop from the first.
      const first = run.start(call, fn);
      if (first === undefined) end = await run.call(call, fn, 0);
      else {
        let failed: End | Failed;
        if (first.blocked !== undefined) failed = first.blocked;
        else {
          const response = await first.response!;
          run.stop?.throwIfStopped(true);
          failed = run.answer(first, response);
        }
        end = failed.kind === "failure" ? await run.call(call, fn, 0, { attempt: first, failed }) : failed;
      }
    } catch (e) {
      if (!(e instanceof Stopped)) throw e;
      end = run.stopped(e, call);
    } finally {
      run.stop?.dispose();
      ended(run);
    }
    const result = run.finish(end);
    if (options.effects !== undefined) await run.applyEffects(result.outcome);
    if (recording !== undefined) await writeRecord(dispatchOptions.record!, () => recording.finish(call, dispatchOptions.runId, result.outcome, shown));
    return measured(result);
  }

  /** A record sink never changes a dispatch's fate (SPEC 21): what goes wrong writing it goes to `onRecordError`. */
  async function writeRecord(sink: RecordSink, record: () => DispatchRecord): Promise<void> {
    try {
      await sink(record());
    } catch (e) {
      recordFailed(e);
    }
  }

  /** The fleet's store went or came back: an event for `onEvent`, which must not break the sync. */
  function fleetEvent(event: FleetEvent): void {
    try {
      options.onEvent?.({ t: options.clock.now(), ...event });
    } catch {
      // A throwing onEvent is the caller's; the sync goes on.
    }
  }

  return dispatcher;
}

const promiseThen = Promise.prototype.then;

/** `promise.then(...)` with `Promise.prototype.then` as this module found it: dispatch() takes an answer as `await` does, whatever is done to the prototype later. */
function thenAsAwait<T, R>(promise: Promise<T>, onFulfilled: (value: T) => R | PromiseLike<R>, onRejected: (reason: unknown) => R | PromiseLike<R>): Promise<R> {
  return promiseThen.call(promise, onFulfilled, onRejected) as Promise<R>;
}

/** A promise settled once and for all: what dispatch() hears an answer that is no thenable through. */
const ANSWERED: Promise<undefined> = Promise.resolve(undefined);

/**
 * What `await value` waits on, job for job: a thenable's promise, or, for any other value
 * (a simulation's answer, a cached one), a promise already settled, which hears of it in the
 * same job as `await` would without a promise made for it; its `then` read once, as `await`
 * reads it (a `then` getter that throws rejects, as there).
 */
function awaited(value: unknown): Promise<unknown> {
  if ((typeof value !== "object" || value === null) && typeof value !== "function") return ANSWERED;
  let then: unknown;
  try {
    then = (value as { then?: unknown }).then;
  } catch (e) {
    return Promise.reject(e);
  }
  return typeof then === "function" ? Promise.resolve(value) : ANSWERED;
}

/**
 * The end of a dispatch whose first attempt failed, for the promise dispatch() returned to
 * adopt. That promise calls `then` one job after it is handed this (as it does with any
 * thenable), and then settles in the very job `settle` runs in, where an async function that
 * awaited the run would have returned: adopting a promise instead would settle it a job later,
 * and reorder concurrent dispatches.
 */
class Settling<T> {
  private resolve: ((value: T) => void) | undefined;
  private reject: ((reason: unknown) => void) | undefined;
  private early: { ok: boolean; value: unknown } | undefined;

  then(resolve: (value: T) => void, reject: (reason: unknown) => void): void {
    if (this.early === undefined) {
      this.resolve = resolve;
      this.reject = reject;
    } else if (this.early.ok) resolve(this.early.value as T);
    else reject(this.early.value);
  }

  /** Settle with what `fn` returns (undefined: it arranged a later settle), or what it throws. */
  settleWith(fn: () => T | undefined): void {
    let value: T | undefined;
    try {
      value = fn();
    } catch (e) {
      this.settle(false, e);
      return;
    }
    if (value !== undefined) this.settle(true, value);
  }

  private settle(ok: boolean, value: unknown): void {
    if (this.resolve === undefined) this.early = { ok, value };
    else if (ok) this.resolve(value as T);
    else this.reject!(value);
  }

  promised(): PromiseLike<T> {
    return this as unknown as PromiseLike<T>;
  }
}

/** A handler that warns once (Node's process warnings, where there are any), then stays silent. */
function warnOnce(message: string): (error: unknown) => void {
  let warned = false;
  return () => {
    if (warned) return;
    warned = true;
    (globalThis as { process?: { emitWarning?(message: string): void } }).process?.emitWarning?.(message);
  };
}

function projectOf(options: ProjectSource): { registry: Registry; playbook: Playbook; ownPatterns: readonly string[] } {
  if (options.project === undefined) return { registry: options.registry, playbook: options.playbook, ownPatterns: [] };
  const { format, registry, playbook, redact } = options.project as Partial<ProjectData>;
  if (format !== PROJECT_FORMAT) {
    throw new TypeError(`createDispatcher: project has format ${JSON.stringify(format)}, not ${JSON.stringify(PROJECT_FORMAT)}; pass the PROJECT of a module that \`failbook gen ts\` wrote for this version of failbook-runtime (regenerate it)`);
  }
  // gen ts validated them (schemas, lint) before writing PROJECT: they are not checked again at run time.
  return { registry: registry as Registry, playbook: playbook as Playbook, ownPatterns: redact ?? [] };
}
