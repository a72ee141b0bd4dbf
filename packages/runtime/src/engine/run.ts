/**
 * The run loop of one dispatch (SPEC 4): attempt, observe, classify, apply the
 * same-verdict ceiling, hand the failure to its verdict's action (engine/actions/), and
 * dress the end as an outcome. It only sequences; every decision lives in an action, a guard
 * or a policy (engine/policies/: attempt timeouts, circuit breakers, budget, throttling,
 * hedging).
 */
import type { AdapterError, Call, Response } from "../model/fixture.js";
import type { AttemptError, DispatchEvent, Outcome, RecoveryPacket, UnstampedEvent } from "../model/outcome.js";
import type { CompensationAction } from "../model/playbook.js";
import type { Registry } from "../model/registry.js";
import { runAction } from "./actions/index.js";
import { actionFor, EMPTY_RESPONSE, endOf, isIdempotent, type CallTurn, type End, type FinalKind, type RunContext, type ShownCall, type Step } from "./call.js";
import { classify, verdictByCode } from "./classify.js";
import type { AbortSignalOf } from "./clock.js";
import type { AttemptContext, AttemptFn, DispatchResult, DispatchSettings } from "./dispatch.js";
import { buildEnvelope, buildPacket, succeededOutcome, type EndFacts } from "./envelope.js";
import { idempotencyKey } from "./idempotency.js";
import { sendWithin } from "./policies/attempt-timeout.js";
import { circuitOpenError, type Admission, type CountedFailure } from "./policies/breakers.js";
import { race, type Hedging } from "./policies/hedging.js";
import type { SharedPolicies } from "./policies/index.js";
import type { RetryQuotaBucket } from "./quota.js";
import { adapterErrorOf, isPlainObject, plainHeadersOf, shownError } from "./adapter-error.js";
import { isThrottling, rateLimitedError } from "./policies/rate-limits.js";
import { redactDeep, type Redactor } from "./redact.js";
import type { BudgetLedger } from "./retry.js";
import { Stopped, type DispatchStop } from "./stop.js";
import { heard, pace, paceHedge, type PacedRun } from "./pacing.js";

/**
 * What a dispatcher works out once per tool: its name as outputs show it, whether the
 * playbook's `tools` let it be retried, its attempt timeout, whether its idempotent calls
 * are hedged (SPEC 18).
 */
export interface ToolFacts {
  /** The tool's name as calls give it. */
  readonly tool: string;
  readonly shown: string;
  readonly idempotent: boolean;
  readonly timeoutMs: number | undefined;
  readonly hedged: boolean;
  /** Neither hedged nor timed: a first attempt dispatch() may send itself, without a run (`dispatchAtOnce`). */
  readonly direct: boolean;
  /** Rate limits pace its attempts (SPEC 22). */
  readonly paced: boolean;
  /** A rate limit reads its answers (headers, throttling). */
  readonly listened: boolean;
}

/** What every dispatch of a dispatcher shares: its settings, redactor, facts per tool, quota and policies. */
export interface RunShared {
  readonly o: DispatchSettings;
  readonly redact: Redactor;
  /** The dispatcher's facts per tool, filled in as tools appear; the last tool's, also at hand without a lookup. */
  readonly tools: Map<string, ToolFacts>;
  last: ToolFacts | undefined;
  readonly quota: RetryQuotaBucket | undefined;
  readonly policies: SharedPolicies;
  /** The playbook's `empty_response_is_failure`, read once (the playbooks a process holds differ in shape). */
  readonly emptyIsFailure: boolean;
}

/** A tool's facts, worked out once per dispatcher. */
export function toolFactsOf(shared: RunShared, tool: string): ToolFacts {
  if (shared.last?.tool === tool) return shared.last;
  let facts = shared.tools.get(tool);
  if (facts === undefined) {
    const { o, policies } = shared;
    const idempotent = isIdempotent(o.playbook, { id: "", tool });
    const timeoutMs = policies.timeouts?.forTool(tool);
    const hedged = idempotent && policies.hedging?.hedges(tool) === true;
    const limits = policies.rateLimits;
    const paced = limits !== undefined && limits.of(tool).length > 0;
    facts = { tool, shown: shared.redact(tool), idempotent, timeoutMs, hedged, direct: !hedged && timeoutMs === undefined, paced, listened: paced && limits!.listens(tool) };
    if (shared.tools.size >= 4096) shared.tools.clear();
    shared.tools.set(tool, facts);
  }
  return (shared.last = facts);
}

/** A failed attempt (`kind` is none of an outcome's: `answer` returns an End or this). */
export type Failed = { kind: "failure"; error: AdapterError | null };
type Observed = { kind: "ok" } | { kind: "needs_input"; question: string | null } | Failed;
/** A failed attempt, classified: what its verdict's action is handed. */
interface Classified {
  code: string;
  action: CompensationAction | undefined;
  n: number;
  error: AdapterError | null;
}

/** A call's turn as the run loop keeps it: what the actions read, and how its attempts are sent. */
interface Turn extends CallTurn {
  /** The idempotency key the attempt function is given. */
  readonly key: string;
  readonly attempt: AttemptFn;
  readonly timeoutMs: number | undefined;
  /** Attempts sent to the upstream: what the attempt function numbers (a short-circuited one is not sent). */
  sent: number;
  readonly tool: ToolFacts;
}

/** One attempt of a turn: sent (its `response` pending), or stopped by an open breaker (`blocked`). */
export interface Attempt {
  readonly turn: Turn;
  readonly n: number;
  /** The clock when it was sent. */
  readonly before: number;
  readonly admission: Admission | undefined;
  readonly response: Promise<Response> | Response | undefined;
  readonly blocked: Failed | undefined;
}

/** A first attempt that failed, for the run loop to go on from. */
export interface Failing {
  readonly attempt: Attempt;
  readonly failed: Failed;
}

export const PLAIN_CONTEXT: AttemptContext = Object.freeze({ fallback: false });
const FALLBACK_CONTEXT: AttemptContext = Object.freeze({ fallback: true });

/** A budget ledger starting at `startedAt`, nothing spent. */
export const ledgerFrom = (startedAt: number): BudgetLedger => ({ startedAt, retries: 0, backoffMs: 0, verdictCounts: new Map() });

/** The `attempt` observation of an ok response: one object, never changed. */
const OK: Observed = Object.freeze({ kind: "ok" });

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
  /** The ledger of a dispatch of its own, made when first read: a call that succeeds at once never needs one. */
  private ownLedger: BudgetLedger | undefined;
  /** When the ledger started: what events' `t` counts from. */
  private readonly ledgerStart: number;
  /** The admission of the attempt awaiting its answer. */
  private pending: Admission | undefined;
  private emitterFn: ((event: UnstampedEvent) => void) | undefined;
  private pacedRun: PacedRun | undefined;
  /** From the dispatch's first retry to its end: a retry in progress, for the retry budget. */
  retrying = false;
  /** Told of each attempt an open breaker stopped (a recorded dispatch's record keeps it). */
  onBlocked: ((fallback: boolean, error: AdapterError) => void) | undefined;
  /** The caller's signal and deadline (SPEC 21), when the dispatch was given either. */
  stop: DispatchStop | undefined;
  /** The turn of the last attempt sent: what a stopped dispatch ends. */
  private lastTurn: Turn | undefined;
  /** The caller's trace id (SPEC 21), checked. */
  traceId: string | undefined;

  private readonly o: DispatchSettings;
  readonly redact: Redactor;
  readonly quota: RetryQuotaBucket | undefined;
  readonly policies: SharedPolicies;

  constructor(
    private readonly shared: RunShared,
    private readonly sharedLedger: BudgetLedger | undefined,
    private readonly runId: string,
    private readonly label: string | undefined,
    /** When the dispatch started (default now): a run made after its first attempt (`resume`) started before it. */
    startedAt = shared.o.clock.now(),
  ) {
    this.o = shared.o;
    this.redact = shared.redact;
    this.quota = shared.quota;
    this.policies = shared.policies;
    this.startedAt = startedAt;
    this.ledgerStart = sharedLedger === undefined ? startedAt : sharedLedger.startedAt;
  }

  get ledger(): BudgetLedger {
    return this.sharedLedger ?? (this.ownLedger ??= ledgerFrom(this.startedAt));
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
    const t = this.o.clock.now() - this.ledgerStart;
    // Keys in the order outputs show them: t, type, the call's label, then the body's own.
    this.record((this.label === undefined ? { t, ...body } : labelled(t, this.label, body)) as DispatchEvent);
  }

  private record(event: DispatchEvent): void {
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

  /**
   * The dispatch's call, its first attempt sent: dispatch() awaits that attempt itself and
   * hands it to `answer`, so a call that succeeds at once costs one await. A failed or
   * short-circuited first attempt goes on in `call`. A hedged call sends nothing here
   * (undefined): its first attempt is the first of a race, so it goes to `call` whole.
   */
  start(call: Call, attempt: AttemptFn): Attempt | undefined {
    this.attemptFn = attempt;
    const tool = toolFactsOf(this.shared, call.tool);
    // A hedged call races from its first attempt; a paced one may wait for its first token.
    if ((tool.hedged && call.idempotent !== false) || tool.paced) return undefined;
    return this.send(this.turnOf(call, attempt, 0, tool), 1);
  }

  /**
   * The dispatch's first attempt, which dispatch() sent and awaited itself (`dispatchAtOnce`), did
   * not succeed: the run takes it over as its own first attempt (sent at `before`, admitted as
   * `admission`) and goes on from it.
   */
  resume(call: Call, attempt: AttemptFn, tool: ToolFacts, key: string, admission: Admission | undefined, before: number, response: Response): Promise<End> | End {
    this.attemptFn = attempt;
    const turn = this.turnOf(call, attempt, 0, tool, key);
    turn.sent = 1;
    this.attempts = 1;
    const sent: Attempt = { turn, n: 1, before, admission, response, blocked: undefined };
    const failed = this.answer(sent, response);
    return failed.kind === "failure" ? this.call(call, attempt, 0, { attempt: sent, failed }) : failed;
  }

  /**
   * One call (and its fallback), attempt by attempt, until an action ends it; `first`, its
   * first attempt when dispatch() sent and saw it fail (`start`, `answer`).
   */
  async call(call: Call, attempt: AttemptFn, depth: number, first?: Failing): Promise<End> {
    this.attemptFn = attempt;
    const turn = first?.attempt.turn ?? this.turnOf(call, attempt, depth);
    // A call that is not idempotent is never hedged (SPEC 18); a first attempt sent by start() was not.
    const hedging = this.policies.hedging;
    if (first === undefined && hedging !== undefined && turn.idempotent && hedging.hedges(call.tool)) return this.hedgedCall(hedging, turn);
    for (let n = 1; ; n++) {
      let sent: Attempt;
      let observed: Failed;
      if (n === 1 && first !== undefined) ({ attempt: sent, failed: observed } = first);
      else {
        const paced = turn.tool.paced ? pace(this.policies.rateLimits!, this.paced, call.tool) : undefined;
        const refused = paced instanceof Promise ? await paced : paced;
        sent = refused === undefined ? this.send(turn, n) : this.rateLimited(turn, n, refused);
        if (sent.blocked !== undefined) observed = sent.blocked;
        else {
          const response = await sent.response!;
          this.stop?.throwIfStopped(true);
          const answer = this.answer(sent, response);
          if (answer.kind !== "failure") return answer;
          observed = answer;
        }
      }
      const step = await this.afterFailure(turn, this.classified(n, turn, observed.error, sent.admission));
      if (step !== "next_attempt") return step;
    }
  }

  /** A hedged call (SPEC 18): race after race (a rebuild makes another), each numbered after the hedges before it. */
  private async hedgedCall(hedging: Hedging, turn: Turn): Promise<End> {
    for (let n = 1; ; ) {
      const raced = await this.race(hedging, turn, n);
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

  /**
   * A failed attempt, classified: its `failure_classified` event; the breakers and retry
   * throttling hear of it when it was sent (`admission` not blocked).
   */
  private classified(n: number, turn: CallTurn, error: AdapterError | null, admission: Admission | undefined): Classified {
    const { verdict: code } = classify(this.o.registry, error ?? undefined, turn.call.tool, this.o.playbook);
    const action = actionFor(this.o.playbook, code);
    this.verdict = code;
    this.emit({ type: "failure_classified", verdict: code, attempt: n, action: action?.action ?? null });
    if (admission?.blockedBy === undefined && (this.policies.breakers !== undefined || this.policies.throttle !== undefined || (turn as Turn).tool?.listened === true)) {
      const verdict = verdictByCode(this.o.registry, code);
      this.answered(admission, turn, { verdictClass: verdict?.class, retryable: verdict?.retryable === true, errorKind: error?.kind, processEvidence: verdict?.evidence === "process" }, headersOf(error), isThrottling(verdict?.class, error));
    }
    return { code, action, n, error };
  }

  /**
   * A hedged call's attempts (SPEC 18): policies/hedging.ts runs the race; each hedge is
   * admitted by the breakers, sent within its timeout, observed and classified here. The
   * winner's answer ends the call; a failure that ends the race goes on to its action,
   * which may not retry (`turn.hedged`). `last`: the number of the last hedge sent.
   */
  private async race(hedging: Hedging, turn: Turn, first: number): Promise<End | (Classified & { last: number })> {
    const { call } = turn;
    const { breakers, throttle } = this.policies;
    const admissions: (Admission | undefined)[] = [];
    let won: Observed | undefined;
    let failed: Classified | undefined;
    const ended = await race<Response>(this.o.clock, hedging, {
      stopped: this.stop?.stopped,
      send: (i, signal) => {
        this.lastTurn = turn;
        this.stop?.throwIfStopped(false);
        // A hedge never waits for a token: with none, it is not sent (SPEC 22).
        const limited = turn.tool.paced ? paceHedge(this.policies.rateLimits!, this.paced, call.tool) : undefined;
        const admission = limited !== undefined ? rateLimitedAdmission(limited) : breakers?.admit(call.tool, turn.shown.tool, this.o.clock.now(), this.emitter);
        admissions[i] = admission;
        if (admission?.blockedBy !== undefined) return { status: "error", error: admission.error ?? circuitOpenError(admission.blockedBy) };
        this.attempts++;
        const abandon = (e: unknown): never => {
          if (admission !== undefined) breakers!.abandon(admission, this.o.clock.now());
          throw e;
        };
        try {
          const context = i > 1 ? { ...contextOf(turn), hedge: true as const } : contextOf(turn);
          const response = this.sendWithin(turn, ++turn.sent, context, signal);
          return response instanceof Promise ? response.catch(abandon) : response;
        } catch (e) {
          return abandon(e);
        }
      },
      judge: (response, i, sentAt) => {
        const n = first + i - 1;
        const admission = admissions[i];
        const blocked = admission?.blockedBy;
        const answer = blocked !== undefined ? this.shortCircuited(n, turn, admission!.error ?? circuitOpenError(blocked), i > 1) : this.observed(n, turn.shownKey, turn.shown, response, sentAt, i > 1);
        if (answer.kind !== "failure") {
          this.answered(admission, turn, null, headersOf(response));
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
    this.stop?.throwIfStopped(true);
    if (ended.how === "won") {
      const answer = won as Observed;
      if (answer.kind === "needs_input") return endOf(turn, "needs_input", { reason: answer.question === null ? null : this.redact(answer.question) });
      return endOf(turn, first === 1 && failed === undefined ? "succeeded" : "recovered");
    }
    turn.hedged = ended.throttled ? "throttled" : "spent";
    return { ...failed!, last: first + ended.sent - 1 };
  }

  /** A call's turn: its key (as sent and as shown), whether it may be retried, its attempt timeout. */
  private turnOf(call: Call, attempt: AttemptFn, depth: number, tool = toolFactsOf(this.shared, call.tool), key = idempotencyKey(this.runId, call)): Turn {
    return {
      call,
      shownKey: shownKeyOf(call, key, this.redact),
      shown: { tool: tool.shown, id: this.redact(call.id) },
      idempotent: mayRetry(call, tool),
      depth,
      retries: 0,
      lastDelay: undefined,
      retriesOf: undefined,
      previousDelay: undefined,
      hint: undefined,
      hedged: undefined,
      rebuilt: undefined,
      key,
      attempt,
      timeoutMs: tool.timeoutMs,
      sent: 0,
      tool,
    };
  }

  /** An attempt a rate limit did not let through (`pace` said which, with its event): unsent, failed at once as `rate_limited`. */
  private rateLimited(turn: Turn, n: number, limit: string): Attempt {
    const admission = rateLimitedAdmission(limit);
    return { turn, n, before: this.o.clock.now(), admission, response: undefined, blocked: this.shortCircuited(n, turn, admission.error!) };
  }

  /** Attempt `n` of a turn: sent, once the breakers guarding its tool let it through, else failed at once, unsent. */
  private send(turn: Turn, n: number): Attempt {
    this.lastTurn = turn;
    this.stop?.throwIfStopped(false);
    const before = this.o.clock.now();
    const admission = this.policies.breakers?.admit(turn.call.tool, turn.shown.tool, before, this.emitter);
    if (admission?.blockedBy !== undefined) return { turn, n, before, admission, response: undefined, blocked: this.shortCircuited(n, turn, circuitOpenError(admission.blockedBy)) };
    this.attempts++;
    // Until it answers, an attempt that throws gives back what its admission holds (`abandon`).
    this.pending = admission;
    const response = this.sendWithin(turn, ++turn.sent, contextOf(turn));
    return { turn, n, before, admission, response: this.stop === undefined ? response : this.stop.race(response), blocked: undefined };
  }

  /** What a sent attempt's answer means: the end of its call when it did not fail, else its failure. */
  answer(sent: Attempt, response: Response): End | Failed {
    this.pending = undefined;
    const { turn, n } = sent;
    const answer = this.observed(n, turn.shownKey, turn.shown, response, sent.before);
    if (answer.kind === "failure") return answer;
    this.answered(sent.admission, turn, null, headersOf(response));
    if (answer.kind === "ok") return endOf(turn, n === 1 ? "succeeded" : "recovered");
    return endOf(turn, "needs_input", { reason: answer.question === null ? null : this.redact(answer.question) });
  }

  /** The dispatch ended with an attempt unanswered (its function threw): give back any breaker probe it held. */
  abandon(): void {
    if (this.pending !== undefined) this.policies.breakers!.abandon(this.pending, this.o.clock.now());
    this.pending = undefined;
  }

  /** The run as its rate limits see it (engine/pacing.ts), made when one first needs it. */
  private get paced(): PacedRun {
    const run = this;
    return (this.pacedRun ??= {
      clock: this.o.clock,
      breakers: this.policies.breakers,
      get stop() {
        return run.stop;
      },
      redact: this.redact,
      emit: this.emitter,
    });
  }

  /** The run's events as breakers emit them, made when a breaker first needs it. */
  private get emitter(): (event: UnstampedEvent) => void {
    return (this.emitterFn ??= (event) => this.emit(event));
  }

  /** Send one attempt, within its timeout when one applies (SPEC 18); `cancel` aborts a hedge the race gave up. */
  private sendWithin(turn: Turn, n: number, context: AttemptContext, cancel?: AbortSignalOf): Promise<Response> | Response {
    const { call, key, attempt, timeoutMs } = turn;
    // A hedge has its race's signal (the race ends its hedges when the dispatch stops); any other attempt the dispatch's.
    const abort = cancel ?? this.stop?.attemptSignal;
    if (timeoutMs === undefined) return attempt(call, n, key, abort === undefined ? context : { ...context, signal: abort });
    return sendWithin(this.o.clock, timeoutMs, (signal) => attempt(call, n, key, { ...context, signal }), abort);
  }

  /** An attempt answered: the breakers guarding its tool and retry throttling hear how (`failure` null: it did not fail). */
  private answered(admission: Admission | undefined, turn: CallTurn, failure: CountedFailure | null, headers?: Record<string, string>, throttling = false): void {
    if ((turn as Turn).tool?.listened === true && admission?.blockedBy === undefined) heard(this.policies.rateLimits!, this.paced, turn.call.tool, headers, throttling);
    if (admission !== undefined && admission.blockedBy === undefined) this.policies.breakers!.record(admission, turn.shown.tool, this.o.clock.now(), failure, this.emitter);
    const throttle = this.policies.throttle;
    if (throttle === undefined) return;
    if (failure === null) throttle.succeeded();
    else if (failure.retryable) throttle.failed();
  }

  /** An attempt an open breaker (or an empty rate limit) did not let through: an `attempt` event, not sent and not counted. */
  private shortCircuited(n: number, turn: CallTurn, error: AdapterError, hedge = false): Failed {
    this.error = error;
    this.onBlocked?.(turn.depth > 0, error);
    this.emit({ type: "attempt", n, status: "error", idempotency_key: turn.shownKey, latency_ms: 0, ...failedWith(error), short_circuited: true, ...(hedge ? HEDGE : {}) });
    this.errors.push({ attempt: n, t: this.o.clock.now() - this.ledgerStart, tool: turn.shown.tool, error });
    return { kind: "failure", error };
  }

  /** What an attempt's response means, recorded as its `attempt` event (and error); `hedge`: a hedge after the first attempt. */
  private observed(n: number, shownKey: string, shown: ShownCall, response: Response, before: number, hedge = false): Observed {
    const now = this.o.clock.now();
    const latency = now - before;
    const observed = observe(response, this.shared.emptyIsFailure);
    if (observed.kind === "ok") {
      // The common event, stamped in place (emit's order: t, type, then the body).
      if (this.label === undefined && !hedge) this.record(okAttempt(now - this.ledgerStart, n, shownKey, latency));
      else this.emit({ type: "attempt", n, status: "ok", idempotency_key: shownKey, latency_ms: latency, ...(hedge ? HEDGE : {}) });
      return observed;
    }
    if (observed.kind === "needs_input") {
      this.emit({ type: "attempt", n, status: "needs_input", idempotency_key: shownKey, latency_ms: latency, ...(hedge ? HEDGE : {}) });
      return observed;
    }
    // Redacted once: the event, the dead-letter errors and the envelope all show this copy.
    const error = observed.error === null ? null : shownError(observed.error, this.redact);
    this.error = error;
    this.emit({ type: "attempt", n, status: "error", idempotency_key: shownKey, latency_ms: latency, ...(error ? failedWith(error) : {}), ...(hedge ? HEDGE : {}) });
    this.errors.push({ attempt: n, t: this.o.clock.now() - this.ledgerStart, tool: shown.tool, error });
    return observed;
  }

  /**
   * The caller cancelled the dispatch or its deadline passed (SPEC 21): it ends `exhausted`
   * at once, its side effect unknown when an attempt was in flight.
   */
  stopped(stop: Stopped, first: Call): End {
    this.emit({ type: "dispatch_stopped", reason: stop.reason, in_flight: stop.inFlight });
    if (stop.inFlight) this.error = { kind: stop.reason === "deadline" ? "deadline_exceeded" : "cancelled", side_effect_state: "unknown" };
    const turn = this.lastTurn ?? this.turnOf(first, this.attemptFn!, 0);
    return endOf(turn, "exhausted", { reason: stop.reason, exhausted: true, stopped: true });
  }

  /** Settle the quota, apply on_exhausted, emit the closing event, dress the end as an outcome. */
  finish(end: End): DispatchResult {
    const { registry, playbook } = this.o;
    if (this.quota !== undefined && (end.kind === "succeeded" || end.kind === "recovered")) this.quota.settle(this.quotaCosts ?? NO_COSTS);
    let kind: FinalKind = end.kind;
    let queue = end.queue;
    if (kind === "exhausted" && playbook.on_exhausted && end.stopped !== true) {
      kind = playbook.on_exhausted.action === "escalate_to_human" ? "escalated" : "dead_lettered";
      queue = playbook.on_exhausted.queue === undefined ? this.escalationQueue : this.redact(playbook.on_exhausted.queue);
    }
    if (kind === "escalated" && queue !== null) this.emit({ type: "escalated", queue, reason: end.reason });
    if (kind === "dead_lettered" && queue !== null) this.emit({ type: "dead_lettered", queue });

    const facts: EndFacts = {
      kind,
      tool: end.shown.tool,
      idempotencyKey: end.key,
      idempotent: end.idempotent,
      verdict: this.verdict,
      error: this.error,
      reason: end.reason,
      replan: end.replan,
      queue,
      attempts: this.attempts,
      retried: this.retried,
      elapsedMs: this.o.clock.now() - this.startedAt,
      traceId: this.traceId,
    };
    const packet = kind === "escalated" && queue !== null ? buildPacket(registry, facts, end.shown.id, queue, this.redact) : null;
    const outcome = outcomeOf(registry, facts, end.exhausted, packet, this.redact);
    if (kind === "dead_lettered" && queue !== null) {
      outcome.dead_letters = [
        {
          queue,
          call: redactDeep(end.call, this.redact),
          step: null,
          errors: this.errors,
          envelope: outcome.envelope,
          first_attempt_ms: this.errors[0]?.t ?? null,
          dead_lettered_ms: this.o.clock.now() - this.ledgerStart,
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

const HEDGE = Object.freeze({ hedge: true as const });

/** The headers an answer carries (an error's, or a successful response's, SPEC 22), as a plain object. */
function headersOf(answer: object | null | undefined): Record<string, string> | undefined {
  const headers = (answer as { headers?: unknown } | null | undefined)?.headers;
  if (headers === undefined || headers === null || typeof headers !== "object") return undefined;
  return isPlainObject(headers) ? (headers as Record<string, string>) : plainHeadersOf(headers);
}

/** An attempt a rate limit stopped: blocked, failing as `rate_limited` (SPEC 22). */
const rateLimitedAdmission = (limit: string): Admission => ({ blockedBy: `rate_limit:${limit}`, error: rateLimitedError(limit), guards: [], admitted: [] });

/** No quota tokens taken: what a dispatch that never retried settles. */
const NO_COSTS: readonly number[] = Object.freeze([]);

/** The call may be retried at all: its own flag and the playbook's `tools`. */
const mayRetry = (call: Call, tool: ToolFacts): boolean => call.idempotent !== false && tool.idempotent;

/** The idempotency key as outputs show it. A derived key is hex: only a key the caller brought can hold a secret. */
const shownKeyOf = (call: Call, key: string, redact: Redactor): string => (call.idempotency_key === undefined ? key : redact(key));

/** The `attempt` event of an ok answer without a label, stamped in place (emit's order: t, type, then the body). */
/** An error's members an `attempt` event names: its kind, and its HTTP status when it has a valid one (the shown error keeps only those). */
const failedWith = (error: AdapterError): { error_kind: string; http_status?: number } =>
  error.http_status === undefined ? { error_kind: error.kind } : { error_kind: error.kind, http_status: error.http_status };
const okAttempt = (t: number, n: number, shownKey: string, latency: number): DispatchEvent => ({ t, type: "attempt", n, status: "ok", idempotency_key: shownKey, latency_ms: latency });

/** An end dressed as an outcome (SPEC 4): with the envelope the agent is shown, and `packet` when a person must act. */
function outcomeOf(registry: Registry, facts: EndFacts, exhausted: boolean, packet: RecoveryPacket | null, redact: Redactor): Outcome {
  return {
    kind: facts.kind,
    verdict: facts.verdict,
    attempts: facts.attempts,
    retried: facts.retried,
    elapsed_ms: facts.elapsedMs,
    reason: facts.reason,
    queue: facts.queue,
    replan: facts.replan,
    exhausted,
    envelope: buildEnvelope(registry, facts, redact),
    packet,
  };
}

/**
 * The first attempt of a dispatch that dispatch() sent and awaited itself, without a run
 * (its tool `direct` and every breaker guarding it closed, `admission`): when it answered ok,
 * the whole dispatch, finished as a run would have finished it (the attempt's event, then the
 * breakers, retry throttling and quota told of the success, then the outcome). Undefined for
 * any other answer: the run takes the attempt over (`DispatchRun.resume`).
 */
export function succeededAtOnce(shared: RunShared, call: Call, tool: ToolFacts, key: string, admission: Admission | undefined, before: number, ledger: BudgetLedger | undefined, response: Response, trace: string | undefined): DispatchResult | undefined {
  const { o, redact, policies } = shared;
  if (observe(response, shared.emptyIsFailure) !== OK) return undefined;
  const now = o.clock.now();
  const shownKey = shownKeyOf(call, key, redact);
  const event = okAttempt(now - (ledger === undefined ? before : ledger.startedAt), 1, shownKey, now - before);
  const events = [event];
  o.onEvent?.(event);
  if (admission !== undefined) policies.breakers!.record(admission, tool.shown, now, null, closedSuccessEmitsNothing);
  policies.throttle?.succeeded();
  shared.quota?.settle(NO_COSTS);
  return { outcome: succeededOutcome(tool.shown, shownKey, now - before, trace), events, errors: [], idempotencyKey: shownKey };
}

/** A success of an attempt every breaker admitted closed moves no breaker out of closed: it has no event. */
function closedSuccessEmitsNothing(event: UnstampedEvent): never {
  throw new Error(`a closed breaker's success emitted ${event.type}`);
}

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
  if (response === null || typeof response !== "object") throw invalidResponse(response);
  switch (response.status) {
    case "ok":
      if (emptyIsFailure && (response.value === undefined || response.value === null)) {
        return { kind: "failure", error: EMPTY_RESPONSE };
      }
      return OK;
    case "needs_input":
      return { kind: "needs_input", question: response.question ?? null };
    case "error":
      return { kind: "failure", error: adapterErrorOf(response.error) };
    default:
      throw invalidResponse(response);
  }
}

/** The last trace id found well formed. */
let lastTraceId: string | undefined;

/**
 * A caller's trace id as the dispatch takes it (SPEC 21): a W3C trace-id, 32 lower-case hex
 * digits, not all zero (an OpenTelemetry span's `spanContext().traceId`). Anything else is a
 * caller's mistake, said at once.
 */
export function checkedTraceId(id: unknown): string {
  // The calls of one trace bring the same id (an agent's run, a request's tool calls): it is checked once.
  if (id === lastTraceId) return id as string;
  // The length first, then one scan for a character that is not a lower-case hex digit: V8 runs
  // a lone negated class about twice as fast as the anchored /^[0-9a-f]{32}$/ (docs/performance.md).
  // All zeros only if the last digit is one: comparing 32 characters with ZERO_TRACE_ID cost the check of a new id a tenth of its time.
  if (typeof id === "string" && id.length === 32 && !NOT_HEX.test(id) && (id.charCodeAt(31) !== 0x30 || id !== ZERO_TRACE_ID)) return (lastTraceId = id);
  throw new TypeError("failbook: DispatchOptions.traceId must be a W3C trace-id: 32 lower-case hex digits, not all zero (an OpenTelemetry span's spanContext().traceId)");
}

const NOT_HEX = /[^0-9a-f]/;
const ZERO_TRACE_ID = "0".repeat(32);

/**
 * What the dispatcher throws for an answer that is no response: what kind of value it was,
 * never the value itself, which may hold anything, secrets included.
 */
function invalidResponse(response: unknown): TypeError {
  const what =
    response === null || typeof response !== "object"
      ? response === null ? "null" : typeof response
      : typeof (response as { status?: unknown }).status === "string" ? "an unknown status" : "an object without a status";
  return new TypeError(`failbook: the attempt function returned an invalid response (${what}); return { status: "ok" | "error" | "needs_input", ... }`);
}
