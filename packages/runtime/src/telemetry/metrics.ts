/**
 * Metrics a dashboard already expects (SPEC 24), through `@opentelemetry/api`'s meter
 * `failbook`. Like otel.ts, failbook imports nothing of the API: it finds the MeterProvider the
 * application registered (`metrics.setGlobalMeterProvider`, or an SDK's `start()`) where the
 * API keeps it, once per dispatcher, and describes the few methods it calls structurally.
 * Without one, there is nothing to record and the dispatcher is not touched at all.
 *
 * Each finished dispatch is counted from its events, in one place (`observe`), into plain
 * numbers (`Tally`); observable counters and gauges read them, and `dispatcher.snapshot()`,
 * when the reader collects. Only the duration is handed to the SDK per dispatch, with an
 * attribute set made once per series. A throwing instrument never fails a dispatch: what goes
 * wrong recording is dropped, with one process warning.
 */
import { isSuccess, type DispatchEvent } from "../model/outcome.js";
import type { DispatchResult } from "../engine/dispatch.js";
import type { DispatcherSnapshot } from "./snapshot.js";
import { OTHER_ERROR, registered } from "./global.js";
import { Tally, type Attributes } from "./tally.js";

/** The API's instruments and meter, as far as failbook uses them. */
interface Counter {
  add(value: number, attributes?: Attributes): void;
}
interface Histogram {
  record(value: number, attributes?: Attributes): void;
}
type Observable = object;
interface BatchResult {
  observe(observable: Observable, value: number, attributes?: Attributes): void;
}
interface InstrumentOptions {
  description?: string;
  unit?: string;
  advice?: { explicitBucketBoundaries?: number[] };
}
interface Meter {
  createHistogram(name: string, options?: InstrumentOptions): Histogram;
  createCounter(name: string, options?: InstrumentOptions): Counter;
  createObservableGauge(name: string, options?: InstrumentOptions): Observable;
  createObservableCounter(name: string, options?: InstrumentOptions): Observable;
  addBatchObservableCallback(callback: (result: BatchResult) => void, observables: Observable[]): void;
}
export interface MeterProviderLike {
  getMeter(name: string, version?: string): Meter;
}

/** The MeterProvider registered with `@opentelemetry/api` 1.x in this process, if any. */
export function registeredMeterProvider(): MeterProviderLike | undefined {
  const provider = registered("metrics") as MeterProviderLike | undefined;
  return typeof provider?.getMeter === "function" ? provider : undefined;
}

/** Semantic conventions' advice for durations in seconds (`http.server.request.duration`'s buckets). */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
/** A fleet sync is one round trip to a store nearby: from half a millisecond to its `sync_ms` (at most a second or so). */
const SYNC_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** `failbook.breaker.state`'s values (SPEC 24), resilience4j's order. */
export const BREAKER_STATE_VALUE = { closed: 0, half_open: 1, open: 2 } as const;

/** Why a retry (or an attempt) was not made, as `failbook.refused_by` names it (SPEC 24). */
export type RefusedBy = "max_attempts" | "budget" | "throttling" | "quota" | "breaker" | "rate_limit" | "deadline";
export type AttemptKind = "first" | "retry" | "hedge" | "probe";

/** What one dispatch counts, read from its events (the metrics' one source; tests count the same way by hand). */
export interface DispatchCounts {
  attempts: { kind: AttemptKind; errorType: string | undefined }[];
  refused: RefusedBy[];
  transitions: { breaker: string; tool: string | undefined; state: "open" | "half_open" | "closed" }[];
  escalations: string[];
  deadLetters: string[];
}

/** The refusal an event records, if it is one. */
function refusalOf(event: DispatchEvent): RefusedBy | undefined {
  switch (event.type) {
    case "retry_budget_exhausted":
      return "budget";
    case "retry_throttled":
      return "throttling";
    case "retry_quota_exhausted":
      return "quota";
    case "budget_exhausted":
      return event.budget === "retry_seconds" || event.budget === "wall_ms" ? "deadline" : "max_attempts";
    case "retry_suppressed":
      return event.reason === "max_retries" || event.reason === "class_max_retries" ? "max_attempts" : event.reason === "deadline" ? "deadline" : undefined;
    default:
      return undefined;
  }
}

/**
 * A dispatch's events, counted: attempts sent (by kind, with the verdict their failure was
 * classified as), refusals, breaker transitions, escalations and dead letters. An attempt a
 * breaker or an empty rate limit did not send is a refusal, not an attempt; an attempt sent
 * right after a breaker went half-open is its probe.
 */
export function countEvents(events: readonly DispatchEvent[]): DispatchCounts {
  const counts: DispatchCounts = { attempts: [], refused: [], transitions: [], escalations: [], deadLetters: [] };
  // A failed attempt waits for the `failure_classified` that follows it (a fallback numbers its attempts from 1 again).
  const unclassified = new Map<string, DispatchCounts["attempts"][number]>();
  let probe = false;
  let rateLimited = false;
  for (const e of events) {
    switch (e.type) {
      case "attempt":
        if (e.short_circuited === true) counts.refused.push(rateLimited ? "rate_limit" : "breaker");
        else {
          const kind: AttemptKind = e.hedge === true ? "hedge" : probe ? "probe" : e.n === 1 ? "first" : "retry";
          const attempt = { kind, errorType: e.status === "error" ? OTHER_ERROR : undefined };
          counts.attempts.push(attempt);
          if (e.status === "error") unclassified.set(`${e.call ?? ""}\n${e.n}`, attempt);
        }
        probe = false;
        rateLimited = false;
        break;
      case "failure_classified": {
        const key = `${e.call ?? ""}\n${e.attempt}`;
        const attempt = unclassified.get(key);
        if (attempt !== undefined) attempt.errorType = e.verdict;
        unclassified.delete(key);
        break;
      }
      case "rate_limited":
        rateLimited = true;
        break;
      case "breaker_half_open":
        probe = true;
        counts.transitions.push({ breaker: e.breaker, tool: e.tool, state: "half_open" });
        break;
      case "breaker_opened":
        counts.transitions.push({ breaker: e.breaker, tool: e.tool, state: "open" });
        break;
      case "breaker_closed":
        counts.transitions.push({ breaker: e.breaker, tool: e.tool, state: "closed" });
        break;
      case "escalated":
        counts.escalations.push(e.queue);
        break;
      case "dead_lettered":
        counts.deadLetters.push(e.queue);
        break;
      default: {
        const refused = refusalOf(e);
        if (refused !== undefined) counts.refused.push(refused);
      }
    }
  }
  return counts;
}

export interface DispatchMetrics {
  /** Count a finished dispatch; returns it unchanged. Never throws. */
  observe(result: DispatchResult): DispatchResult;
}

/** A fleet sync's side of the metrics: each sync's duration, and whether it failed (SPEC 24). */
export interface SyncObserved {
  syncObserver: ((durationMs: number, errorType: string | undefined) => void) | undefined;
}

/** The dispatcher's counts, as plain numbers between collections. */
interface Tallies {
  attempts: Tally;
  refused: Tally;
  transitions: Tally;
  escalations: Tally;
  deadLetters: Tally;
}

/**
 * The dispatcher's instruments on `provider`'s meter `failbook`, or undefined when no
 * MeterProvider is registered. `snapshot` is read for the gauges when a reader collects;
 * `fleet`, the dispatcher's fleet sync, reports each sync's duration.
 */
export function dispatchMetrics(snapshot: () => DispatcherSnapshot, failed: (error: unknown) => void, fleet?: SyncObserved, provider: MeterProviderLike | undefined = registeredMeterProvider()): DispatchMetrics | undefined {
  if (provider === undefined) return undefined;
  const tallies: Tallies = { attempts: new Tally(), refused: new Tally(), transitions: new Tally(), escalations: new Tally(), deadLetters: new Tally() };
  let instruments: ReturnType<typeof createInstruments>;
  try {
    instruments = createInstruments(provider.getMeter("failbook"), tallies, snapshot, failed);
  } catch (e) {
    failed(e);
    return undefined;
  }
  const { duration, syncDuration } = instruments;
  if (fleet !== undefined) fleet.syncObserver = syncRecorder(syncDuration, failed);
  // The duration's attribute sets: the common dispatch's by tool alone (no key to build), the others' by tool, outcome and error.type.
  const succeeded = new Tally();
  const ended = new Tally();
  const firstOk = tallies.attempts.slot("first", () => ({ "failbook.attempt.kind": "first" }));
  return {
    observe(result) {
      try {
        const { outcome, events } = result;
        const tool = outcome.envelope.tool;
        const seconds = outcome.elapsed_ms / 1000;
        // The common dispatch: one attempt, answered ok.
        if (events.length === 1 && outcome.kind === "succeeded" && events[0].type === "attempt" && events[0].status === "ok") {
          firstOk.value++;
          duration.record(seconds, succeeded.slot(tool, () => ({ "failbook.tool": tool, "failbook.outcome": "succeeded" })).attributes);
          return result;
        }
        const errorType = isSuccess(outcome.kind) ? undefined : (outcome.verdict ?? OTHER_ERROR);
        duration.record(seconds, ended.slot(`${tool}\u0000${outcome.kind}\u0000${errorType ?? ""}`, () => ({ "failbook.tool": tool, "failbook.outcome": outcome.kind, ...(errorType === undefined ? {} : { "error.type": errorType }) })).attributes);
        tallyEvents(tallies, countEvents(events));
      } catch (e) {
        failed(e);
      }
      return result;
    },
  };
}

function tallyEvents(tallies: Tallies, counts: DispatchCounts): void {
  for (const { kind, errorType } of counts.attempts) {
    if (errorType === undefined) tallies.attempts.add(kind, () => ({ "failbook.attempt.kind": kind }));
    else tallies.attempts.add(`${kind}\u0000${errorType}`, () => ({ "failbook.attempt.kind": kind, "error.type": errorType }));
  }
  for (const by of counts.refused) tallies.refused.add(by, () => ({ "failbook.refused_by": by }));
  for (const { breaker, tool, state } of counts.transitions) {
    tallies.transitions.add(tool === undefined ? `${breaker}\u0000${state}` : `${breaker}\u0000${state}\u0000${tool}`, (): Record<string, string> =>
      tool === undefined ? { "failbook.breaker": breaker, "failbook.breaker.state": state } : { "failbook.breaker": breaker, "failbook.tool": tool, "failbook.breaker.state": state },
    );
  }
  for (const queue of counts.escalations) tallies.escalations.add(queue, () => ({ "failbook.queue": queue }));
  for (const queue of counts.deadLetters) tallies.deadLetters.add(queue, () => ({ "failbook.queue": queue }));
}

/** Each fleet sync's duration in seconds; a failed or late one with its `error.type`. */
function syncRecorder(histogram: Histogram, failed: (e: unknown) => void): (durationMs: number, errorType: string | undefined) => void {
  const ok: Attributes = Object.freeze({});
  const errors = new Tally();
  return (durationMs, errorType) => {
    try {
      histogram.record(durationMs / 1000, errorType === undefined ? ok : errors.slot(errorType, () => ({ "error.type": errorType })).attributes);
    } catch (e) {
      failed(e);
    }
  };
}

type Gauges = Record<"breakerState" | "budgetRemaining" | "throttlingTokens" | "quotaTokens" | "rateLimitTokens" | "storeAvailable", Observable>;
type Counters = Record<keyof Tallies, Observable>;

function createInstruments(meter: Meter, tallies: Tallies, snapshot: () => DispatcherSnapshot, failed: (e: unknown) => void) {
  const gauges: Gauges = {
    breakerState: meter.createObservableGauge("failbook.breaker.state", { description: "Circuit breaker state: 0 closed, 1 half-open, 2 open" }),
    budgetRemaining: meter.createObservableGauge("failbook.retry_budget.remaining", { description: "Retries the retry budget allows now, less those in progress" }),
    throttlingTokens: meter.createObservableGauge("failbook.retry_throttling.tokens", { description: "Retry throttling's tokens (retries go above half of max_tokens)" }),
    quotaTokens: meter.createObservableGauge("failbook.retry_quota.tokens", { description: "The retry quota's tokens" }),
    rateLimitTokens: meter.createObservableGauge("failbook.rate_limit.tokens", { description: "A rate limit's tokens (an adaptive limiter's when it has no bucket)" }),
    storeAvailable: meter.createObservableGauge("failbook.fleet.store.available", { description: "1 while this process syncs with the fleet's store within its lease, else 0" }),
  };
  const counters: Counters = {
    attempts: meter.createObservableCounter("failbook.attempts", { description: "Attempts sent to the upstream" }),
    refused: meter.createObservableCounter("failbook.retries.refused", { description: "Retries (and attempts) a policy did not let go" }),
    transitions: meter.createObservableCounter("failbook.breaker.transitions", { description: "Circuit breaker state changes, by the state entered" }),
    escalations: meter.createObservableCounter("failbook.escalations", { description: "Dispatches handed to a person's queue" }),
    deadLetters: meter.createObservableCounter("failbook.dead_letters", { description: "Dispatches written to a dead-letter queue" }),
  };
  meter.addBatchObservableCallback(
    (result) => {
      try {
        for (const name of Object.keys(counters) as (keyof Tallies)[]) for (const s of tallies[name].series()) result.observe(counters[name], s.value, s.attributes);
        observeSnapshot(result, gauges, snapshot());
      } catch (e) {
        failed(e);
      }
    },
    [...Object.values(counters), ...Object.values(gauges)],
  );
  return {
    duration: meter.createHistogram("failbook.dispatch.duration", { description: "How long a dispatch took, retries and waits included", unit: "s", advice: { explicitBucketBoundaries: DURATION_BUCKETS } }),
    syncDuration: meter.createHistogram("failbook.fleet.sync.duration", { description: "How long a sync with the fleet's store took (one round trip)", unit: "s", advice: { explicitBucketBoundaries: SYNC_BUCKETS } }),
  };
}

function observeSnapshot(result: BatchResult, gauges: Gauges, now: DispatcherSnapshot): void {
  for (const b of now.breakers) {
    result.observe(gauges.breakerState, BREAKER_STATE_VALUE[b.state], b.tool === undefined ? { "failbook.breaker": b.breaker } : { "failbook.breaker": b.breaker, "failbook.tool": b.tool });
  }
  if (now.retry_budget !== null) result.observe(gauges.budgetRemaining, now.retry_budget.remaining);
  if (now.retry_throttling !== null) result.observe(gauges.throttlingTokens, now.retry_throttling.tokens);
  if (now.retry_quota !== null) result.observe(gauges.quotaTokens, now.retry_quota.tokens);
  for (const l of now.rate_limits) {
    const tokens = l.tokens ?? l.adaptive?.tokens;
    if (tokens !== undefined) result.observe(gauges.rateLimitTokens, tokens, { "failbook.rate_limit": l.name });
  }
  if (now.fleet !== null) result.observe(gauges.storeAvailable, now.fleet.available ? 1 : 0);
}
