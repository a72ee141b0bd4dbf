/**
 * The run loop of one dispatch (SPEC 4): attempt, observe, classify, apply the
 * same-verdict ceiling, hand the failure to its verdict's action (engine/actions/), and
 * dress the end as an outcome. It only sequences; every decision lives in an action, a guard
 * or a policy (engine/policies/: attempt timeouts, circuit breakers, budget, throttling,
 * hedging).
 */
import type { AdapterError, Call, Response } from "../model/fixture.js";
import type { CompensationAction } from "../model/playbook.js";
import type { AttemptError, DispatchEvent, Outcome, UnstampedEvent } from "../model/outcome.js";
import { runAction } from "./actions/index.js";
import { actionFor, EMPTY_RESPONSE, endOf, isIdempotent, type CallTurn, type End, type FinalKind, type RunContext, type ShownCall, type Step } from "./call.js";
import { CAUSE_DEPTH } from "./classifier.js";
import { classify, verdictByCode } from "./classify.js";
import type { AbortSignalOf } from "./clock.js";
import type { AttemptContext, AttemptFn, DispatchResult, DispatchSettings } from "./dispatch.js";
import { buildEnvelope, buildPacket, type EndFacts } from "./envelope.js";
import { idempotencyKey } from "./idempotency.js";
import { sendWithin } from "./policies/attempt-timeout.js";
import { circuitOpenError, type Admission, type CountedFailure } from "./policies/breakers.js";
import { race, type Hedging } from "./policies/hedging.js";
import type { SharedPolicies } from "./policies/index.js";
import type { RetryQuotaBucket } from "./quota.js";
import { redactValue, type Redactor } from "./redact.js";
import type { BudgetLedger } from "./retry.js";

type Failed = { kind: "failed"; error: AdapterError | null };
type Observed = { kind: "ok" } | { kind: "needs_input"; question: string | null } | Failed;
/** A failed attempt, classified: what its verdict's action is handed. */
interface Classified {
  code: string;
  action: CompensationAction | undefined;
  n: number;
  error: AdapterError | null;
}

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
      hedged: undefined,
      rebuilt: undefined,
    };
    const { breakers, hedging } = this.policies;
    const timeoutMs = this.policies.timeouts?.forTool(call.tool);
    // A call that is not idempotent is never hedged (SPEC 18).
    if (hedging !== undefined && turn.idempotent && hedging.hedges(call.tool)) return this.hedgedCall(hedging, turn, key, attempt, timeoutMs);
    // Attempts sent to the upstream: what the attempt function numbers (a short-circuited one is not sent).
    let sent = 0;
    for (let n = 1; ; n++) {
      const before = this.o.clock.now();
      const admission = breakers?.admit(call.tool, turn.shown.tool, before, this.emitter);
      let observed: Failed;
      if (admission?.blockedBy !== undefined) observed = this.shortCircuited(n, turn, admission.blockedBy);
      else {
        this.attempts++;
        let response: Response;
        try {
          response = await this.send(call, ++sent, key, contextOf(turn), attempt, timeoutMs);
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

      const step = await this.afterFailure(turn, this.classified(n, turn, observed.error, admission));
      if (step !== "next_attempt") return step;
    }
  }

  /** A hedged call (SPEC 18): race after race (a rebuild makes another), each numbered after the hedges before it. */
  private async hedgedCall(hedging: Hedging, turn: CallTurn, key: string, attempt: AttemptFn, timeoutMs: number | undefined): Promise<End> {
    let sent = 0;
    const nextSent = () => ++sent;
    for (let n = 1; ; ) {
      const raced = await this.race(hedging, turn, n, key, attempt, timeoutMs, nextSent);
      if ("kind" in raced) return raced;
      const step = await this.afterFailure(turn, raced);
      if (step !== "next_attempt") return step;
      n = raced.last + 1;
    }
  }

  /** A classified failure: the same-verdict ceiling, the end of a rebuilt call, else its verdict's action. */
  private afterFailure(turn: CallTurn, failure: Classified): Promise<Step> | Step {
    const { code, action } = failure;
    const seen = (this.ledger.verdictCounts.get(code) ?? 0) + 1;
    this.ledger.verdictCounts.set(code, seen);
    const ceiling = this.o.playbook.budgets?.same_verdict_ceiling;
    if (ceiling !== undefined && seen >= ceiling) {
      this.emit({ type: "budget_exhausted", budget: "same_verdict_ceiling", limit: ceiling, verdict: code });
      return endOf(turn, "escalated", { queue: this.escalationQueue, reason: "same_verdict_ceiling" });
    }
    if (turn.rebuilt) return endOf(turn, "deprecated", { reason: "post-refresh retry still failing", replan: true });
    if (!action) return endOf(turn, "escalated", { queue: this.escalationQueue, reason: "no_action" });
    return runAction(this, turn, failure, action);
  }

  private readonly emitter = (event: UnstampedEvent): void => this.emit(event);

  /**
   * A failed attempt, classified: its `failure_classified` event; the breakers and retry
   * throttling hear of it when it was sent (`admission` not blocked).
   */
  private classified(n: number, turn: CallTurn, error: AdapterError | null, admission: Admission | undefined): Classified {
    const { verdict: code } = classify(this.o.registry, error ?? undefined, turn.call.tool);
    const action = actionFor(this.o.playbook, code);
    this.verdict = code;
    this.emit({ type: "failure_classified", verdict: code, attempt: n, action: action?.action ?? null });
    if (admission?.blockedBy === undefined && (this.policies.breakers !== undefined || this.policies.throttle !== undefined)) {
      const verdict = verdictByCode(this.o.registry, code);
      this.answered(admission, turn, { verdictClass: verdict?.class, retryable: verdict?.retryable === true, errorKind: error?.kind });
    }
    return { code, action, n, error };
  }

  /**
   * A hedged call's attempts (SPEC 18): policies/hedging.ts runs the race; each hedge is
   * admitted by the breakers, sent within its timeout, observed and classified here. The
   * winner's answer ends the call; a failure that ends the race goes on to its action,
   * which may not retry (`turn.hedged`). `last`: the number of the last hedge sent.
   */
  private async race(hedging: Hedging, turn: CallTurn, first: number, key: string, attempt: AttemptFn, timeoutMs: number | undefined, nextSent: () => number): Promise<End | (Classified & { last: number })> {
    const { call } = turn;
    const { breakers, throttle } = this.policies;
    const admissions: (Admission | undefined)[] = [];
    let won: Observed | undefined;
    let failed: Classified | undefined;
    const ended = await race<Response>(this.o.clock, hedging, {
      send: (i, signal) => {
        const admission = breakers?.admit(call.tool, turn.shown.tool, this.o.clock.now(), this.emitter);
        admissions[i] = admission;
        if (admission?.blockedBy !== undefined) return { status: "error", error: circuitOpenError(admission.blockedBy) };
        this.attempts++;
        const abandon = (e: unknown): never => {
          if (admission !== undefined) breakers!.abandon(admission, this.o.clock.now());
          throw e;
        };
        try {
          const context = i > 1 ? { ...contextOf(turn), hedge: true as const } : contextOf(turn);
          const response = this.send(call, nextSent(), key, context, attempt, timeoutMs, signal);
          return response instanceof Promise ? response.catch(abandon) : response;
        } catch (e) {
          return abandon(e);
        }
      },
      judge: (response, i, sentAt) => {
        const n = first + i - 1;
        const admission = admissions[i];
        const blocked = admission?.blockedBy;
        const answer = blocked !== undefined ? this.shortCircuited(n, turn, blocked, i > 1) : this.observed(n, turn.shownKey, turn.shown, response, sentAt, i > 1);
        if (answer.kind !== "failed") {
          this.answered(admission, turn, null);
          won = answer;
          return "won";
        }
        failed = this.classified(n, turn, answer.error, admission);
        return hedging.isNonFatal(verdictByCode(this.o.registry, failed.code)?.class, failed.code) ? "non_fatal" : "fatal";
      },
      mayHedge: () => throttle === undefined || throttle.allowsRetry(),
      cancelled: (i) => {
        this.emit({ type: "hedge_cancelled", attempt: first + i - 1, ...(i > 1 ? HEDGE : {}) });
        const admission = admissions[i];
        if (admission !== undefined && admission.blockedBy === undefined) breakers!.abandon(admission, this.o.clock.now());
      },
    });
    if (ended.how === "won") {
      const answer = won as Observed;
      if (answer.kind === "needs_input") return endOf(turn, "needs_input", { reason: answer.question === null ? null : this.redact(answer.question) });
      return endOf(turn, first === 1 && failed === undefined ? "succeeded" : "recovered");
    }
    turn.hedged = ended.throttled ? "throttled" : "spent";
    return { ...failed!, last: first + ended.sent - 1 };
  }

  /** Send one attempt, within its timeout when one applies (SPEC 18); `cancel` aborts a hedge the race gave up. */
  private send(call: Call, n: number, key: string, context: AttemptContext, attempt: AttemptFn, timeoutMs: number | undefined, cancel?: AbortSignalOf): Promise<Response> | Response {
    if (timeoutMs === undefined) return attempt(call, n, key, cancel === undefined ? context : { ...context, signal: cancel });
    return sendWithin(this.o.clock, timeoutMs, (signal) => attempt(call, n, key, { ...context, signal }), cancel);
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
  private shortCircuited(n: number, turn: CallTurn, breaker: string, hedge = false): Failed {
    const error = circuitOpenError(breaker);
    this.error = error;
    this.emit({ type: "attempt", n, status: "error", idempotency_key: turn.shownKey, latency_ms: 0, error_kind: error.kind, short_circuited: true, ...(hedge ? HEDGE : {}) });
    this.errors.push({ attempt: n, t: this.o.clock.now() - this.ledger.startedAt, tool: turn.shown.tool, error });
    return { kind: "failed", error };
  }

  /** What an attempt's response means, recorded as its `attempt` event (and error); `hedge`: a hedge after the first attempt. */
  private observed(n: number, shownKey: string, shown: ShownCall, response: Response, before: number, hedge = false): Observed {
    const latency = this.o.clock.now() - before;
    const observed = observe(response, this.o.playbook.empty_response_is_failure ?? false);
    if (observed.kind === "ok") {
      this.emit({ type: "attempt", n, status: "ok", idempotency_key: shownKey, latency_ms: latency, ...(hedge ? HEDGE : {}) });
      return observed;
    }
    if (observed.kind === "needs_input") {
      this.emit({ type: "attempt", n, status: "needs_input", idempotency_key: shownKey, latency_ms: latency, ...(hedge ? HEDGE : {}) });
      return observed;
    }
    // Redacted once: the event, the dead-letter errors and the envelope all show this copy.
    const error = observed.error === null ? null : shownError(observed.error, this.redact);
    this.error = error;
    this.emit({ type: "attempt", n, status: "error", idempotency_key: shownKey, latency_ms: latency, ...(error ? { error_kind: error.kind } : {}), ...(hedge ? HEDGE : {}) });
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

const HEDGE = Object.freeze({ hedge: true as const });

/** What the attempt function is told besides the call: a fallback, a hint, refreshed credentials. */
function contextOf(turn: CallTurn): AttemptContext {
  const hint = turn.hint;
  const context = turn.depth > 0 ? (hint === undefined ? FALLBACK_CONTEXT : { fallback: true, hint }) : hint === undefined ? PLAIN_CONTEXT : { fallback: false, hint };
  return turn.rebuilt?.action === "refresh_credentials" ? { ...context, refreshed: "credentials" } : context;
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
