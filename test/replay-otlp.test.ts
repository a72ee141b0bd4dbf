import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { context, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import { describe, expect, it } from "vitest";
import { failbook, tempProject } from "./helpers/cli.js";
import { editedProject, projectFiles, verdict } from "./helpers/change-project.js";

const T0 = 1_763_632_800; // 2025-11-20T10:00:00Z, in seconds
const at = (ms: number): [number, number] => [T0 + Math.floor(ms / 1000), (ms % 1000) * 1_000_000];

/** A traced tool call: a parent span and one client span per HTTP attempt, as instrumented code makes them. */
function toolCall(tracer: Tracer, tool: string | undefined, startMs: number, attempts: { ms: number; status?: number; errorType?: string; exception?: string; retryAfter?: string }[], url = "https://api.pay.example/v1/refunds?api_key=sk_live_abcdefghijklmnop1234") {
  const parent = tracer.startSpan(`execute_tool ${tool ?? ""}`, { startTime: at(startMs), attributes: tool ? { "gen_ai.tool.name": tool, "gen_ai.operation.name": "execute_tool" } : {} });
  const ctx = trace.setSpan(context.active(), parent);
  let t = startMs + 1;
  const spans: [Span, number][] = [];
  attempts.forEach((a, i) => {
    const span = tracer.startSpan("POST", { kind: SpanKind.CLIENT, startTime: at(t), attributes: { "http.request.method": "POST", "url.full": url, "server.address": "api.pay.example", ...(i > 0 ? { "http.request.resend_count": i } : {}) } }, ctx);
    if (a.status !== undefined) span.setAttribute("http.response.status_code", a.status);
    if (a.retryAfter !== undefined) span.setAttribute("http.response.header.retry-after", [a.retryAfter]);
    if (a.errorType !== undefined) {
      span.setAttribute("error.type", a.errorType);
      if (a.exception) span.recordException({ name: "Error", message: a.exception }, at(t + a.ms));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    spans.push([span, t + a.ms]);
    t += a.ms + 100;
  });
  // Ended out of order, as concurrent exporters may deliver them: the import sorts by start time.
  for (const [span, end] of spans.reverse()) span.end(at(end));
  parent.end(at(t));
}

function exportTraces(build: (tracer: Tracer) => void): string {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  build(provider.getTracer("failbook-test"));
  return new TextDecoder().decode(JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans()));
}

const project = () =>
  tempProject(
    projectFiles(
      editedProject((p) => {
        verdict(p, "timeout").match = [{ kind: "timeout" }, { http_status: 503 }];
        verdict(p, "conflict").match = [{ kind: "409_conflict" }, { http_status: 409 }];
      }),
    ),
  );

describe("failbook import otlp", () => {
  it("turns spans the OpenTelemetry JS SDK exports into records: attempts grouped under their parent, in order, read by the semantic conventions", () => {
    const dir = project();
    writeFileSync(
      join(dir, "traces.json"),
      exportTraces((tracer) => {
        toolCall(tracer, "payments.refund", 0, [
          { ms: 30, status: 503, errorType: "503", exception: "Service Unavailable token=sk_live_abcdefghijklmnop1234", retryAfter: "2" },
          { ms: 12, status: 200 },
        ]);
        toolCall(tracer, "payments.capture", 5000, [{ ms: 8, status: 409, errorType: "409" }]);
        toolCall(tracer, undefined, 9000, [{ ms: 3, status: 200 }], "https://crm.example/contacts/42");
      }),
    );
    const r = failbook(["import", "otlp", "traces.json"], { cwd: dir });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const records = r.stdout.trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, any>);
    expect(records).toHaveLength(3);
    expect(records[0]).toMatchObject({
      apiVersion: "failbook/v1",
      kind: "Record",
      at: "2025-11-20T10:00:00.001Z",
      call: { tool: "payments.refund" },
      responses: [
        { status: "error", error: { kind: "503", http_status: 503, message: "Service Unavailable token=[REDACTED]", headers: { "retry-after": "2" } }, latency_ms: 30 },
        { status: "ok", value: true, latency_ms: 12 },
      ],
      outcome: { kind: "recovered", verdict: null, attempts: 2 },
    });
    expect(records[0].run_id).toMatch(/^[0-9a-f]{32}$/);
    expect(records[0].call.id).toMatch(/^[0-9a-f]{16}$/);
    expect(records[1]).toMatchObject({ call: { tool: "payments.capture" }, responses: [{ status: "error", error: { kind: "409", http_status: 409 }, latency_ms: 8 }] });
    expect(records[1].outcome).toBeUndefined();
    expect(records[2]).toMatchObject({ call: { tool: "POST https://crm.example/contacts/42" }, outcome: { kind: "succeeded" } });
    expect(r.stdout).not.toContain("sk_live_");

    // Imported records replay: the 503 retried and recovered, the 409 deprecated, the GET succeeded.
    const out = failbook(["import", "otlp", "traces.json", "--out", "records.jsonl.gz"], { cwd: dir });
    expect(out.code).toBe(0);
    expect(out.stderr).toContain("wrote 3 records from 7 spans to records.jsonl.gz");
    expect(gunzipSync(readFileSync(join(dir, "records.jsonl.gz"))).toString("utf8")).toBe(r.stdout);
    const replay = failbook(["replay", "records.jsonl.gz", "--format", "json"], { cwd: dir });
    expect(replay.code).toBe(0);
    expect(JSON.parse(replay.stdout)).toMatchObject({ records: 3, changed: 0, unknown: 0, unrecorded: 1, verdicts: { conflict: 1, timeout: 1 } });
  });

  it("reads the Collector's one-request-a-line files, and names what it cannot read", () => {
    const dir = project();
    const one = exportTraces((tracer) => toolCall(tracer, "mail.send", 0, [{ ms: 4, status: 200 }]));
    writeFileSync(join(dir, "collector.jsonl"), `${one}\n{"resourceSpans": [\n${one}\n`);
    const r = failbook(["import", "otlp", "collector.jsonl"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("collector.jsonl:2: not JSON");
    expect(r.stdout.trimEnd().split("\n")).toHaveLength(2);
    expect(failbook(["import", "otlp", "missing.json"], { cwd: dir }).code).toBe(2);
  });
});
