/**
 * Several steps (SPEC 5.2). The first step that does not succeed stops the rest; with
 * compensation on, the steps that succeeded are undone in reverse order, each undo itself
 * dispatched; an undo that fails goes to the dead-letter queue, and the others still run.
 * The outcome's verdict is the failed step's (SPEC 13); each step and compensation keeps its own.
 */
import type { Call } from "../model/fixture.js";
import type { Playbook } from "../model/playbook.js";
import { isSuccess, type CallSummary, type DeadLetterEntry } from "../model/outcome.js";
import type { AttemptFn, Dispatcher, DispatchResult } from "./dispatch.js";
import { RunLog, summarize, type RunResult } from "./runlog.js";

export interface SagaStep {
  call: Call;
  attempt: AttemptFn;
  compensation?: { call: Call; attempt: AttemptFn };
}

export interface SagaOptions {
  runId: string;
  /** Undo the steps that succeeded when a later one fails (default: the playbook's saga setting). */
  compensate?: boolean;
}

export async function runSteps(dispatcher: Dispatcher, steps: readonly SagaStep[], options: SagaOptions): Promise<RunResult> {
  if (steps.length === 0) throw new RangeError("a saga needs at least one step");
  const log = new RunLog(dispatcher);
  const dispatchOptions = { runId: options.runId, ledger: log.ledger, label: true };
  const summaries: CallSummary[] = [];
  const done: SagaStep[] = [];
  let last: DispatchResult | undefined;
  for (const step of steps) {
    last = await dispatcher.dispatch(step.call, step.attempt, dispatchOptions);
    log.add(last);
    summaries.push(summarize(step.call.id, last.outcome));
    if (!isSuccess(last.outcome.kind)) break;
    done.push(step);
  }
  if (!last) throw new RangeError("a saga needs at least one step");
  const failed = last;
  if (isSuccess(failed.outcome.kind)) {
    const kind = summaries.some((s) => s.kind === "recovered") ? "recovered" : "succeeded";
    return { outcome: log.outcome(kind, failed.outcome, { steps: summaries, compensations: [] }), events: log.events };
  }
  const compensate = options.compensate ?? dispatcher.playbook.saga?.compensate_on_failure ?? false;
  if (!compensate) return { outcome: log.outcome(failed.outcome.kind, failed.outcome, { steps: summaries, compensations: [] }), events: log.events };

  // The outcome names the trigger: the verdict of the step that failed, not the last one a compensation saw.
  const verdict = failed.outcome.verdict;
  const queue = deadLetterQueue(dispatcher.playbook);
  const compensations: CallSummary[] = [];
  const deadLetters: DeadLetterEntry[] = [];
  for (const step of [...done].reverse()) {
    if (!step.compensation) continue;
    const { call, attempt } = step.compensation;
    log.emit({ type: "compensation_started", call: call.id, step: step.call.id });
    const result = await dispatcher.dispatch(call, attempt, dispatchOptions);
    log.add(result);
    compensations.push(summarize(call.id, result.outcome));
    if (isSuccess(result.outcome.kind)) continue;
    log.emit({ type: "compensation_failed", call: call.id, step: step.call.id, kind: result.outcome.kind, queue });
    deadLetters.push(
      await dispatcher.deadLetter({
        queue,
        call,
        step: step.call.id,
        errors: result.errors,
        envelope: result.outcome.envelope,
        first_attempt_ms: result.errors[0]?.t ?? null,
        dead_lettered_ms: log.elapsed,
      }),
    );
  }
  if (deadLetters.length === 0) {
    return { outcome: log.outcome("compensated", failed.outcome, { verdict, queue: null, steps: summaries, compensations }), events: log.events };
  }
  return {
    outcome: log.outcome("dead_lettered", failed.outcome, {
      verdict,
      reason: "compensation_failed",
      queue,
      steps: summaries,
      compensations,
      dead_letters: [...(failed.outcome.dead_letters ?? []), ...deadLetters],
    }),
    events: log.events,
  };
}

/** Where a failed compensation goes: the playbook's dead-letter queue when it names one, else its escalation queue. */
export function deadLetterQueue(playbook: Playbook): string {
  const fallback = playbook.escalation_queue ?? "default";
  return playbook.on_exhausted?.action === "dead_letter" ? (playbook.on_exhausted.queue ?? fallback) : fallback;
}
