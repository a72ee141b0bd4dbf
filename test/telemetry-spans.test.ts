/**
 * SPEC 24: attempt spans. With a TracerProvider registered through `@opentelemetry/api`
 * (the SDK's BasicTracerProvider, spans kept by an in-memory exporter), each attempt is a
 * span `failbook.attempt`, child of the context active at `dispatch()`, active while the
 * attempt runs, with `failbook.attempt.number` and, on failure, `error.type` = the verdict.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { context, ROOT_CONTEXT, SpanStatusCode, trace, type Context, type ContextManager } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { VirtualClock } from "failbook-runtime/engine/clock.js";
import { createDispatcher, type AttemptFn } from "failbook-runtime/engine/dispatch.js";
import { seededRandom } from "failbook-runtime/engine/random.js";
import type { Response } from "failbook-runtime/model/fixture.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import { CALL, err, ok, playbook, REGISTRY, replay, retry } from "./helpers/dispatch.js";

/** The context manager a Node service registers (`@opentelemetry/context-async-hooks`'), in a few lines. */
class AsyncLocalContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();
  active = (): Context => this.storage.getStore() ?? ROOT_CONTEXT;
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    return this.storage.run(ctx, () => fn.call(thisArg, ...args));
  }
  bind<T>(_ctx: Context, target: T): T {
    return target;
  }
  enable = () => this;
  disable = () => this;
}

function tracing() {
  const exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  context.setGlobalContextManager(new AsyncLocalContextManager());
  // In the order they were sent (the exporter has them in the order they ended: a failed attempt's span waits for its verdict).
  const order = (s: ReadableSpan) => (s.attributes["failbook.fallback"] === true ? 1000 : 0) + Number(s.attributes["failbook.attempt.number"]);
  const attempts = () => exporter.getFinishedSpans().filter((s) => s.name === "failbook.attempt").sort((a, b) => order(a) - order(b));
  return { exporter, attempts };
}

function dispatcherOn(pb: Playbook) {
  const clock = new VirtualClock();
  return { clock, dispatcher: createDispatcher({ registry: REGISTRY, playbook: pb, clock, random: seededRandom(0) }) };
}

const e503 = (ms: number): Response => err("upstream", { http_status: 503 }, ms);

afterEach(() => {
  trace.disable();
  context.disable();
});

describe("attempt spans (SPEC 24)", () => {
  it("makes none without a registered TracerProvider", async () => {
    const { dispatcher, clock } = dispatcherOn(playbook({ server: retry(2, [100]) }));
    const { exporter } = tracing();
    await dispatcher.dispatch(CALL, replay(clock, [e503(10), ok(10)]));
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it("makes each attempt a span, child of the dispatch's active span and active while it runs: its number, and error.type = the verdict on failure", async () => {
    const { attempts } = tracing();
    const { dispatcher, clock } = dispatcherOn(playbook({ server: retry(2, [100]) }));
    const responses = replay(clock, [e503(10), e503(10), ok(10)]);
    const activeInAttempt: (string | undefined)[] = [];
    const attempt: AttemptFn = (call, n, key, ctx) => {
      activeInAttempt.push(trace.getActiveSpan()?.spanContext().spanId);
      return responses(call, n, key, ctx);
    };
    const parent = trace.getTracer("service").startSpan("POST /refunds");
    const { outcome } = await context.with(trace.setSpan(context.active(), parent), () => dispatcher.dispatch(CALL, attempt));
    parent.end();
    expect(outcome.kind).toBe("recovered");
    const spans = attempts();
    expect(spans.map((s) => [s.attributes["failbook.attempt.number"], s.attributes["error.type"], s.status.code])).toEqual([
      [1, "server", SpanStatusCode.ERROR],
      [2, "server", SpanStatusCode.ERROR],
      [3, undefined, SpanStatusCode.UNSET],
    ]);
    for (const s of spans) {
      expect(s.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
      expect(s.spanContext().traceId).toBe(parent.spanContext().traceId);
      expect(s.attributes["failbook.tool"]).toBe("payments.refund");
    }
    // An instrumented client inside the attempt sees the attempt's span as the active one.
    expect(activeInAttempt).toEqual(spans.map((s) => s.spanContext().spanId));
  });

  it("numbers a fallback's attempts as the fallback does, with their own verdicts, and leaves a short-circuited attempt out (it was never sent)", async () => {
    const { exporter, attempts } = tracing();
    const pb = playbook(
      { server: retry(2, [100]), conflict: { action: "fallback", tool: "payments.refund_v2" } },
      { circuit_breakers: { payments: { tools: "payments.refund", failure_ratio: 0.5, minimum_throughput: 2, sampling_ms: 10_000, break_ms: 1000 } } },
    );
    const { dispatcher, clock } = dispatcherOn(pb);
    // Attempts 1 and 2 fail and the breaker opens: retry 3 is short-circuited, never sent, no span.
    const { events } = await dispatcher.dispatch(CALL, replay(clock, [e503(10), e503(10)]));
    expect(events.filter((e) => e.type === "attempt").map((e) => e.short_circuited === true)).toEqual([false, false, true]);
    const first = attempts().map((s) => [s.attributes["failbook.attempt.number"], s.attributes["error.type"]]);
    expect(first).toEqual([
      [1, "server"],
      [2, "server"],
    ]);
    // A conflict falls back to another tool, whose attempts are numbered from 1 with their own verdicts.
    exporter.reset();
    const other = dispatcherOn(pb);
    await other.dispatcher.dispatch(CALL, replay(other.clock, [err("conflict", {}, 5)], [e503(5), ok(5)]));
    const fallback = attempts().map((s) => [s.attributes["failbook.tool"], s.attributes["failbook.attempt.number"], s.attributes["error.type"], s.attributes["failbook.fallback"]]);
    expect(fallback).toEqual([
      ["payments.refund", 1, "conflict", undefined],
      ["payments.refund_v2", 1, "server", true],
      ["payments.refund_v2", 2, undefined, true],
    ]);
  });

  it("ends an attempt that throws with error.type = the exception's class, and a tracer that throws never fails a dispatch", async () => {
    const { attempts } = tracing();
    const { dispatcher } = dispatcherOn(playbook({}));
    await expect(dispatcher.dispatch(CALL, () => { throw new TypeError("adapter bug"); })).rejects.toThrow("adapter bug");
    expect(attempts().map((s) => [s.attributes["error.type"], s.status.code])).toEqual([["TypeError", SpanStatusCode.ERROR]]);
    trace.disable();
    trace.setGlobalTracerProvider({ getTracer: () => ({ startSpan: () => { throw new Error("tracer down"); } }) } as never);
    const broken = dispatcherOn(playbook({ server: retry(2, [100]) }));
    const { outcome } = await broken.dispatcher.dispatch(CALL, replay(broken.clock, [e503(10), ok(10)]));
    expect(outcome.kind).toBe("recovered");
  });
});
