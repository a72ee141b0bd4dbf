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
import type { RecordSink } from "../model/record.js";
import type { Registry } from "../model/registry.js";
import type { ActionEffects } from "./call.js";
import type { Clock } from "./clock.js";
import { createPolicies, type SharedPolicies } from "./policies/index.js";
import { RetryQuotaBucket } from "./quota.js";
import type { Random } from "./random.js";
import { createRedactor, redactValue, type Redactor } from "./redact.js";
import type { BudgetLedger } from "./retry.js";
import { startRecording } from "./record.js";
import { DispatchRun } from "./run.js";

export type { BudgetLedger } from "./retry.js";
export { EMPTY_RESPONSE, actionFor, isIdempotent, type ShownCall } from "./call.js";

/** What the dispatcher tells the attempt function besides the call. */
export interface AttemptContext {
  /** The attempt goes to the fallback tool (simulation reads `fallback_responses`). */
  fallback: boolean;
  /** The `retry_with_hint` hint, on the retry it scheduled. */
  hint?: string;
  /** Aborts when the attempt's timeout (`attempt_timeout_ms`, SPEC 18) ends the wait: stop the work, its answer is discarded. */
  signal?: AbortSignal;
  /** Set on the attempt after `refresh_credentials` (SPEC 18). */
  refreshed?: "credentials";
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

export interface DispatcherOptions {
  registry: Registry;
  playbook: Playbook;
  clock: Clock;
  random: Random;
  /** Applied to the outcome, the events, packets and dead letters (default: built-in patterns). */
  redact?: Redactor;
  effects?: Effects;
  /** Every event as it happens (redacted), e.g. for a trace store. */
  onEvent?: (event: DispatchEvent) => void;
  /** Tokens the playbook's retry quota starts with (default: a full bucket). */
  quotaTokens?: number;
  /** Where the breakers and retry throttling start (a fixture's `state:`, SPEC 18; default closed and full). */
  state?: PolicyState;
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
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const redact = options.redact ?? createRedactor();
  const shown = rememberRedactions(redact);
  const dispatcher: Dispatcher = {
    registry: options.registry,
    playbook: options.playbook,
    clock: options.clock,
    redact,
    quota: options.playbook.retry_quota === undefined ? undefined : new RetryQuotaBucket(options.playbook.retry_quota, options.quotaTokens),
    policies: createPolicies(options.playbook, options.clock.now(), options.state),
    newLedger: () => ({ startedAt: options.clock.now(), retries: 0, backoffMs: 0, verdictCounts: new Map() }),
    async dispatch(call, attempt, dispatchOptions = {}) {
      const ledger = dispatchOptions.ledger ?? dispatcher.newLedger();
      const run = new DispatchRun(options, shown, ledger, dispatcher.quota, dispatcher.policies, dispatchOptions.runId ?? "", dispatchOptions.label ? call.id : undefined);
      const recording = dispatchOptions.record === undefined ? undefined : startRecording(attempt, options.clock);
      const budget = dispatcher.policies.budget;
      budget?.callStarted();
      let end;
      try {
        end = await run.call(call, recording?.attempt ?? attempt, 0);
      } finally {
        budget?.callEnded(run.retrying);
      }
      const result = run.finish(end);
      if (options.effects !== undefined) await run.applyEffects(result.outcome);
      if (recording !== undefined) await dispatchOptions.record!(recording.finish(call, dispatchOptions.runId, result.outcome, shown));
      return result;
    },
    async deadLetter(entry) {
      const clean = redactValue(entry, redact);
      await options.effects?.deadLetter?.(clean);
      return clean;
    },
  };
  return dispatcher;
}

/**
 * The redactor, remembering what it made of each string: a dispatch shows the same tool
 * names, kinds, queues and registry texts again and again, and redacting a string twice
 * must not cost twice. Bounded, so that a stream of distinct messages cannot grow it.
 */
function rememberRedactions(redact: Redactor): Redactor {
  const seen = new Map<string, string>();
  return (text) => {
    let out = seen.get(text);
    if (out === undefined) {
      out = redact(text);
      if (seen.size >= 4096) seen.clear();
      seen.set(text, out);
    }
    return out;
  };
}

