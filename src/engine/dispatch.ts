/**
 * The dispatcher (SPEC 4): one call, attempt by attempt, every failure classified afresh
 * and handed to its verdict's action, under the playbook's guards and budgets.
 *
 * Time, randomness and the attempt itself are injected: simulation runs this exact code
 * with a virtual clock and an attempt function that reads recorded responses; production
 * runs it with a real clock and an attempt function that calls the tool.
 */
import type { AdapterError, Call, Response } from "../model/fixture.js";
import type { AttemptError, DeadLetterEntry, DispatchEvent, Outcome, OutcomeKind, RecoveryPacket, UnstampedEvent } from "../model/outcome.js";
import type { CompensationAction, Playbook, RefreshEvidence, RestoreCheckpoint } from "../model/playbook.js";
import type { Registry } from "../model/registry.js";
import { CAUSE_DEPTH } from "./classifier.js";
import { classify, verdictByCode } from "./classify.js";
import type { Clock } from "./clock.js";
import { buildEnvelope, buildPacket, type EndFacts } from "./envelope.js";
import { idempotencyKey } from "./idempotency.js";
import { globMatches } from "./match.js";
import type { Random } from "./random.js";
import { createRedactor, redactValue, type Redactor } from "./redact.js";
import { budgetReason, decideRetry, type BudgetLedger } from "./retry.js";

export type { BudgetLedger } from "./retry.js";

/** The failure an ok result with no value becomes when `empty_response_is_failure` is on. */
export const EMPTY_RESPONSE: AdapterError = Object.freeze({ kind: "empty_response", message: "the tool returned ok with no value" });

/** What the dispatcher tells the attempt function besides the call. */
export interface AttemptContext {
  /** The attempt goes to the fallback tool (simulation reads `fallback_responses`). */
  fallback: boolean;
  /** The `retry_with_hint` hint, on the retry it scheduled. */
  hint?: string;
}

/**
 * Makes one attempt of a call and reports how it went. It should not throw: report a
 * failure as `{ status: "error", error }`. A throw ends the dispatch with that exception.
 */
export type AttemptFn = (call: Call, n: number, idempotencyKey: string, context: AttemptContext) => Promise<Response> | Response;

/** Side effects of actions, for production; simulation leaves them out. */
export interface Effects {
  issueReversal?(call: Call, reversalToken: string, reason: string): Promise<void> | void;
  refreshEvidence?(call: Call): Promise<void> | void;
  restoreCheckpoint?(call: Call): Promise<void> | void;
  escalate?(packet: RecoveryPacket): Promise<void> | void;
  deadLetter?(entry: DeadLetterEntry): Promise<void> | void;
}

export interface DispatcherOptions {
  registry: Registry;
  playbook: Playbook;
  clock: Clock;
  random: Random;
  /** Applied to the outcome, the events, packets and dead letters (default: built-in patterns). */
  redact?: Redactor;
  effects?: Effects;
  /** Every event as it happens (redacted), e.g. for a trace store. */
  onEvent?: (event: DispatchEvent) => void;
}

export interface DispatchOptions {
  /** Part of the idempotency key (a fixture's `run_id`, else its name). */
  runId?: string;
  /** Budgets shared with other dispatches of the same run (saga steps, waves). */
  ledger?: BudgetLedger;
  /** Put the call's id on every event (multi-call runs). */
  label?: boolean;
}

export interface DispatchResult {
  outcome: Outcome;
  events: DispatchEvent[];
  /** Every failed attempt's error, for dead-letter entries. */
  errors: AttemptError[];
  idempotencyKey: string;
}

export interface Dispatcher {
  readonly registry: Registry;
  readonly playbook: Playbook;
  readonly clock: Clock;
  readonly redact: Redactor;
  dispatch(call: Call, attempt: AttemptFn, options?: DispatchOptions): Promise<DispatchResult>;
  /** A fresh budget ledger starting now: share it to make several dispatches one run. */
  newLedger(): BudgetLedger;
  /** Redact a dead-letter entry and hand it to the `deadLetter` effect. */
  deadLetter(entry: DeadLetterEntry): Promise<DeadLetterEntry>;
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const redact = options.redact ?? createRedactor();
  const shown = rememberRedactions(redact);
  const dispatcher: Dispatcher = {
    registry: options.registry,
    playbook: options.playbook,
    clock: options.clock,
    redact,
    newLedger: () => ({ startedAt: options.clock.now(), retries: 0, backoffMs: 0, verdictCounts: new Map() }),
    async dispatch(call, attempt, dispatchOptions = {}) {
      const ledger = dispatchOptions.ledger ?? dispatcher.newLedger();
      const run = new DispatchRun(options, shown, ledger, dispatchOptions.runId ?? "", dispatchOptions.label ? call.id : undefined);
      const result = run.finish(await run.call(call, attempt, 0));
      if (options.effects !== undefined) await run.applyEffects(result.outcome);
      return result;
    },
    async deadLetter(entry) {
      const clean = redactValue(entry, redact);
      await options.effects?.deadLetter?.(clean);
      return clean;
    },
  };
  return dispatcher;
}

/**
 * The redactor, remembering what it made of each string: a dispatch shows the same tool
 * names, kinds, queues and registry texts again and again, and redacting a string twice
 * must not cost twice. Bounded, so that a stream of distinct messages cannot grow it.
 */
function rememberRedactions(redact: Redactor): Redactor {
  const seen = new Map<string, string>();
  return (text) => {
    let out = seen.get(text);
    if (out === undefined) {
      out = redact(text);
      if (seen.size >= 4096) seen.clear();
      seen.set(text, out);
    }
    return out;
  };
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

const PLAIN_CONTEXT: AttemptContext = Object.freeze({ fallback: false });
const FALLBACK_CONTEXT: AttemptContext = Object.freeze({ fallback: true });

/** Not idempotent when the call says so or a `tools` entry for its tool does. */
export function isIdempotent(playbook: Playbook, call: Call): boolean {
  if (call.idempotent === false) return false;
  const tools = playbook.tools;
  if (tools === undefined) return true;
  for (const glob in tools) if (Object.hasOwn(tools, glob) && tools[glob].idempotent === false && globMatches(glob, call.tool)) return false;
  return true;
}

type FinalKind = Exclude<OutcomeKind, "compensated">;

/** How one call chain ended, before on_exhausted and before it is dressed as an outcome. */
interface End {
  kind: FinalKind;
  call: Call;
  /** The call's tool and id as outputs show them. */
  shown: ShownCall;
  key: string;
  idempotent: boolean;
  reason: string | null;
  queue: string | null;
  replan: boolean;
  exhausted: boolean;
}

type Observed = { kind: "ok" } | { kind: "needs_input"; question: string | null } | { kind: "failed"; error: AdapterError | null };

export interface ShownCall {
  tool: string;
  id: string;
}

class DispatchRun {
  private readonly events: DispatchEvent[] = [];
  private readonly errors: AttemptError[] = [];
  private attempts = 0;
  private retried = 0;
  private verdict: string | null = null;
  private error: AdapterError | null = null;
  private readonly startedAt: number;

  constructor(
    private readonly o: DispatcherOptions,
    private readonly redact: Redactor,
    private readonly ledger: BudgetLedger,
    private readonly runId: string,
    private readonly label: string | undefined,
  ) {
    this.startedAt = o.clock.now();
  }

  private get escalationQueue(): string {
    return this.redact(this.o.playbook.escalation_queue ?? "default");
  }

  /** Stamp an event with the run's time and the call's label, and record it. */
  private emit(body: UnstampedEvent): void {
    const t = this.o.clock.now() - this.ledger.startedAt;
    // Keys in the order outputs show them: t, type, the call's label, then the body's own.
    const event = (this.label === undefined ? { t, ...body } : labelled(t, this.label, body)) as DispatchEvent;
    this.events.push(event);
    this.o.onEvent?.(event);
  }

  /** One call (and its fallback), attempt by attempt, until an action ends it. */
  async call(call: Call, attempt: AttemptFn, depth: number): Promise<End> {
    const { registry, playbook } = this.o;
    const key = idempotencyKey(this.runId, call);
    // A derived key is hex: only a key the caller brought can hold a secret.
    const shownKey = call.idempotency_key === undefined ? key : this.redact(key);
    const shown: ShownCall = { tool: this.redact(call.tool), id: this.redact(call.id) };
    const idempotent = isIdempotent(playbook, call);
    const end = (kind: FinalKind, more: Partial<End> = {}): End => ({ kind, call, shown, key: shownKey, idempotent, reason: null, queue: null, replan: false, exhausted: false, ...more });
    // Per verdict, made on the first retry: most calls never retry.
    let retriesOf: Map<string, number> | undefined;
    let previousDelay: Map<string, number> | undefined;
    let hint: string | undefined;
    let refreshed: RefreshEvidence | RestoreCheckpoint | undefined;

    for (let n = 1; ; n++) {
      this.attempts++;
      const before = this.o.clock.now();
      const context = depth > 0 ? (hint === undefined ? FALLBACK_CONTEXT : { fallback: true, hint }) : hint === undefined ? PLAIN_CONTEXT : { fallback: false, hint };
      const observed = this.observed(n, shownKey, shown, await attempt(call, n, key, context), before);
      if (observed.kind === "ok") return end(n === 1 ? "succeeded" : "recovered");
      if (observed.kind === "needs_input") return end("needs_input", { reason: observed.question === null ? null : this.redact(observed.question) });

      const { verdict: code } = classify(registry, observed.error ?? undefined, call.tool);
      const action = actionFor(playbook, code);
      this.verdict = code;
      this.emit({ type: "failure_classified", verdict: code, attempt: n, action: action?.action ?? null });

      const seen = (this.ledger.verdictCounts.get(code) ?? 0) + 1;
      this.ledger.verdictCounts.set(code, seen);
      const ceiling = playbook.budgets?.same_verdict_ceiling;
      if (ceiling !== undefined && seen >= ceiling) {
        this.emit({ type: "budget_exhausted", budget: "same_verdict_ceiling", limit: ceiling, verdict: code });
        return end("escalated", { queue: this.escalationQueue, reason: "same_verdict_ceiling" });
      }
      if (refreshed) return end("deprecated", { reason: "post-refresh retry still failing", replan: true });
      if (!action) return end("escalated", { queue: this.escalationQueue, reason: "no_action" });

      switch (action.action) {
        case "retry_with_backoff":
        case "retry_with_hint": {
          const verdict = verdictByCode(registry, code);
          const decision = decideRetry({
            action,
            verdict,
            classMaxRetries: verdict ? registry.classes[verdict.class]?.max_retries : undefined,
            idempotent,
            error: observed.error,
            retriesOfVerdict: retriesOf?.get(code) ?? 0,
            previousDelay: previousDelay?.get(code),
            ledger: this.ledger,
            elapsedMs: this.o.clock.now() - this.ledger.startedAt,
            budgets: playbook.budgets ?? {},
            honorRetryAfter: playbook.honor_retry_after ?? true,
            random: this.o.random,
          });
          if (decision.kind === "suppressed") {
            this.emit({ type: "retry_suppressed", reason: decision.reason, verdict: code });
            return end(decision.end, { reason: decision.reason, exhausted: decision.end === "exhausted" });
          }
          if (decision.kind === "budget") {
            this.emit({ type: "budget_exhausted", budget: decision.budget, limit: decision.limit, verdict: code });
            return end("exhausted", { reason: budgetReason(decision.budget), exhausted: true });
          }
          retriesOf ??= new Map();
          previousDelay ??= new Map();
          retriesOf.set(code, (retriesOf.get(code) ?? 0) + 1);
          previousDelay.set(code, decision.delayMs);
          this.ledger.retries++;
          this.ledger.backoffMs += decision.delayMs;
          this.retried++;
          hint = action.action === "retry_with_hint" ? this.redact(action.hint) : undefined;
          this.emit({ type: "retry_scheduled", attempt: n + 1, delay_ms: decision.delayMs, verdict: code, ...(hint === undefined ? {} : { hint }) });
          await this.o.clock.sleep(decision.delayMs);
          continue;
        }
        case "refresh_evidence":
        case "restore_checkpoint":
          await this.rebuild(action, call);
          if (action.then === "abort") return end("deprecated", { reason: `${action.action} then abort`, replan: true });
          refreshed = action;
          hint = undefined;
          continue;
        case "escalate_to_human":
          return end("escalated", { queue: this.redact(action.queue) });
        case "issue_reversal": {
          // The guard of seed 000: no token from the original call, no reversal. Ever.
          const token = call.reversal_token;
          if (token === undefined || token === "") {
            this.emit({ type: "reversal_refused", reason: "no reversal_token on the call" });
            return end("exhausted", { reason: "no_reversal_token", exhausted: true });
          }
          await this.o.effects?.issueReversal?.(call, token, action.reason);
          this.emit({ type: "reversal_issued", reversal_token: this.redact(token), reason: this.redact(action.reason) });
          return end("reversed", { reason: this.redact(action.reason) });
        }
        case "deprecate_tool_call":
          return end("deprecated", { reason: this.redact(action.reason), replan: action.replan });
        case "fallback": {
          if (depth > 0) return end("failed", { reason: "fallback_chain" });
          this.emit({ type: "fallback_started", tool: this.redact(action.tool), from: shown.tool });
          const sub = await this.call({ ...call, tool: action.tool }, attempt, depth + 1);
          return sub.kind === "succeeded" ? { ...sub, kind: "recovered" } : sub;
        }
        case "fail":
          return end("failed", { reason: action.message === undefined ? null : this.redact(action.message) });
        case "dead_letter":
          return end("dead_lettered", { queue: this.redact(action.queue) });
        default:
          return assertNever(action);
      }
    }
  }

  /** Refresh the evidence or restore the checkpoint the call was built from. */
  private async rebuild(action: RefreshEvidence | RestoreCheckpoint, call: Call): Promise<void> {
    if (action.action === "refresh_evidence") {
      this.emit({ type: "evidence_refreshed", evidence_refs: (call.evidence_refs ?? []).map(this.redact) });
      await this.o.effects?.refreshEvidence?.(call);
    } else {
      this.emit({ type: "checkpoint_restored" });
      await this.o.effects?.restoreCheckpoint?.(call);
    }
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

  /** Apply on_exhausted, emit the closing event, dress the end as an outcome, redact. */
  finish(end: End): DispatchResult {
    const { registry, playbook } = this.o;
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

function labelled(t: number, call: string, body: UnstampedEvent): DispatchEvent {
  const { type, ...rest } = body;
  return { t, type, call, ...rest } as DispatchEvent;
}

/** The playbook's action for a verdict (own keys only: a code may be named `constructor`). */
export function actionFor(playbook: Playbook, code: string): CompensationAction | undefined {
  return Object.hasOwn(playbook.verdicts, code) ? playbook.verdicts[code] : undefined;
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
    default:
      return assertNever(response);
  }
}

function assertNever(value: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(value)}`);
}
