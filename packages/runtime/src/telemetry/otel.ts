/**
 * A dispatch on an OpenTelemetry span: `error.type` is the verdict code when the call ended
 * badly (the semantic conventions' attribute for "the class of error the operation ended
 * with"), the outcome's facts are `failbook.*` attributes, and each decision event becomes a
 * span event `failbook.<type>`. `@opentelemetry/api` is an optional peer dependency, and
 * failbook imports nothing of it, not even its types: the span is described structurally, so
 * a project without the API installs, runs and type-checks failbook, and any span that has
 * these three methods (the API's `Span` does) can be recorded on.
 */
import { isSuccess, type DispatchEvent, type Outcome } from "../model/outcome.js";
import { createRedactor, type Redactor } from "../engine/redact.js";

/** An attribute value as OpenTelemetry types it: a scalar, or a list of one scalar type. */
type AttributeValue = string | number | boolean | Array<null | undefined | string> | Array<null | undefined | number> | Array<null | undefined | boolean>;
type Attributes = { [key: string]: AttributeValue | undefined };

/** The span methods recordOutcome uses, as OpenTelemetry's `Span` declares them. */
export interface OutcomeSpan {
  setAttribute(key: string, value: AttributeValue): unknown;
  addEvent(name: string, attributes?: Attributes, startTime?: number): unknown;
  /** code 2 is the API's SpanStatusCode.ERROR. */
  setStatus(status: { code: 2; message?: string }): unknown;
}

export interface RecordOptions {
  /**
   * When the dispatch started (epoch milliseconds, or any OpenTelemetry time): each event is
   * stamped at that time plus its `t`; without it, at the time it is recorded. Either way
   * its `t` is the attribute `failbook.t_ms`.
   */
  startTime?: number | Date;
  /** Applied to every string recorded (default: the built-in secret patterns). */
  redact?: Redactor;
}

/** The semantic conventions' value of `error.type` when nothing more specific is known. */
const OTHER_ERROR = "_OTHER";
// SpanStatusCode.ERROR, without an import of the API.
const STATUS_ERROR = 2;

/**
 * Record a dispatch (what `dispatcher.dispatch()` returns, or just its outcome) on a span.
 * A failed call sets the span's status to ERROR with the outcome's reason; a call that ended
 * well (succeeded, recovered) leaves the status as it is, as the conventions ask.
 */
export function recordOutcome(span: OutcomeSpan, result: Outcome | { outcome: Outcome; events?: readonly DispatchEvent[] }, options: RecordOptions = {}): void {
  const { outcome, events } = "outcome" in result ? { outcome: result.outcome, events: result.events ?? [] } : { outcome: result, events: [] };
  const redact = options.redact ?? createRedactor();
  const failed = !isSuccess(outcome.kind);
  span.setAttribute("failbook.outcome", outcome.kind);
  if (outcome.verdict !== null) span.setAttribute("failbook.verdict", redact(outcome.verdict));
  span.setAttribute("failbook.attempts", outcome.attempts);
  span.setAttribute("failbook.retried", outcome.retried);
  span.setAttribute("failbook.elapsed_ms", outcome.elapsed_ms);
  span.setAttribute("failbook.exhausted", outcome.exhausted);
  span.setAttribute("failbook.tool", redact(outcome.envelope.tool));
  span.setAttribute("failbook.trace_id", outcome.envelope.trace_id);
  if (outcome.reason !== null) span.setAttribute("failbook.reason", redact(outcome.reason));
  if (outcome.queue !== null) span.setAttribute("failbook.queue", redact(outcome.queue));
  if (outcome.replan) span.setAttribute("failbook.replan", true);
  for (const event of events) span.addEvent(`failbook.${event.type}`, eventAttributes(event, redact), eventTime(options.startTime, event.t));
  if (failed) {
    span.setAttribute("error.type", outcome.verdict === null ? OTHER_ERROR : redact(outcome.verdict));
    span.setStatus({ code: STATUS_ERROR, message: redact(outcome.reason ?? `${outcome.kind}${outcome.verdict === null ? "" : `: ${outcome.verdict}`}`) });
  }
}

/** An event's fields as `failbook.<field>` attributes: scalars as they are, lists of strings as lists. */
function eventAttributes(event: DispatchEvent, redact: Redactor): Attributes {
  const attributes: Attributes = {};
  for (const [key, value] of Object.entries(event)) {
    if (key === "type") continue;
    const recorded = attributeValue(value, redact);
    if (recorded !== undefined) attributes[key === "t" ? "failbook.t_ms" : `failbook.${key}`] = recorded;
  }
  return attributes;
}

function attributeValue(value: unknown, redact: Redactor): AttributeValue | undefined {
  if (typeof value === "string") return redact(value);
  if (typeof value === "number" || typeof value === "boolean") return value;
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value.map((v: string) => redact(v));
  return value === null || value === undefined ? undefined : redact(JSON.stringify(value));
}

function eventTime(start: number | Date | undefined, t: number): number | undefined {
  if (start === undefined) return undefined;
  return (typeof start === "number" ? start : start.getTime()) + t;
}
