/**
 * One record, replayed (SPEC 14): the engine's dispatcher, exactly as `simulate` runs it
 * (virtual clock, seeded random), with an attempt function that reads the recorded
 * responses. When the playbook asks for an attempt production never made, the replay stops
 * and says `unknown`: what that attempt would have returned is not known, so it is not guessed.
 *
 * One replayer serves a whole corpus: the dispatcher (and with it the playbook's retry quota,
 * breakers and retry throttling, shared by every record in order) lives as long as the
 * replayer, on one timeline; the random source starts afresh for each record.
 */
import { VirtualClock } from "failbook-runtime/engine/clock.js";
import { createDispatcher, type AttemptFn, type Dispatcher } from "failbook-runtime/engine/dispatch.js";
import { seededRandom, type Random } from "failbook-runtime/engine/random.js";
import type { Call, Response } from "failbook-runtime/model/fixture.js";
import type { OutcomeKind } from "failbook-runtime/model/outcome.js";
import type { DispatchRecord } from "failbook-runtime/model/record.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import type { Registry } from "failbook-runtime/model/registry.js";
import type { Redactor } from "failbook-runtime/engine/redact.js";

/** What a replay decided: an outcome kind and its verdict, or `unknown` (beyond the recording). */
export type Replayed = { kind: OutcomeKind; verdict: string | null } | { kind: "unknown"; verdict: string | null; reason: "beyond_recording" };

export interface ReplayRules {
  registry: Registry;
  playbook: Playbook;
  redact?: Redactor;
}

/** Virtual time that restarts at every record; its epoch is the record's `at` (for HTTP-date Retry-After), read only when asked. */
/**
 * One timeline for a whole corpus, since the policies a replay shares (the retry quota, the
 * breakers, retry throttling) live on it: each record starts where the one before ended, or
 * later by the gap between their `at`s, so an open breaker's break runs out as it did in
 * production. Events and outcomes only ever show times relative to a record's start.
 */
class ReplayClock extends VirtualClock {
  private epoch: number | undefined;
  private startedAt = 0;
  /** The first dated record: its `at` in epoch ms, and where it started on this clock. */
  private origin: { epoch: number; time: number } | undefined;

  start(at: string | undefined): void {
    const parsed = at === undefined ? Number.NaN : Date.parse(at);
    if (Number.isFinite(parsed)) {
      if (this.origin === undefined) this.origin = { epoch: parsed, time: this.time };
      else this.advance(this.origin.time + (parsed - this.origin.epoch) - this.time);
    }
    this.startedAt = this.time;
    this.epoch = Number.isFinite(parsed) ? parsed : undefined;
  }
  epochMs(): number {
    return (this.epoch ?? 0) + (this.time - this.startedAt);
  }
}

/**
 * The call as a replay dispatches it. Its id, its arguments and its idempotency key decide
 * nothing (they only label the events, the envelope and the packet, which a replay does not
 * report): fixed ones spare a SHA-256 of canonical JSON and the redaction of a new id and of
 * every argument per record. What an action reads (`idempotent`, `reversal_token`,
 * `evidence_refs`) stays.
 */
function replayedCall(call: Call): Call {
  const out: Call = { id: REPLAY_ID, tool: call.tool, idempotency_key: REPLAY_KEY };
  if (call.idempotent !== undefined) out.idempotent = call.idempotent;
  if (call.reversal_token !== undefined) out.reversal_token = call.reversal_token;
  if (call.evidence_refs !== undefined) out.evidence_refs = call.evidence_refs;
  return out;
}

const REPLAY_ID = "replay";
const REPLAY_KEY = "replay";

/** Thrown by the attempt function when the playbook asks for an attempt that was not recorded (not an Error: no stack to capture). */
const BEYOND_RECORDING = Symbol("beyond the recording");

export class Replayer {
  private readonly clock = new ReplayClock();
  private random: Random;
  private readonly dispatcher: Dispatcher;
  private responses: readonly Response[] = [];
  private fallbacks: readonly Response[] = [];
  private readonly attempt: AttemptFn;
  /** The verdict of the record's last failure: what an unknown replay was about to act on. */
  private lastVerdict: string | null = null;

  constructor(
    rules: ReplayRules,
    private readonly seed = 0,
  ) {
    this.random = seededRandom(seed);
    this.dispatcher = createDispatcher({
      registry: rules.registry,
      playbook: rules.playbook,
      clock: this.clock,
      random: () => this.random(),
      ...(rules.redact ? { redact: rules.redact } : {}),
      onEvent: (event) => {
        if (event.type === "failure_classified") this.lastVerdict = event.verdict;
      },
    });
    this.attempt = (_call, n, _key, context) => {
      const response = (context.fallback ? this.fallbacks : this.responses)[n - 1];
      if (response === undefined) throw BEYOND_RECORDING;
      this.clock.advance(response.latency_ms ?? 0);
      return response;
    };
  }

  async replay(record: DispatchRecord): Promise<Replayed> {
    this.clock.start(record.at);
    this.random = seededRandom(this.seed);
    this.responses = record.responses;
    this.fallbacks = record.fallback_responses ?? [];
    this.lastVerdict = null;
    try {
      const { outcome } = await this.dispatcher.dispatch(replayedCall(record.call), this.attempt, { runId: record.run_id ?? "" });
      return { kind: outcome.kind, verdict: outcome.verdict };
    } catch (e) {
      if (e === BEYOND_RECORDING) return { kind: "unknown", verdict: this.lastVerdict, reason: "beyond_recording" };
      throw e;
    }
  }
}
