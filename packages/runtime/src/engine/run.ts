/**
 * The run loop of one dispatch (SPEC 4): attempt, observe, classify, apply the
 * same-verdict ceiling, hand the failure to its verdict's action (engine/actions/), and
 * dress the end as an outcome. It only sequences; every decision lives in an action, a guard
 * or a policy (engine/policies/: attempt timeouts, circuit breakers, budget, throttling).
 */
import type { AdapterError, Call, Response } from "../model/fixture.js";
import type { AttemptError, DispatchEvent, Outcome, UnstampedEvent } from "../model/outcome.js";
import { runAction } from "./actions/index.js";
import { actionFor, EMPTY_RESPONSE, endOf, isIdempotent, type CallTurn, type End, type FinalKind, type RunContext, type ShownCall } from "./call.js";
import { CAUSE_DEPTH } from "./classifier.js";
import { classify, verdictByCode } from "./classify.js";
import type { AttemptContext, AttemptFn, DispatchResult, DispatchSettings } from "./dispatch.js";
import { buildEnvelope, buildPacket, type EndFacts } from "./envelope.js";
import { idempotencyKey } from "./idempotency.js";
import { sendWithin } from "./policies/attempt-timeout.js";
import { circuitOpenError, type Admission, type CountedFailure } from "./policies/breakers.js";
import type { SharedPolicies } from "./policies/index.js";
import type { RetryQuotaBucket } from "./quota.js";
import { redactValue, type Redactor } from "./redact.js";
import type { BudgetLedger } from "./retry.js";

type Failed = { kind: "failed"; error: AdapterError | null };
type Observed = { kind: "ok" } | { kind: "needs_input"; question: string | null } | Failed;

const PLAIN_CONTEXT: AttemptContext = Object.freeze({ fallback: false });
const FALLBACK_CONTEXT: AttemptContext = Object.freeze({ fallback: true });

export class DispatchRun implements RunContext {
  private readonly events: DispatchEvent[] = [];
  private readonly errors: AttemptError[] = [];
  private attempts = 0;
  private retried = 0;
  /** The tokens each retry of this dispatch took from the quota, for the refund. */
  private quotaCosts: number[] | undefined;
  private verdict: string | null = null;
  private error: AdapterError | null = null;
  private readonly startedAt: number;
  private attemptFn: AttemptFn | undefined;
  /** From the dispatch's first retry to its end: a retry in progress, for the retry budget. */
  retrying = false;

  constructor(
    private readonly o: DispatchSettings,
    readonly redact: Redactor,
    readonly ledger: BudgetLedger,
    readonly quota: RetryQuotaBucket | undefined,
    readonly policies: SharedPolicies,
    private readonly runId: string,
    private readonly label: string | undefined,
  ) {
    this.startedAt = o.clock.now();
  }

  get registry() {
    return this.o.registry;
  }
  get playbook() {
    return this.o.playbook;
  }
  get clock() {
    return this.o.clock;
  }
  get random() {
    return this.o.random;
  }
  get effects() {
    return this.o.effects;
  }
  get escalationQueue(): string {
    return this.redact(this.o.playbook.escalation_queue ?? "default");
  }

  /** Stamp an event with the run's time and the call's label, and record it. */
  emit(body: UnstampedEvent): void {
    const t = this.o.clock.now() - this.ledger.startedAt;
    // Keys in the order outputs show them: t, type, the call's label, then the body's own.
    const event = (this.label === undefined ? { t, ...body } : labelled(t, this.label, body)) as DispatchEvent;
    this.events.push(event);
    this.o.onEvent?.(event);
  }

  countRetry(delayMs: number, quotaCost: number | undefined): void {
    this.ledger.retries++;
    this.ledger.backoffMs += delayMs;
    this.retried++;
    if (quotaCost !== undefined && this.quota !== undefined) {
      this.quota.take(quotaCost);
      (this.quotaCosts ??= []).push(quotaCost);
    }
    if (!this.retrying) {
      this.retrying = true;
      this.policies.budget?.retryStarted();
    }
  }

  callAgain(call: Call, depth: number): Promise<End> {
    return this.call(call, this.attemptFn!, depth);
  }

  /** One call (and its fallback), attempt by attempt, until an action ends it. */
  async call(call: Call, attempt: AttemptFn, depth: number): Promise<End> {
    this.attemptFn = attempt;
    const key = idempotencyKey(this.runId, call);
    const turn: CallTurn = {
      call,
      // A derived key is hex: only a key the caller brought can hold a secret.
      shownKey: call.idempotency_key === undefined ? key : this.redact(key),
      shown: { tool: this.redact(call.tool), id: this.redact(call.id) },
      idempotent: isIdempotent(this.o.playbook, call),
      depth,
      retries: 0,
      lastDelay: undefined,
      retriesOf: undefined,
      previousDelay: undefined,
      hint: undefined,
      rebuilt: undefined,
    };
    const { breakers, throttle } = this.policies;
    const timeoutMs = this.policies.timeouts?.forTool(call.tool);
    // Attempts sent to the upstream: what the attempt function numbers (a short-circuited one is not sent).
    let sent = 0;
    for (let n = 1; ; n++) {
      const before = this.o.clock.now();
      const admission = breakers?.admit(call.tool, turn.shown.tool, before, this.emitter);
      let observed: Failed;
      if (admission?.blockedBy !== undefined) observed = this.shortCircuited(n, turn, admission.blockedBy);
      else {
        this.attempts++;
        const hint = turn.hint;
        let context = depth > 0 ? (hint === undefined ? FALLBACK_CONTEXT : { fallback: true, hint }) : hint === undefined ? PLAIN_CONTEXT : { fallback: false, hint };
        if (turn.rebuilt?.action === "refresh_credentials") context = { ...context, refreshed: "credentials" };
        let response: Response;
        try {
          response = await this.send(call, ++sent, key, context, attempt, timeoutMs);
        } catch (e) {
          if (admission !== undefined) breakers!.abandon(admission, this.o.clock.now());
          throw e;
        }
        const answer = this.observed(n, turn.shownKey, turn.shown, response, before);
        if (answer.kind !== "failed") {
          this.answered(admission, turn, null);
          if (answer.kind === "ok") return endOf(turn, n === 1 ? "succeeded" : "recovered");
          return endOf(turn, "needs_input", { reason: answer.question === null ? null : this.redact(answer.question) });
        }
        observed = answer;
      }

      const { verdict: code } = classify(this.o.registry, observed.error ?? undefined, call.tool, this.o.playbook);
      const action = actionFor(this.o.playbook, code);
      this.verdict = code;
      this.emit({ type: "failure_classified", verdict: code, attempt: n, action: action?.action ?? null });
      if (admission?.blockedBy === undefined && (breakers !== undefined || throttle !== undefined)) {
        const verdict = verdictByCode(this.o.registry, code);
        this.answered(admission, turn, { verdictClass: verdict?.class, retryable: verdict?.retryable === true, errorKind: observed.error?.kind });
      }

      const seen = (this.ledger.verdictCounts.get(code) ?? 0) + 1;
      this.ledger.verdictCounts.set(code, seen);
      const ceiling = this.o.playbook.budgets?.same_verdict_ceiling;
      if (ceiling !== undefined && seen >= ceiling) {
        this.emit({ type: "budget_exhausted", budget: "same_verdict_ceiling", limit: ceiling, verdict: code });
        return endOf(turn, "escalated", { queue: this.escalationQueue, reason: "same_verdict_ceiling" });
      }
      if (turn.rebuilt) return endOf(turn, "deprecated", { reason: "post-refresh retry still failing", replan: true });
      if (!action) return endOf(turn, "escalated", { queue: this.escalationQueue, reason: "no_action" });

      const step = await runAction(this, turn, { code, n, error: observed.error }, action);
      if (step !== "next_attempt") return step;
    }
  }

  private readonly emitter = (event: UnstampedEvent): void => this.emit(event);

  /** Send one attempt, within its timeout when one applies (SPEC 18). */
  private send(call: Call, n: number, key: string, context: AttemptContext, attempt: AttemptFn, timeoutMs: number | undefined): Promise<Response> | Response {
    if (timeoutMs === undefined) return attempt(call, n, key, context);
    return sendWithin(this.o.clock, timeoutMs, (signal) => attempt(call, n, key, { ...context, signal }));
  }

  /** An attempt answered: the breakers guarding its tool and retry throttling hear how (`failure` null: it did not fail). */
  private answered(admission: Admission | undefined, turn: CallTurn, failure: CountedFailure | null): void {
    if (admission !== undefined) this.policies.breakers!.record(admission, turn.shown.tool, this.o.clock.now(), failure, this.emitter);
    const throttle = this.policies.throttle;
    if (throttle === undefined) return;
    if (failure === null) throttle.succeeded();
    else if (failure.retryable) throttle.failed();
  }

  /** An attempt an open breaker did not let through: an `attempt` event, not sent and not counted. */
  private shortCircuited(n: number, turn: CallTurn, breaker: string): Failed {
    const error = circuitOpenError(breaker);
    this.error = error;
    this.emit({ type: "attempt", n, status: "error", idempotency_key: turn.shownKey, latency_ms: 0, error_kind: error.kind, short_circuited: true });
    this.errors.push({ attempt: n, t: this.o.clock.now() - this.ledger.startedAt, tool: turn.shown.tool, error });
    return { kind: "failed", error };
  }

  /** What an attempt's response means, recorded as its `attempt` event (and error). */
  private observed(n: number, shownKey: string, shown: ShownCall, response: Response, before: number): Observed {
    const latency = this.o.clock.now() - before;
    const observed = observe(response, this.o.playbook.empty_response_is_failure ?? false);
    if (observed.kind === "ok") {
      this.emit({ type: "attempt", n, status: "ok", idempotency_key: shownKey, latency_ms: latency });
      return observed;
    }
    if (observed.kind === "needs_input") {
      this.emit({ type: "attempt", n, status: "needs_input", idempotency_key: shownKey, latency_ms: latency });
      return observed;
    }
    // Redacted once: the event, the dead-letter errors and the envelope all show this copy.
    const error = observed.error === null ? null : shownError(observed.error, this.redact);
    this.error = error;
    this.emit({ type: "attempt", n, status: "error", idempotency_key: shownKey, latency_ms: latency, ...(error ? { error_kind: error.kind } : {}) });
    this.errors.push({ attempt: n, t: this.o.clock.now() - this.ledger.startedAt, tool: shown.tool, error });
    return observed;
  }

  /** Settle the quota, apply on_exhausted, emit the closing event, dress the end as an outcome. */
  finish(end: End): DispatchResult {
    const { registry, playbook } = this.o;
    if (this.quota !== undefined && (end.kind === "succeeded" || end.kind === "recovered")) this.quota.settle(this.quotaCosts ?? []);
    let kind: FinalKind = end.kind;
    let queue = end.queue;
    if (kind === "exhausted" && playbook.on_exhausted) {
      kind = playbook.on_exhausted.action === "escalate_to_human" ? "escalated" : "dead_lettered";
      queue = playbook.on_exhausted.queue === undefined ? this.escalationQueue : this.redact(playbook.on_exhausted.queue);
    }
    if (kind === "escalated" && queue !== null) this.emit({ type: "escalated", queue, reason: end.reason });
    if (kind === "dead_lettered" && queue !== null) this.emit({ type: "dead_lettered", queue });

    const elapsed = this.o.clock.now() - this.startedAt;
    const facts: EndFacts = {
      kind,
      call: end.shown,
      idempotencyKey: end.key,
      idempotent: end.idempotent,
      verdict: this.verdict,
      error: this.error,
      reason: end.reason,
      replan: end.replan,
      queue,
      attempts: this.attempts,
      retried: this.retried,
      elapsedMs: elapsed,
    };
    const envelope = buildEnvelope(registry, facts, this.redact);
    const packet = kind === "escalated" && queue !== null ? buildPacket(registry, facts, queue, this.redact) : null;
    const outcome: Outcome = {
      kind,
      verdict: this.verdict,
      attempts: this.attempts,
      retried: this.retried,
      elapsed_ms: elapsed,
      reason: end.reason,
      queue,
      replan: end.replan,
      exhausted: end.exhausted,
      envelope,
      packet,
    };
    if (kind === "dead_lettered" && queue !== null) {
      outcome.dead_letters = [
        {
          queue,
          call: redactValue(end.call, this.redact),
          step: null,
          errors: this.errors,
          envelope,
          first_attempt_ms: this.errors[0]?.t ?? null,
          dead_lettered_ms: this.o.clock.now() - this.ledger.startedAt,
        },
      ];
    }
    // Everything in the outcome, the events and the errors was redacted as it came in.
    return { outcome, events: this.events, errors: this.errors, idempotencyKey: end.key };
  }

  /** Hand the escalation and the dead letters to production's effects. */
  async applyEffects(outcome: Outcome): Promise<void> {
    const effects = this.o.effects;
    if (outcome.packet) await effects?.escalate?.(outcome.packet);
    for (const entry of outcome.dead_letters ?? []) await effects?.deadLetter?.(entry);
  }
}

/** An adapter error as outputs show it: every string from outside redacted. Classification reads the original. */
function shownError(error: AdapterError, redact: Redactor, depth = 0): AdapterError {
  const out: AdapterError = { ...error, kind: redact(error.kind) };
  if (error.message !== undefined) out.message = redact(error.message);
  if (error.provider_code !== undefined) out.provider_code = redact(error.provider_code);
  if (error.headers !== undefined) out.headers = redactValue(error.headers, redact);
  if (error.fields !== undefined) out.fields = redactValue(error.fields, redact);
  if (error.cause !== undefined) {
    if (depth < CAUSE_DEPTH && error.cause !== null && typeof error.cause === "object") out.cause = shownError(error.cause, redact, depth + 1);
    else delete out.cause;
  }
  return out;
}

function labelled(t: number, call: string, body: UnstampedEvent): DispatchEvent {
  const { type, ...rest } = body;
  return { t, type, call, ...rest } as DispatchEvent;
}

function observe(response: Response, emptyIsFailure: boolean): Observed {
  switch (response.status) {
    case "ok":
      if (emptyIsFailure && (response.value === undefined || response.value === null)) {
        return { kind: "failed", error: EMPTY_RESPONSE };
      }
      return { kind: "ok" };
    case "needs_input":
      return { kind: "needs_input", question: response.question ?? null };
    case "error":
      return { kind: "failed", error: response.error ?? null };
    default: {
      const never: never = response;
      throw new Error(`unhandled response: ${JSON.stringify(never)}`);
    }
  }
}
