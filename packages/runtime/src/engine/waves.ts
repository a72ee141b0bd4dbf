/**
 * Waves of calls (SPEC 5.3): one phase with shared budgets. After a wave in which enough
 * calls met a failure of the throttle's class, the next wave runs with less parallelism,
 * so a rate-limit storm is not fed by the runtime's own retries (seed 003).
 */
import type { Call } from "../model/fixture.js";
import { isSuccess, type CallSummary, type DispatchEvent, type Outcome } from "../model/outcome.js";
import { verdictByCode } from "./classify.js";
import type { AttemptFn, Dispatcher, DispatchResult } from "./dispatch.js";
import { RunLog, summarize, type RunResult } from "./runlog.js";

export interface WaveCall {
  call: Call;
  attempt: AttemptFn;
}

export interface WaveOptions {
  runId: string;
  /** Parallelism of the first wave (default: the size of the largest wave). */
  parallelism?: number;
}

/** Calls run in listed order; the parallelism of each wave is decided and recorded. */
export async function runWaves(dispatcher: Dispatcher, waves: readonly (readonly WaveCall[])[], options: WaveOptions): Promise<RunResult> {
  if (waves.length === 0 || waves.some((w) => w.length === 0)) throw new RangeError("every wave needs at least one call");
  const log = new RunLog(dispatcher);
  const throttle = dispatcher.playbook.throttle;
  const summaries: CallSummary[] = [];
  const results: DispatchResult[] = [];
  const parallelism: number[] = [];
  let p = Math.max(1, options.parallelism ?? Math.max(...waves.map((w) => w.length)));
  for (const wave of waves) {
    parallelism.push(p);
    let throttled = 0;
    for (const { call, attempt } of wave) {
      const result = await dispatcher.dispatch(call, attempt, { runId: options.runId, ledger: log.ledger, label: true });
      log.add(result);
      results.push(result);
      summaries.push(summarize(call.id, result.outcome));
      if (throttle && sawClass(dispatcher, result.events, throttle.class)) throttled++;
    }
    if (throttle && throttled >= throttle.min_failures) p = Math.max(1, Math.floor(p * throttle.factor));
  }
  const failing = results.filter((r) => !isSuccess(r.outcome.kind));
  const base = failing[0] ?? results[results.length - 1];
  if (failing.length === 0) {
    return { outcome: log.outcome("succeeded", base.outcome, { calls: summaries, parallelism }), events: log.events };
  }
  const extra: Partial<Outcome> = {
    reason: `${failing.length} of ${results.length} calls did not succeed`,
    queue: null,
    replan: false,
    exhausted: failing.some((r) => r.outcome.exhausted),
    calls: summaries,
    parallelism,
  };
  const deadLetters = failing.flatMap((r) => r.outcome.dead_letters ?? []);
  if (deadLetters.length > 0) extra.dead_letters = deadLetters;
  return { outcome: log.outcome("failed", base.outcome, extra), events: log.events };
}

function sawClass(dispatcher: Dispatcher, events: readonly DispatchEvent[], cls: string): boolean {
  return events.some((e) => e.type === "failure_classified" && verdictByCode(dispatcher.registry, e.verdict)?.class === cls);
}
