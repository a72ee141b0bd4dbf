/**
 * One call under the playbook, as the run loop and the actions share it: what the call is
 * (its idempotency, its action per verdict), the state a call carries from attempt to
 * attempt, and how a call chain ends. The actions (engine/actions/) read and write only this.
 */
import type { AdapterError, Call } from "../model/fixture.js";
import type { OutcomeKind, UnstampedEvent } from "../model/outcome.js";
import type { CompensationAction, Playbook, RefreshCredentials, RefreshEvidence, RestoreCheckpoint } from "../model/playbook.js";
import type { Registry } from "../model/registry.js";
import type { Clock } from "./clock.js";
import type { DispatchStop } from "./stop.js";
import { globMatches } from "./match.js";
import type { SharedPolicies } from "./policies/index.js";
import type { RetryQuotaBucket } from "./quota.js";
import type { Random } from "./random.js";
import type { Redactor } from "./redact.js";
import type { BudgetLedger } from "./retry.js";

/** The failure an ok result with no value becomes when `empty_response_is_failure` is on. */
export const EMPTY_RESPONSE: AdapterError = Object.freeze({ kind: "empty_response", message: "the tool returned ok with no value" });

/** Not idempotent when the call says so or a `tools` entry for its tool does. */
export function isIdempotent(playbook: Playbook, call: Call): boolean {
  if (call.idempotent === false) return false;
  const tools = playbook.tools;
  if (tools === undefined) return true;
  for (const glob in tools) if (Object.hasOwn(tools, glob) && tools[glob].idempotent === false && globMatches(glob, call.tool)) return false;
  return true;
}

/** The playbook's action for a verdict (own keys only: a code may be named `constructor`). */
export function actionFor(playbook: Playbook, code: string): CompensationAction | undefined {
  return Object.hasOwn(playbook.verdicts, code) ? playbook.verdicts[code] : undefined;
}

export type FinalKind = Exclude<OutcomeKind, "compensated">;

export interface ShownCall {
  tool: string;
  id: string;
}

/** How one call chain ended, before on_exhausted and before it is dressed as an outcome. */
export interface End {
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
  /** The caller cancelled it or its deadline passed (SPEC 21): `on_exhausted` does not apply. */
  stopped?: true;
}

/** One call (or its fallback) from attempt to attempt. */
export interface CallTurn {
  readonly call: Call;
  readonly shown: ShownCall;
  /** The idempotency key as outputs show it. */
  readonly shownKey: string;
  readonly idempotent: boolean;
  /** 0 for the call, 1 inside its fallback. */
  readonly depth: number;
  /** Retries of this call, whatever their verdict (`backoff_index: per_call`). */
  retries: number;
  /** The delay before the call's last retry. */
  lastDelay: number | undefined;
  /** Per verdict, made on the first retry: most calls never retry. */
  retriesOf: Map<string, number> | undefined;
  previousDelay: Map<string, number> | undefined;
  /** The `retry_with_hint` hint for the next attempt. */
  hint: string | undefined;
  /**
   * A hedged call's last race ran out of hedges (`spent`), or retry throttling refused one
   * (`throttled`): its retries are its hedges, so its failure is not retried (SPEC 18).
   */
  hedged: "spent" | "throttled" | undefined;
  /** Set once the call's evidence was refreshed (or its checkpoint restored): its next failure ends it. */
  rebuilt: RefreshEvidence | RestoreCheckpoint | RefreshCredentials | undefined;
}

/** A classified failure, handed to its verdict's action. */
export interface Failure {
  readonly code: string;
  readonly n: number;
  /** The error as the adapter reported it (classification and guards read this; outputs never do). */
  readonly error: AdapterError | null;
}

/** Side effects of actions, for production; simulation leaves them out. */
export interface ActionEffects {
  issueReversal?(call: Call, reversalToken: string, reason: string): Promise<void> | void;
  refreshEvidence?(call: Call): Promise<void> | void;
  restoreCheckpoint?(call: Call): Promise<void> | void;
  /** refresh_credentials (SPEC 18): renew the call's token before the retry. */
  refreshCredentials?(call: Call): Promise<void> | void;
}

/** What an action may read and do: the run's rules, clock, budgets and event stream. */
export interface RunContext {
  readonly registry: Registry;
  readonly playbook: Playbook;
  readonly clock: Clock;
  readonly random: Random;
  readonly effects: ActionEffects | undefined;
  readonly redact: Redactor;
  readonly ledger: BudgetLedger;
  readonly quota: RetryQuotaBucket | undefined;
  /** The dispatcher's breakers, retry budget and retry throttling (SPEC 18). */
  readonly policies: SharedPolicies;
  /** The dispatch has retried: it is a retry in progress for the retry budget. */
  readonly retrying: boolean;
  /** The queue the runtime escalates to on its own, as outputs show it. */
  readonly escalationQueue: string;
  emit(body: UnstampedEvent): void;
  /** A retry was scheduled: count it in the run (and its quota tokens, for the refund). */
  countRetry(delayMs: number, quotaCost: number | undefined): void;
  /** Dispatch the call again from its first attempt (a fallback), sharing budgets and the clock. */
  callAgain(call: Call, depth: number): Promise<End>;
  /** The caller's signal and deadline (SPEC 21), when the dispatch was given either. */
  readonly stop: DispatchStop | undefined;
}

/** The end of a turn's call chain. */
export function endOf(turn: CallTurn, kind: FinalKind, more?: Partial<End>): End {
  const end: End = { kind, call: turn.call, shown: turn.shown, key: turn.shownKey, idempotent: turn.idempotent, reason: null, queue: null, replan: false, exhausted: false };
  return more === undefined ? end : { ...end, ...more };
}

/** An action's answer: the call chain ends, or the next attempt is made. */
export type Step = End | "next_attempt";
