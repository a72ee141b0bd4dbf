/**
 * retry_with_backoff and retry_with_hint (SPEC 4 step 5, SPEC 12): the guards decide
 * (engine/retry.ts), this sequences them with the clock, the quota and the events.
 */
import { honorsRetryAfter, retryAfterPolicyOf, type RetryAction } from "../../model/playbook.js";
import { endOf, type CallTurn, type Failure, type RunContext, type Step } from "../call.js";
import { verdictByCode } from "../classify.js";
import { decideRetry, refusedRetry } from "../retry.js";
import { readRetryAfter } from "../retry-after.js";

export async function retry(run: RunContext, turn: CallTurn, failure: Failure, action: RetryAction): Promise<Step> {
  const { registry, playbook } = run;
  const { code, error } = failure;
  const verdict = verdictByCode(registry, code);
  const perCall = playbook.backoff_index === "per_call";
  const honor = honorsRetryAfter(playbook);
  const policy = retryAfterPolicyOf(playbook, action);
  let hintMs: number | undefined;
  let hintInvalid = false;
  if (honor) {
    const reading = readRetryAfter(error, policy, run.clock.epochMs?.() ?? run.clock.now());
    for (const { header, value } of reading.unreadable) run.emit({ type: "retry_after_unreadable", header: run.redact(header), value: run.redact(value) });
    hintMs = reading.hintMs;
    hintInvalid = reading.invalid !== undefined;
  }
  const decision = decideRetry({
    action,
    verdict,
    classMaxRetries: verdict ? registry.classes[verdict.class]?.max_retries : undefined,
    idempotent: turn.idempotent,
    hedged: turn.hedged,
    error,
    retriesOfVerdict: turn.retriesOf?.get(code) ?? 0,
    retriesOfCall: turn.retries,
    backoffIndex: perCall ? turn.retries : (turn.retriesOf?.get(code) ?? 0),
    previousDelay: perCall ? turn.lastDelay : turn.previousDelay?.get(code),
    ledger: run.ledger,
    elapsedMs: run.clock.now() - run.ledger.startedAt,
    budgets: playbook.budgets ?? {},
    retryAfter: honor ? policy : false,
    hintMs,
    hintInvalid,
    quota: run.quota,
    budget: run.policies.budget,
    retrying: run.retrying,
    throttle: run.policies.throttle,
    random: run.random,
  });
  if (decision.kind !== "retry") {
    const { end, reason, queue, event } = refusedRetry(playbook, decision, error, verdict, code);
    run.emit(event);
    return endOf(turn, end, { reason, exhausted: end === "exhausted", ...(queue === undefined ? {} : { queue: run.redact(queue) }) });
  }
  const { delayMs } = decision;
  const deadline = run.stop?.deadline;
  if (deadline !== undefined && run.clock.now() + delayMs > deadline) {
    run.emit({ type: "retry_suppressed", reason: "deadline", verdict: code });
    return endOf(turn, "exhausted", { reason: "deadline", exhausted: true, stopped: true });
  }
  turn.retriesOf ??= new Map();
  turn.previousDelay ??= new Map();
  turn.retriesOf.set(code, (turn.retriesOf.get(code) ?? 0) + 1);
  turn.previousDelay.set(code, delayMs);
  turn.retries++;
  turn.lastDelay = delayMs;
  run.countRetry(delayMs, decision.quotaCost);
  turn.hint = action.action === "retry_with_hint" ? run.redact(action.hint) : undefined;
  run.emit({ type: "retry_scheduled", attempt: failure.n + 1, delay_ms: delayMs, verdict: code, ...(turn.hint === undefined ? {} : { hint: turn.hint }) });
  await run.clock.sleep(delayMs, run.stop?.attemptSignal);
  run.stop?.throwIfStopped(false);
  return "next_attempt";
}
