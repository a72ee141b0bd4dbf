/**
 * Attempt spans (SPEC 24): with a TracerProvider registered with `@opentelemetry/api`, each
 * attempt a dispatch sends is a span `failbook.attempt`, a child of the context active when
 * `dispatch()` was called, and the active span while the attempt runs (so an instrumented
 * HTTP client's span is the attempt's child). It carries `failbook.attempt.number` and, when
 * the attempt failed, `error.type` = the verdict its failure was classified as, with status
 * ERROR. Without a provider nothing is made and `dispatch()` is left as it is.
 *
 * The wrapper sees an attempt's answer before the run classifies it, so a failed attempt's
 * span stays open (its end time taken when it answered) until the dispatch finishes and its
 * events say which verdict each attempt got.
 */
import type { AttemptFn, DispatchResult } from "../engine/dispatch.js";
import type { Call, Response } from "../model/fixture.js";
import type { DispatchEvent } from "../model/outcome.js";
import type { Redactor } from "../engine/redact.js";
import { errorTypeOf, OTHER_ERROR, registered } from "./global.js";

type AttributeValue = string | number | boolean;

/** The API's Span, Tracer, Context and ContextManager, as far as failbook uses them. */
interface SpanLike {
  setAttribute(key: string, value: AttributeValue): unknown;
  /** code 2 is the API's SpanStatusCode.ERROR. */
  setStatus(status: { code: 2; message?: string }): unknown;
  end(endTime?: number): unknown;
}
interface ContextLike {
  setValue(key: symbol, value: unknown): ContextLike;
}
interface TracerLike {
  startSpan(name: string, options?: { attributes?: Record<string, AttributeValue> }, context?: ContextLike): SpanLike;
}
export interface TracerProviderLike {
  getTracer(name: string, version?: string): TracerLike;
}
interface ContextManagerLike {
  active(): ContextLike;
  with<T>(context: ContextLike, fn: () => T): T;
}

/** The key under which the API keeps a context's span (`trace.setSpan`). */
const SPAN_KEY = Symbol.for("OpenTelemetry Context Key SPAN");
const STATUS_ERROR = 2;

/** The TracerProvider registered with `@opentelemetry/api` 1.x in this process, if any. */
export function registeredTracerProvider(): TracerProviderLike | undefined {
  const provider = registered("trace") as TracerProviderLike | undefined;
  return typeof provider?.getTracer === "function" ? provider : undefined;
}

function contextManager(): ContextManagerLike | undefined {
  const manager = registered("context") as ContextManagerLike | undefined;
  return typeof manager?.active === "function" && typeof manager.with === "function" ? manager : undefined;
}

export interface AttemptTracing {
  /** Run one dispatch (`run`, given the attempt function to send with) with each attempt a span. */
  traced(attempt: AttemptFn, run: (attempt: AttemptFn) => Promise<DispatchResult>): Promise<DispatchResult>;
}

/** One attempt's span: which turn of the dispatch sent it (0 the call, 1 its first fallback that sent...) and its number in that turn. */
interface AttemptSpan {
  span: SpanLike;
  turn: number;
  sent: number;
  /** When its failed answer came (performance.now()); undefined while unanswered. */
  answeredAt: number | undefined;
  ended: boolean;
}

/** Attempt spans on `provider`'s tracer `failbook`, or undefined when no TracerProvider is registered. */
export function attemptTracing(redact: Redactor, failed: (error: unknown) => void, provider: TracerProviderLike | undefined = registeredTracerProvider()): AttemptTracing | undefined {
  if (provider === undefined) return undefined;
  let tracer: TracerLike;
  try {
    tracer = provider.getTracer("failbook");
  } catch (e) {
    failed(e);
    return undefined;
  }
  /** Whatever goes wrong with a span is dropped: the attempt and the dispatch go on. */
  const safely = (fn: () => void): void => {
    try {
      fn();
    } catch (e) {
      failed(e);
    }
  };
  return {
    traced(attempt, run) {
      const manager = contextManager();
      const parent = manager?.active();
      const spans: AttemptSpan[] = [];
      let turn = -1;
      const traced: AttemptFn = (call, n, key, context) => {
        // Each turn (the call, a fallback) numbers the attempts it sends from 1.
        if (n === 1 || turn < 0) turn++;
        let span: SpanLike | undefined;
        safely(() => {
          span = tracer.startSpan("failbook.attempt", { attributes: startAttributes(call, n, context.hedge === true, context.fallback, redact) }, parent);
        });
        if (span === undefined) return attempt(call, n, key, context);
        const open: AttemptSpan = { span, turn, sent: n, answeredAt: undefined, ended: false };
        spans.push(open);
        const send = () => attempt(call, n, key, context);
        let response: Promise<Response> | Response;
        try {
          response = manager !== undefined && parent !== undefined ? manager.with(parent.setValue(SPAN_KEY, span), send) : send();
        } catch (e) {
          safely(() => endThrown(open, e));
          throw e;
        }
        if (!(response instanceof Promise)) return answered(open, response);
        return response.then(
          (r) => answered(open, r),
          (e: unknown) => {
            safely(() => endThrown(open, e));
            throw e;
          },
        );
      };
      const answered = (open: AttemptSpan, response: Response): Response => {
        if (open.ended) return response;
        // A failed answer waits for its verdict; any other ends its span now.
        if ((response as { status?: unknown } | null)?.status === "error") open.answeredAt = clockNow();
        else safely(() => end(open));
        return response;
      };
      return run(traced).then(
        (result) => {
          safely(() => finish(spans, result.events));
          return result;
        },
        (e: unknown) => {
          for (const open of spans) safely(() => endThrown(open, e));
          throw e;
        },
      );
    },
  };
}

/** The tracer's clock (`performance.now()`, which a span's `end` reads as such), where there is one. */
function clockNow(): number | undefined {
  return (globalThis as { performance?: { now(): number } }).performance?.now();
}

function startAttributes(call: Call, n: number, hedge: boolean, fallback: boolean, redact: Redactor): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = { "failbook.tool": redact(call.tool), "failbook.attempt.number": n };
  if (hedge) attributes["failbook.attempt.hedge"] = true;
  if (fallback) attributes["failbook.fallback"] = true;
  return attributes;
}

function end(open: AttemptSpan, at?: number): void {
  open.ended = true;
  open.span.end(at);
}

function endThrown(open: AttemptSpan, error: unknown): void {
  if (open.ended) return;
  open.span.setAttribute("error.type", errorTypeOf(error));
  open.span.setStatus({ code: STATUS_ERROR });
  end(open);
}

/** The dispatch is over: each span still open gets its attempt's number and verdict from the events, and ends. */
function finish(spans: readonly AttemptSpan[], events: readonly DispatchEvent[]): void {
  const turns = sentAttempts(events);
  for (const open of spans) {
    if (open.ended) continue;
    const attempt = turns[open.turn]?.[open.sent - 1];
    if (attempt !== undefined) {
      open.span.setAttribute("failbook.attempt.number", attempt.n);
      if (attempt.failed) {
        open.span.setAttribute("error.type", attempt.verdict ?? OTHER_ERROR);
        open.span.setStatus({ code: STATUS_ERROR, message: attempt.verdict ?? OTHER_ERROR });
      }
    }
    end(open, open.answeredAt);
  }
}

interface SentAttempt {
  n: number;
  failed: boolean;
  verdict: string | undefined;
}

/**
 * The attempts each turn of a dispatch sent (a turn ends at `fallback_started`; turns that
 * sent nothing left out), in the order they were sent: by attempt number, as a turn numbers
 * its attempts when it sends them, short-circuited ones (never sent) left out. A failed
 * one's verdict is its `failure_classified` event's.
 */
function sentAttempts(events: readonly DispatchEvent[]): SentAttempt[][] {
  const turns: SentAttempt[][] = [];
  let current: SentAttempt[] = [];
  for (const e of events) {
    if (e.type === "attempt" && e.short_circuited !== true) current.push({ n: e.n, failed: e.status === "error", verdict: undefined });
    else if (e.type === "failure_classified") {
      for (let i = current.length - 1; i >= 0; i--) {
        if (current[i]!.n !== e.attempt) continue;
        current[i]!.verdict = e.verdict;
        break;
      }
    } else if (e.type === "fallback_started") {
      if (current.length > 0) turns.push(current);
      current = [];
    }
  }
  if (current.length > 0) turns.push(current);
  for (const turn of turns) turn.sort((a, b) => a.n - b.n);
  return turns;
}
