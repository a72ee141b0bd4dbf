/**
 * Metrics a dashboard already expects (SPEC 24), through `@opentelemetry/api`'s meter
 * `failbook`. Like otel.ts, failbook imports nothing of the API: it finds the MeterProvider the
 * application registered (`metrics.setGlobalMeterProvider`, or an SDK's `start()`) where the
 * API keeps it, once per dispatcher, and describes the few methods it calls structurally.
 * Without one, there is nothing to record and the dispatcher is not touched at all.
 *
 * Counters and the duration are read from each finished dispatch's events, in one place
 * (`observe`); gauges are read from `dispatcher.snapshot()` when the reader collects. A
 * throwing instrument never fails a dispatch: what goes wrong recording is dropped, with one
 * process warning.
 */
import { isSuccess, type DispatchEvent } from "../model/outcome.js";
import type { DispatchResult } from "../engine/dispatch.js";
import type { DispatcherSnapshot } from "./snapshot.js";

type Attributes = Readonly<Record<string, string>>;

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
  addBatchObservableCallback(callback: (result: BatchResult) => void, observables: Observable[]): void;
}
export interface MeterProviderLike {
  getMeter(name: string, version?: string): Meter;
}

/** Where `@opentelemetry/api` 1.x keeps its global registrations (`registerGlobal`). */
const API_GLOBAL = Symbol.for("opentelemetry.js.api.1");

/** The MeterProvider registered with `@opentelemetry/api` 1.x in this process, if any. */
export function registeredMeterProvider(): MeterProviderLike | undefined {
  const api = (globalThis as { [API_GLOBAL]?: { metrics?: MeterProviderLike } })[API_GLOBAL];
  const provider = api?.metrics;
  return provider !== undefined && typeof provider.getMeter === "function" ? provider : undefined;
}

/** The semantic conventions' `error.type` when nothing more specific is known. */
const OTHER_ERROR = "_OTHER";
/** Semantic conventions' advice for durations in seconds (`http.server.request.duration`'s buckets). */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
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
  const verdicts = new Map<string, string>();
  for (const e of events) if (e.type === "failure_classified") verdicts.set(`${e.call ?? ""}\n${e.attempt}`, e.verdict);
  let probe = false;
  let rateLimited = false;
  for (const e of events) {
    switch (e.type) {
      case "attempt":
        if (e.short_circuited === true) counts.refused.push(rateLimited ? "rate_limit" : "breaker");
        else {
          const kind: AttemptKind = e.hedge === true ? "hedge" : probe ? "probe" : e.n === 1 ? "first" : "retry";
          counts.attempts.push({ kind, errorType: e.status === "error" ? (verdicts.get(`${e.call ?? ""}\n${e.n}`) ?? OTHER_ERROR) : undefined });
        }
        probe = false;
        rateLimited = false;
        break;
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
  /** Record a finished dispatch; returns it unchanged. Never throws. */
  observe(result: DispatchResult): DispatchResult;
}

/**
 * The dispatcher's instruments on `provider`'s meter `failbook`, or undefined when no
 * MeterProvider is registered. `snapshot` is read for the gauges when a reader collects.
 */
export function dispatchMetrics(snapshot: () => DispatcherSnapshot, failed: (error: unknown) => void, provider: MeterProviderLike | undefined = registeredMeterProvider()): DispatchMetrics | undefined {
  if (provider === undefined) return undefined;
  let instruments: ReturnType<typeof createInstruments>;
  try {
    instruments = createInstruments(provider.getMeter("failbook"), snapshot, failed);
  } catch (e) {
    failed(e);
    return undefined;
  }
  const { duration, attempts, refused, transitions, escalations, deadLetters } = instruments;
  const attributes = attributeCache();
  const firstOk = Object.freeze({ "failbook.attempt.kind": "first" });
  return {
    observe(result) {
      try {
        const { outcome, events } = result;
        const tool = outcome.envelope.tool;
        if (isSuccess(outcome.kind)) duration.record(outcome.elapsed_ms / 1000, attributes("t", tool, outcome.kind, "", () => ({ "failbook.tool": tool, "failbook.outcome": outcome.kind })));
        else {
          const errorType = outcome.verdict ?? OTHER_ERROR;
          duration.record(outcome.elapsed_ms / 1000, attributes("f", tool, outcome.kind, errorType, () => ({ "failbook.tool": tool, "failbook.outcome": outcome.kind, "error.type": errorType })));
        }
        // The common dispatch: one attempt, answered ok.
        if (events.length === 1 && events[0].type === "attempt" && events[0].status === "ok") {
          attempts.add(1, firstOk);
          return result;
        }
        const counts = countEvents(events);
        for (const a of counts.attempts) {
          attempts.add(1, a.errorType === undefined ? attributes("a", a.kind, "", "", () => ({ "failbook.attempt.kind": a.kind })) : attributes("e", a.kind, a.errorType, "", () => ({ "failbook.attempt.kind": a.kind, "error.type": a.errorType! })));
        }
        for (const by of counts.refused) refused.add(1, attributes("r", by, "", "", () => ({ "failbook.refused_by": by })));
        for (const t of counts.transitions) {
          transitions.add(1, t.tool === undefined ? { "failbook.breaker": t.breaker, "failbook.breaker.state": t.state } : { "failbook.breaker": t.breaker, "failbook.tool": t.tool, "failbook.breaker.state": t.state });
        }
        for (const queue of counts.escalations) escalations.add(1, { "failbook.queue": queue });
        for (const queue of counts.deadLetters) deadLetters.add(1, { "failbook.queue": queue });
      } catch (e) {
        failed(e);
      }
      return result;
    },
  };
}

function createInstruments(meter: Meter, snapshot: () => DispatcherSnapshot, failed: (e: unknown) => void) {
  const gauges = {
    breakerState: meter.createObservableGauge("failbook.breaker.state", { description: "Circuit breaker state: 0 closed, 1 half-open, 2 open" }),
    budgetRemaining: meter.createObservableGauge("failbook.retry_budget.remaining", { description: "Retries the retry budget allows now, less those in progress" }),
    throttlingTokens: meter.createObservableGauge("failbook.retry_throttling.tokens", { description: "Retry throttling's tokens (retries go above half of max_tokens)" }),
    quotaTokens: meter.createObservableGauge("failbook.retry_quota.tokens", { description: "The retry quota's tokens" }),
    rateLimitTokens: meter.createObservableGauge("failbook.rate_limit.tokens", { description: "A rate limit's tokens (an adaptive limiter's when it has no bucket)" }),
  };
  meter.addBatchObservableCallback((result) => {
    try {
      observeSnapshot(result, gauges, snapshot());
    } catch (e) {
      failed(e);
    }
  }, Object.values(gauges));
  return {
    duration: meter.createHistogram("failbook.dispatch.duration", { description: "How long a dispatch took, retries and waits included", unit: "s", advice: { explicitBucketBoundaries: DURATION_BUCKETS } }),
    attempts: meter.createCounter("failbook.attempts", { description: "Attempts sent to the upstream" }),
    refused: meter.createCounter("failbook.retries.refused", { description: "Retries (and attempts) a policy did not let go" }),
    transitions: meter.createCounter("failbook.breaker.transitions", { description: "Circuit breaker state changes, by the state entered" }),
    escalations: meter.createCounter("failbook.escalations", { description: "Dispatches handed to a person's queue" }),
    deadLetters: meter.createCounter("failbook.dead_letters", { description: "Dispatches written to a dead-letter queue" }),
  };
}

function observeSnapshot(result: BatchResult, gauges: Record<"breakerState" | "budgetRemaining" | "throttlingTokens" | "quotaTokens" | "rateLimitTokens", Observable>, now: DispatcherSnapshot): void {
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
}

/** Attribute sets made once per distinct value (the SDK keys its series by them): bounded, like the tool facts. */
function attributeCache(): (kind: string, a: string, b: string, c: string, make: () => Attributes) => Attributes {
  const cache = new Map<string, Attributes>();
  return (kind, a, b, c, make) => {
    const key = `${kind}\u0000${a}\u0000${b}\u0000${c}`;
    let attributes = cache.get(key);
    if (attributes === undefined) {
      if (cache.size >= 4096) cache.clear();
      cache.set(key, (attributes = Object.freeze(make())));
    }
    return attributes;
  };
}
