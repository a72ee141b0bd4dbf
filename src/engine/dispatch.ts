/**
 * The dispatcher (SPEC 4): one call, attempt by attempt, every failure classified afresh
 * and handed to its verdict's action, under the playbook's guards and budgets.
 *
 * Time, randomness and the attempt itself are injected: simulation runs this exact code
 * with a virtual clock and an attempt function that reads recorded responses; production
 * runs it with a real clock and an attempt function that calls the tool.
 */
import type { AdapterError, Call, Response } from "../model/fixture.js";
import type { AttemptError, AttemptStatus, DeadLetterEntry, DispatchEvent, Outcome, OutcomeKind, RecoveryPacket, UnstampedEvent } from "../model/outcome.js";
import type { CompensationAction, Playbook, RefreshEvidence, RestoreCheckpoint } from "../model/playbook.js";
import type { Registry } from "../model/registry.js";
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
  const dispatcher: Dispatcher = {
    registry: options.registry,
    playbook: options.playbook,
    clock: options.clock,
    redact,
    newLedger: () => ({ startedAt: options.clock.now(), retries: 0, backoffMs: 0, verdictCounts: new Map() }),
    async dispatch(call, attempt, dispatchOptions = {}) {
      const ledger = dispatchOptions.ledger ?? dispatcher.newLedger();
      const run = new DispatchRun(options, redact, ledger, dispatchOptions.runId ?? "", dispatchOptions.label ? call.id : undefined);
      return run.finish(await run.call(call, attempt, 0));
    },
    async deadLetter(entry) {
      const clean = redactValue(entry, redact);
      await options.effects?.deadLetter?.(clean);
      return clean;
    },
  };
  return dispatcher;
}

/** Not idempotent when the call says so or a `tools` entry for its tool does. */
export function isIdempotent(playbook: Playbook, call: Call): boolean {
  if (call.idempotent === false) return false;
  return !Object.entries(playbook.tools ?? {}).some(([glob, decl]) => decl.idempotent === false && globMatches(glob, call.tool));
}

type FinalKind = Exclude<OutcomeKind, "compensated">;

/** How one call chain ended, before on_exhausted and before it is dressed as an outcome. */
interface End {
  kind: FinalKind;
  call: Call;
  key: string;
  idempotent: boolean;
  reason: string | null;
  queue: string | null;
  replan: boolean;
  exhausted: boolean;
}

type Observed = { kind: "ok" } | { kind: "needs_input"; question: string | null } | { kind: "failed"; error: AdapterError | null };

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
    return this.o.playbook.escalation_queue ?? "default";
  }

  /** Stamp an event with the run's time and the call's label, and record it. */
  private emit(body: UnstampedEvent): void {
    const t = this.o.clock.now() - this.ledger.startedAt;
    const { type, ...rest } = body;
    const event = { t, type, ...(this.label === undefined ? {} : { call: this.label }), ...rest } as DispatchEvent;
    this.events.push(event);
    this.o.onEvent?.(redactValue(event, this.redact));
  }

  /** One call (and its fallback), attempt by attempt, until an action ends it. */
  async call(call: Call, attempt: AttemptFn, depth: number): Promise<End> {
    const { registry, playbook } = this.o;
    const key = idempotencyKey(this.runId, call);
    const idempotent = isIdempotent(playbook, call);
    const end = (kind: FinalKind, more: Partial<End> = {}): End => ({ kind, call, key, idempotent, reason: null, queue: null, replan: false, exhausted: false, ...more });
    const retriesOf = new Map<string, number>();
    const previousDelay = new Map<string, number>();
    let hint: string | undefined;
    let refreshed: RefreshEvidence | RestoreCheckpoint | undefined;

    for (let n = 1; ; n++) {
      const observed = await this.attempt(call, n, key, attempt, { fallback: depth > 0, ...(hint === undefined ? {} : { hint }) });
      if (observed.kind === "ok") return end(n === 1 ? "succeeded" : "recovered");
      if (observed.kind === "needs_input") return end("needs_input", { reason: observed.question });

      const { verdict: code } = classify(registry, observed.error ?? undefined, call.tool);
      const action = actionFor(playbook, code);
      this.verdict = code;
      this.error = observed.error;
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
            retriesOfVerdict: retriesOf.get(code) ?? 0,
            previousDelay: previousDelay.get(code),
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
          retriesOf.set(code, (retriesOf.get(code) ?? 0) + 1);
          previousDelay.set(code, decision.delayMs);
          this.ledger.retries++;
          this.ledger.backoffMs += decision.delayMs;
          this.retried++;
          hint = action.action === "retry_with_hint" ? action.hint : undefined;
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
          return end("escalated", { queue: action.queue });
        case "issue_reversal": {
          // The guard of seed 000: no token from the original call, no reversal. Ever.
          const token = call.reversal_token;
          if (token === undefined || token === "") {
            this.emit({ type: "reversal_refused", reason: "no reversal_token on the call" });
            return end("exhausted", { reason: "no_reversal_token", exhausted: true });
          }
          await this.o.effects?.issueReversal?.(call, token, action.reason);
          this.emit({ type: "reversal_issued", reversal_token: token, reason: action.reason });
          return end("reversed", { reason: action.reason });
        }
        case "deprecate_tool_call":
          return end("deprecated", { reason: action.reason, replan: action.replan });
        case "fallback": {
          if (depth > 0) return end("failed", { reason: "fallback_chain" });
          this.emit({ type: "fallback_started", tool: action.tool, from: call.tool });
          const sub = await this.call({ ...call, tool: action.tool }, attempt, depth + 1);
          return sub.kind === "succeeded" ? { ...sub, kind: "recovered" } : sub;
        }
        case "fail":
          return end("failed", { reason: action.message ?? null });
        case "dead_letter":
          return end("dead_lettered", { queue: action.queue });
        default:
          return assertNever(action);
      }
    }
  }

  /** Refresh the evidence or restore the checkpoint the call was built from. */
  private async rebuild(action: RefreshEvidence | RestoreCheckpoint, call: Call): Promise<void> {
    if (action.action === "refresh_evidence") {
      this.emit({ type: "evidence_refreshed", evidence_refs: [...(call.evidence_refs ?? [])] });
      await this.o.effects?.refreshEvidence?.(call);
    } else {
      this.emit({ type: "checkpoint_restored" });
      await this.o.effects?.restoreCheckpoint?.(call);
    }
  }

  private async attempt(call: Call, n: number, key: string, fn: AttemptFn, context: AttemptContext): Promise<Observed> {
    this.attempts++;
    const before = this.o.clock.now();
    const response = await fn(call, n, key, context);
    const latency = this.o.clock.now() - before;
    const observed = observe(response, this.o.playbook.empty_response_is_failure ?? false);
    const status: AttemptStatus = observed.kind === "ok" ? "ok" : observed.kind === "needs_input" ? "needs_input" : "error";
    const errorKind = observed.kind === "failed" && observed.error ? { error_kind: observed.error.kind } : {};
    this.emit({ type: "attempt", n, status, idempotency_key: key, latency_ms: latency, ...errorKind });
    if (observed.kind === "failed") this.errors.push({ attempt: n, t: this.o.clock.now() - this.ledger.startedAt, tool: call.tool, error: observed.error });
    return observed;
  }

  /** Apply on_exhausted, emit the closing event, dress the end as an outcome, redact. */
  async finish(end: End): Promise<DispatchResult> {
    const { registry, playbook } = this.o;
    let kind: FinalKind = end.kind;
    let queue = end.queue;
    if (kind === "exhausted" && playbook.on_exhausted) {
      kind = playbook.on_exhausted.action === "escalate_to_human" ? "escalated" : "dead_lettered";
      queue = playbook.on_exhausted.queue ?? this.escalationQueue;
    }
    if (kind === "escalated" && queue !== null) this.emit({ type: "escalated", queue, reason: end.reason });
    if (kind === "dead_lettered" && queue !== null) this.emit({ type: "dead_lettered", queue });

    const elapsed = this.o.clock.now() - this.startedAt;
    const facts: EndFacts = {
      kind,
      call: end.call,
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
    const envelope = buildEnvelope(registry, facts);
    const packet = kind === "escalated" && queue !== null ? buildPacket(registry, facts, queue) : null;
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
          call: end.call,
          step: null,
          errors: this.errors,
          envelope,
          first_attempt_ms: this.errors[0]?.t ?? null,
          dead_lettered_ms: this.o.clock.now() - this.ledger.startedAt,
        },
      ];
    }
    const clean = redactValue(outcome, this.redact);
    if (clean.packet) await this.o.effects?.escalate?.(clean.packet);
    for (const entry of clean.dead_letters ?? []) await this.o.effects?.deadLetter?.(entry);
    return {
      outcome: clean,
      events: redactValue(this.events, this.redact),
      errors: redactValue(this.errors, this.redact),
      idempotencyKey: end.key,
    };
  }
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
