/**
 * OpenTelemetry traces to records (SPEC 14): OTLP/JSON exports (`resourceSpans[].scopeSpans[].spans[]`,
 * as the OTLP JSON exporters and the Collector's file exporter write them) become one record
 * per call. The client spans under one parent that share method and target are the attempts
 * of one call, in start-time order (`http.request.resend_count` breaks ties); each attempt
 * reads the semantic conventions: `error.type` is the error's kind, `http.response.status_code`
 * its status, the `exception` event's `exception.message` its message, the span's duration
 * its latency; the call's tool is `gen_ai.tool.name` (on the span or its parent), else
 * `rpc.method`, else the method and route.
 */
import type { AdapterError, Response } from "failbook-runtime/model/fixture.js";
import type { DispatchRecord } from "failbook-runtime/model/record.js";

/** An OTLP attribute value as JSON encodes it (int64 as a number or a decimal string). */
interface AnyValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
}
interface KeyValue {
  key: string;
  value?: AnyValue;
}
interface OtlpSpan {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  name?: string;
  kind?: number | string;
  startTimeUnixNano?: string | number;
  endTimeUnixNano?: string | number;
  attributes?: KeyValue[];
  events?: { name?: string; attributes?: KeyValue[] }[];
  status?: { code?: number | string; message?: string };
}

export interface ImportProblem {
  /** Where, inside the file: `resourceSpans[0].scopeSpans[1].spans[3]`. */
  path: string;
  message: string;
}

export interface ImportResult {
  records: DispatchRecord[];
  /** Client spans skipped, with why (no trace id, no start time...). */
  problems: ImportProblem[];
  spans: number;
}

const CLIENT_KIND = new Set<number | string>([3, "3", "SPAN_KIND_CLIENT"]);
const ERROR_STATUS = new Set<number | string>([2, "2", "STATUS_CODE_ERROR"]);

/** The records of one OTLP/JSON document, in the order of their first attempt's start (then trace and span id). */
export function importOtlp(doc: unknown): ImportResult {
  const problems: ImportProblem[] = [];
  const spans: { span: OtlpSpan; path: string; attrs: Map<string, AnyValue> }[] = [];
  const resourceSpans = (doc as { resourceSpans?: unknown })?.resourceSpans;
  if (!Array.isArray(resourceSpans)) return { records: [], problems: [{ path: "", message: "not an OTLP/JSON trace export: it has no resourceSpans list" }], spans: 0 };
  resourceSpans.forEach((rs, r) => {
    const scopes = (rs as { scopeSpans?: unknown })?.scopeSpans;
    if (!Array.isArray(scopes)) return;
    scopes.forEach((ss, s) => {
      const list = (ss as { spans?: unknown })?.spans;
      if (!Array.isArray(list)) return;
      list.forEach((span, i) => {
        if (span && typeof span === "object") spans.push({ span: span as OtlpSpan, path: `resourceSpans[${r}].scopeSpans[${s}].spans[${i}]`, attrs: attributes((span as OtlpSpan).attributes) });
      });
    });
  });
  const byId = new Map<string, (typeof spans)[number]>();
  for (const s of spans) if (s.span.traceId && s.span.spanId) byId.set(`${s.span.traceId}/${s.span.spanId}`, s);

  // Attempts of one call: same trace, same parent, same method and target.
  const calls = new Map<string, { attempts: { span: OtlpSpan; attrs: Map<string, AnyValue>; start: bigint; end: bigint }[]; parent: (typeof spans)[number] | undefined; method: string; target: string }>();
  for (const s of spans) {
    if (!CLIENT_KIND.has(s.span.kind ?? 0)) continue;
    const start = nanos(s.span.startTimeUnixNano);
    const end = nanos(s.span.endTimeUnixNano);
    if (!s.span.traceId || !s.span.spanId || start === undefined || end === undefined) {
      problems.push({ path: s.path, message: "a client span without traceId, spanId, startTimeUnixNano or endTimeUnixNano: skipped" });
      continue;
    }
    const method = text(s.attrs, "http.request.method") ?? text(s.attrs, "http.method") ?? text(s.attrs, "rpc.system") ?? s.span.name ?? "";
    const target = targetOf(s.attrs) ?? s.span.name ?? "";
    const key = `${s.span.traceId}\u0000${s.span.parentSpanId ?? ""}\u0000${method}\u0000${target}`;
    let call = calls.get(key);
    if (!call) {
      call = { attempts: [], parent: s.span.parentSpanId ? byId.get(`${s.span.traceId}/${s.span.parentSpanId}`) : undefined, method, target };
      calls.set(key, call);
    }
    call.attempts.push({ span: s.span, attrs: s.attrs, start, end });
  }

  const records: { record: DispatchRecord; start: bigint }[] = [];
  for (const call of calls.values()) {
    call.attempts.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : resend(a.attrs) - resend(b.attrs)));
    const first = call.attempts[0];
    const responses = call.attempts.map((a) => responseOf(a.span, a.attrs, a.start, a.end));
    const last = responses[responses.length - 1];
    const record: DispatchRecord = {
      apiVersion: "failbook/v1",
      kind: "Record",
      run_id: first.span.traceId!,
      at: isoOf(first.start),
      call: { id: first.span.spanId!, tool: toolOf(first.attrs, call.parent?.attrs, call.method, call.target) },
      responses,
      // What the caller decided is not in the trace; that the call ended well is.
      ...(last.status === "ok" ? { outcome: { kind: responses.length === 1 ? "succeeded" : "recovered", verdict: null, attempts: responses.length } } : {}),
    };
    records.push({ record, start: first.start });
  }
  records.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : cmp(a.record.run_id!, b.record.run_id!) || cmp(a.record.call.id, b.record.call.id)));
  return { records: records.map((r) => r.record), problems, spans: spans.length };
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function responseOf(span: OtlpSpan, attrs: Map<string, AnyValue>, start: bigint, end: bigint): Response {
  // The record schema bounds a latency at a day.
  const latency_ms = Math.min(86_400_000, Number((end > start ? end - start : 0n) / 1_000_000n));
  const errorType = text(attrs, "error.type");
  const failed = errorType !== undefined || ERROR_STATUS.has(span.status?.code ?? 0);
  if (!failed) return { status: "ok", value: true, latency_ms };
  const error: AdapterError = { kind: errorType ?? "_OTHER" };
  const status = integer(attrs, "http.response.status_code") ?? integer(attrs, "http.status_code");
  if (status !== undefined && status >= 100 && status <= 999) error.http_status = status;
  const exception = span.events?.find((e) => e.name === "exception");
  const message = exception ? text(attributes(exception.attributes), "exception.message") : undefined;
  if (message !== undefined) error.message = message;
  else if (span.status?.message) error.message = span.status.message;
  const headers = responseHeaders(attrs);
  if (headers) error.headers = headers;
  return { status: "error", error, latency_ms };
}

/** `http.response.header.<name>` attributes (string arrays by the conventions) as the error's headers. */
function responseHeaders(attrs: Map<string, AnyValue>): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  const prefix = "http.response.header.";
  for (const [key, value] of attrs) {
    if (!key.startsWith(prefix) || key.length === prefix.length || key.slice(prefix.length) === "__proto__") continue;
    const v = value.arrayValue?.values?.map(scalar).filter((x): x is string => x !== undefined).join(", ") ?? scalar(value);
    if (v !== undefined) (out ??= {})[key.slice(prefix.length)] = v;
  }
  return out;
}

function toolOf(attrs: Map<string, AnyValue>, parent: Map<string, AnyValue> | undefined, method: string, target: string): string {
  const tool = text(attrs, "gen_ai.tool.name") ?? (parent && text(parent, "gen_ai.tool.name")) ?? text(attrs, "rpc.method");
  if (tool) return tool;
  const route = text(attrs, "http.route") ?? target;
  return `${method} ${route}`.trim() || "unknown";
}

/** The call's target: the URL without its query (a query may hold a secret and makes every call look distinct), else host and route. */
function targetOf(attrs: Map<string, AnyValue>): string | undefined {
  const url = text(attrs, "url.full") ?? text(attrs, "http.url");
  if (url) return url.replace(/[?#].*$/s, "");
  const host = text(attrs, "server.address");
  const path = text(attrs, "http.route") ?? text(attrs, "url.path") ?? text(attrs, "url.template");
  const rpc = [text(attrs, "rpc.service"), text(attrs, "rpc.method")].filter(Boolean).join("/");
  const joined = [host, path ?? rpc].filter(Boolean).join("");
  return joined === "" ? undefined : joined;
}

function attributes(list: KeyValue[] | undefined): Map<string, AnyValue> {
  const out = new Map<string, AnyValue>();
  if (Array.isArray(list)) for (const kv of list) if (kv && typeof kv.key === "string" && kv.value && typeof kv.value === "object") out.set(kv.key, kv.value);
  return out;
}

function scalar(v: AnyValue): string | undefined {
  if (typeof v.stringValue === "string") return v.stringValue;
  if (v.intValue !== undefined) return String(v.intValue);
  if (typeof v.doubleValue === "number") return String(v.doubleValue);
  if (typeof v.boolValue === "boolean") return String(v.boolValue);
  return undefined;
}

const text = (attrs: Map<string, AnyValue>, key: string): string | undefined => {
  const v = attrs.get(key);
  return v === undefined ? undefined : scalar(v);
};

function integer(attrs: Map<string, AnyValue>, key: string): number | undefined {
  const v = attrs.get(key);
  const n = v === undefined ? NaN : Number(v.intValue ?? v.doubleValue ?? v.stringValue);
  return Number.isInteger(n) ? n : undefined;
}

const resend = (attrs: Map<string, AnyValue>): number => integer(attrs, "http.request.resend_count") ?? 0;

function nanos(value: string | number | undefined): bigint | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return BigInt(Math.trunc(value));
  if (typeof value === "string" && /^\d{1,30}$/.test(value)) return BigInt(value);
  return undefined;
}

function isoOf(ns: bigint): string {
  const ms = Number(ns / 1_000_000n);
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? new Date(0).toISOString() : date.toISOString();
}
