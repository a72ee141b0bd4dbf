/**
 * The library's faces for agents and telemetry, as a user imports them from the built
 * package: a dispatch's envelope as an MCP tool result, and a dispatch recorded on an
 * OpenTelemetry span (the SDK's in-memory exporter collects what a collector would get).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { SpanStatusCode } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import type { DispatchResult } from "failbook-runtime/engine/dispatch.js";
import { dispatchScenario, err, ok, playbook, retry } from "./helpers/dispatch.js";
import { REPO } from "./helpers/cli.js";

const lib = await import(join(REPO, "dist/index.js"));

const SECRET = "sk_live_abcdefghijklmnop1234";

/** Timeouts twice, then ok: recovered after two retries. */
const recovered = () => dispatchScenario({ playbook: playbook({ timeout: retry(3), unknown: { action: "fail" } }), responses: [err("timeout", {}, 30), err("timeout", {}, 30), ok(10)] });
/** A timeout, then a policy denial with a secret in its message: escalated. */
const escalated = () =>
  dispatchScenario({
    playbook: playbook({ timeout: retry(3), denied: { action: "escalate_to_human", queue: "security" }, unknown: { action: "fail" } }),
    responses: [err("timeout", {}, 30), err("denied", { message: `forbidden, key ${SECRET}` }, 5)],
  });

describe("toMcpToolResult(envelope)", () => {
  it("turns a failed call's envelope into a tool error carrying the envelope as structuredContent", async () => {
    const { outcome } = await escalated();
    const result = lib.toMcpToolResult(outcome.envelope);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual(outcome.envelope);
    expect(result.structuredContent.error).toMatchObject({ code: "denied", retryable: false, human_action_required: true });
    expect(result.content).toEqual([{ type: "text", text: JSON.stringify(outcome.envelope, null, 2) }]);
    expect(result.content[0].text).not.toContain(SECRET);
    expect(result.content[0].text).toContain("[REDACTED]");
  });

  it("is not an error when the call ended well", async () => {
    const { outcome } = await recovered();
    expect(lib.toMcpToolResult(outcome.envelope)).toMatchObject({ isError: false, structuredContent: { ok: true, outcome: "recovered", retried: 2 } });
  });
});

describe("recordOutcome(span, result)", () => {
  function recorded(result: DispatchResult | DispatchResult["outcome"], options?: Record<string, unknown>): ReadableSpan {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const span = provider.getTracer("failbook-test").startSpan("payments.refund");
    lib.recordOutcome(span, result, options);
    span.end();
    const [finished] = exporter.getFinishedSpans();
    return finished;
  }

  it("sets error.type to the verdict code, the status to ERROR, and one span event per decision event", async () => {
    const result = await escalated();
    const span = recorded(result);
    expect(span.attributes).toMatchObject({
      "error.type": "denied",
      "failbook.outcome": "escalated",
      "failbook.verdict": "denied",
      "failbook.attempts": 2,
      "failbook.retried": 1,
      "failbook.tool": "payments.refund",
      "failbook.queue": "security",
      "failbook.exhausted": false,
    });
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.events.map((e) => e.name)).toEqual(result.events.map((e) => `failbook.${e.type}`));
    expect(span.events.map((e) => e.name)).toContain("failbook.retry_scheduled");
    const retry = span.events.find((e) => e.name === "failbook.retry_scheduled")!;
    expect(retry.attributes).toEqual({ "failbook.t_ms": 30, "failbook.attempt": 2, "failbook.delay_ms": 100, "failbook.verdict": "timeout" });
    const escalation = span.events.find((e) => e.name === "failbook.escalated")!;
    expect(escalation.attributes).toMatchObject({ "failbook.queue": "security" });
  });

  it("redacts every string it records, with the built-in patterns or the caller's", async () => {
    // A result built by hand (not by the dispatcher, which redacts on its own) with secrets in it.
    const result = await escalated();
    const leaky = {
      outcome: { ...result.outcome, reason: `denied: ${SECRET}` },
      events: result.events.map((e) => (e.type === "escalated" ? { ...e, reason: `password=${SECRET}`, queue: "queue-ticket-99" } : e)),
    };
    const span = recorded(leaky, { redact: lib.createRedactor(["ticket-[0-9]+"]) });
    const everything = JSON.stringify({ a: span.attributes, e: span.events, s: span.status });
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain("ticket-99");
    expect(span.status.message).toBe("denied: [REDACTED]");
    expect(span.events.find((e) => e.name === "failbook.escalated")!.attributes).toMatchObject({ "failbook.reason": "password=[REDACTED]", "failbook.queue": "queue-[REDACTED]" });
  });

  it("stamps each event at startTime + t when given the dispatch's start", async () => {
    const result = await recovered();
    const start = Date.UTC(2026, 10, 23, 12, 0, 0);
    const span = recorded(result, { startTime: start });
    const millis = (time: [number, number]) => time[0] * 1000 + time[1] / 1e6;
    expect(span.events.map((e) => millis(e.time))).toEqual(result.events.map((e) => start + e.t));
  });

  it("leaves the status unset and sets no error.type when the call recovered", async () => {
    const result = await recovered();
    const span = recorded(result);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes["error.type"]).toBeUndefined();
    expect(span.attributes).toMatchObject({ "failbook.outcome": "recovered", "failbook.verdict": "timeout", "failbook.retried": 2 });
    expect(span.events.filter((e) => e.name === "failbook.attempt")).toHaveLength(3);
  });

  it("needs no OpenTelemetry package, at run time or to type-check: nothing of it is imported", () => {
    const imports = /(?:from|import\(|require\()\s*["']@opentelemetry\//;
    const emitted = readFileSync(join(REPO, "dist/index.js"), "utf8");
    expect(emitted).not.toMatch(imports);
    expect(emitted).toContain("function recordOutcome");
    expect(readFileSync(join(REPO, "dist/index.d.ts"), "utf8")).not.toMatch(imports);
  });

  it("takes a bare outcome too (no events then)", async () => {
    const { outcome } = await escalated();
    const span = recorded(outcome);
    expect(span.events).toEqual([]);
    expect(span.attributes["error.type"]).toBe("denied");
  });
});
