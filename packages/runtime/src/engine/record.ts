/**
 * The production sink of SPEC 14: a dispatch given `record` reports what it saw as one
 * record (the call, the attempts in order with their latencies, what it decided), redacted,
 * so that a month of production can be replayed against a playbook edit.
 */
import type { AdapterError, Call, Response } from "../model/fixture.js";
import type { Outcome } from "../model/outcome.js";
import type { DispatchRecord } from "../model/record.js";
import type { Clock } from "./clock.js";
import type { AttemptFn } from "./dispatch.js";
import { ATTEMPT_TIMEOUT } from "./policies/attempt-timeout.js";
import { adapterErrorOf, schemaError } from "./adapter-error.js";
import { redactDeep, type Redactor } from "./redact.js";

export interface Recording {
  /** The caller's attempt function, noting each response as it comes back. */
  attempt: AttemptFn;
  /**
   * An attempt an open breaker stopped before it was sent: recorded as the error the
   * dispatcher saw (`circuit_open`, no latency), so the record replays to the same end.
   */
  blocked(fallback: boolean, error: AdapterError): void;
  /** The record of the finished dispatch, every string from outside redacted. */
  finish(call: Call, runId: string | undefined, outcome: Outcome, redact: Redactor): DispatchRecord;
}

export function startRecording(attempt: AttemptFn, clock: Clock): Recording {
  const startedAt = clock.epochMs?.();
  // An attempt's place is taken when it is sent: one that outlives its timeout (SPEC 18) may
  // answer after the next was sent, or never; until it answers its place holds when it was sent.
  const responses: (Response | number)[] = [];
  const fallbacks: (Response | number)[] = [];
  return {
    async attempt(call, n, key, context) {
      const before = clock.now();
      const list = context.fallback ? fallbacks : responses;
      const slot = list.push(before) - 1;
      const response = await attempt(call, n, key, context);
      list[slot] = recorded(response, clock.now() - before);
      return response;
    },
    blocked(fallback, error) {
      (fallback ? fallbacks : responses).push({ status: "error", error: schemaError(error), latency_ms: 0 });
    },
    finish(call, runId, outcome, redact) {
      const now = clock.now();
      // Still unanswered: it timed out, as the dispatcher saw it, after all the time it has taken so far.
      const settled = (list: (Response | number)[]): Response[] =>
        list.map((r) => (typeof r === "number" ? { status: "error", error: ATTEMPT_TIMEOUT, latency_ms: Math.max(0, Math.round(now - r)) } : r));
      return redactRecord({
        apiVersion: "failbook/v1",
        kind: "Record",
        ...(runId === undefined ? {} : { run_id: redact(runId) }),
        ...(startedAt === undefined ? {} : { at: new Date(startedAt).toISOString() }),
        call: redactDeep(call, redact),
        responses: redactDeep(settled(responses), redact),
        ...(fallbacks.length === 0 ? {} : { fallback_responses: redactDeep(settled(fallbacks), redact) }),
        outcome: { kind: outcome.kind, verdict: outcome.verdict, attempts: outcome.attempts, retried: outcome.retried, reason: outcome.reason },
      }, redact);
    },
  };
}

/**
 * A secret can hide in a value whose key names it (`"password": "hunter2"`): the redactor
 * sees that only in the record's JSON text, so the text is redacted too. Should that ever
 * not parse back, the call's arguments are dropped rather than risked.
 */
function redactRecord(record: DispatchRecord, redact: Redactor): DispatchRecord {
  const text = JSON.stringify(record);
  const clean = redact(text);
  if (clean === text) return record;
  try {
    return JSON.parse(clean) as DispatchRecord;
  } catch {
    return { ...record, call: { ...record.call, args: {} } };
  }
}

/**
 * A response as a record keeps it: its latency as measured (unless it named its own), and
 * of an ok response's value only whether there was one (`true`), which is all a replay
 * reads (`empty_response_is_failure`): a production payload stays in production.
 */
/** The schema's ceiling on a response's latency: a day. */
const MAX_LATENCY_MS = 86_400_000;

function recorded(response: Response, measuredMs: number): Response {
  const own = response.latency_ms;
  const latency_ms = Number.isInteger(own) && own! >= 0 && own! <= MAX_LATENCY_MS ? own! : Math.min(MAX_LATENCY_MS, Math.max(0, Math.round(measuredMs)));
  switch (response.status) {
    case "ok":
      return response.value === undefined || response.value === null ? { status: "ok", latency_ms } : { status: "ok", value: true, latency_ms };
    case "error": {
      // Its schema shape: a record of any adapter's error replays (no cycle, no SDK request object, no value of the wrong type).
      const error = adapterErrorOf(response.error);
      return error === null ? { status: "error", latency_ms } : { status: "error", error: schemaError(error), latency_ms };
    }
    case "needs_input":
      return typeof response.question !== "string" ? { status: "needs_input", latency_ms } : { status: "needs_input", question: response.question, latency_ms };
  }
}
