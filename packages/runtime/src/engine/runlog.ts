/**
 * A run of several dispatches (saga steps, compensations, waves): one budget ledger, one
 * event stream on one time line, running totals for the fixture's outcome.
 */
import type { CallSummary, DispatchEvent, Envelope, Outcome, OutcomeKind, UnstampedEvent } from "../model/outcome.js";
import type { Dispatcher, DispatchResult } from "./dispatch.js";
import type { BudgetLedger } from "./retry.js";

/** The outcome and decision events of a whole fixture (or of one production run). */
export interface RunResult {
  outcome: Outcome;
  events: DispatchEvent[];
}

export class RunLog {
  readonly events: DispatchEvent[] = [];
  readonly ledger: BudgetLedger;
  attempts = 0;
  retried = 0;
  /** The last classified verdict of the run. */
  verdict: string | null = null;

  constructor(private readonly dispatcher: Dispatcher) {
    this.ledger = dispatcher.newLedger();
  }

  add(result: DispatchResult): void {
    this.events.push(...result.events);
    this.attempts += result.outcome.attempts;
    this.retried += result.outcome.retried;
    for (const e of result.events) if (e.type === "failure_classified") this.verdict = e.verdict;
  }

  /** An event of the run itself (not of one dispatch), on the run's time line. */
  emit(event: UnstampedEvent): void {
    this.events.push({ t: this.elapsed, ...event } as DispatchEvent);
  }

  get elapsed(): number {
    return this.dispatcher.clock.now() - this.ledger.startedAt;
  }

  /** The run's outcome: `base`'s fields, with the run's totals and `kind`. */
  outcome(kind: OutcomeKind, base: Outcome, extra: Partial<Outcome>): Outcome {
    return {
      ...base,
      kind,
      verdict: this.verdict,
      attempts: this.attempts,
      retried: this.retried,
      elapsed_ms: this.elapsed,
      envelope: withOutcome(base.envelope, kind),
      ...extra,
    };
  }
}

export function summarize(id: string, outcome: Outcome): CallSummary {
  return {
    id,
    kind: outcome.kind,
    verdict: outcome.verdict,
    attempts: outcome.attempts,
    retried: outcome.retried,
    elapsed_ms: outcome.elapsed_ms,
    reason: outcome.reason,
    queue: outcome.queue,
  };
}

function withOutcome(envelope: Envelope, kind: OutcomeKind): Envelope {
  return { ...envelope, outcome: kind, ok: kind === "succeeded" || kind === "recovered" };
}
