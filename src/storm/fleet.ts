/**
 * The clients (SPEC 19): each runs the playbook's own dispatcher (one per client, or one for
 * the fleet: `shared`; with `shared: store`, each client's syncs its `scope: fleet` policies
 * through a simulated store, SPEC 23), on the scheduler's clock, against the upstream model. Open loop:
 * Poisson arrivals at the fleet-wide rate, each to a client drawn at random. Closed loop:
 * each client makes one call at a time, thinking `think_ms` between them.
 */
import { createDispatcher, type AttemptFn, type Dispatcher, type DispatchResult } from "failbook-runtime/engine/dispatch.js";
import { seededRandom, type Random } from "failbook-runtime/engine/random.js";
import type { Redactor } from "failbook-runtime/engine/redact.js";
import type { Call } from "failbook-runtime/model/fixture.js";
import { isSuccess, type DispatchEvent } from "failbook-runtime/model/outcome.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import type { Registry } from "failbook-runtime/model/registry.js";
import { MAX_ATTEMPTS, MAX_CALLS, type Storm } from "./model.js";
import { UsageError } from "failbook-runtime/model/errors.js";
import type { Segment, Timeline } from "./phases.js";
import type { Coroutine, Scheduler } from "./scheduler.js";
import type { Series } from "./series.js";
import type { UpstreamModel } from "./upstream.js";
import type { BreakerState, Costs } from "./costs.js";
import type { SimulatedStore } from "./store.js";

export interface FleetRules {
  registry: Registry;
  playbook: Playbook;
  redact: Redactor;
}

/** A retry refused by retry throttling or the retry quota (token buckets), by the outcome's reason. */
const THROTTLED = new Set(["retry_throttled", "retry_quota"]);
/** A retry refused by a budget: Envoy's retry budget, or the playbook's budgets. */
const BUDGET = new Set(["retry_budget", "budget_retries", "budget_retries_per_call", "budget_retry_seconds", "budget_wall"]);
const BREAKER_STATE: Record<string, BreakerState> = { breaker_opened: 1, breaker_half_open: 2, breaker_closed: 0 };

interface CallInFlight extends Coroutine {
  offeredAt: number;
  client: number;
}

export class Fleet {
  readonly dispatchers: (Dispatcher | undefined)[];
  private readonly calls: Call[];
  private readonly cumulativeWeights: number[];
  private readonly callsMade: Uint32Array | undefined;
  private readonly breakers = new Map<string, BreakerState>();
  /** Dispatchers made so far (each client's on its first call, or the fleet's one). */
  dispatchersMade = 0;
  inFlight = 0;
  /** A dispatch threw (a bug, never a storm's outcome): the run stops and reports it. */
  failure: unknown;

  constructor(
    private readonly storm: Storm,
    private readonly rules: FleetRules,
    private readonly scheduler: Scheduler,
    private readonly upstream: UpstreamModel,
    private readonly timeline: Timeline,
    private readonly series: Series,
    private readonly arrivals: Random,
    private readonly seed: number,
    private readonly costs: Costs,
    private readonly store: SimulatedStore | undefined,
  ) {
    const { clients } = storm;
    this.dispatchers = new Array<Dispatcher | undefined>(clients.shared === "fleet" ? 1 : clients.count).fill(undefined);
    // One call object per tool entry: the dispatcher reads it, never keeps or changes it. Its
    // own idempotency key (12 hex digits, which make the trace id as they stand) spares a
    // SHA-256 a call: nothing in a storm deduplicates.
    this.calls = clients.calls.map((c, i) => ({
      id: `${c.tool}#${i + 1}`,
      tool: c.tool,
      idempotency_key: (0x5707a0000000 + i).toString(16),
      ...(c.idempotent === undefined ? {} : { idempotent: c.idempotent }),
      ...(c.args === undefined ? {} : { args: c.args }),
    }));
    let sum = 0;
    this.cumulativeWeights = clients.calls.map((c) => (sum += c.weight ?? 1));
    this.callsMade = clients.arrival.serial === undefined ? undefined : new Uint32Array(clients.count);
  }

  /** Schedule the first calls. */
  start(): void {
    const { arrival, count } = this.storm.clients;
    if (arrival.serial === undefined) {
      this.scheduleArrival(0);
      return;
    }
    // Clients start spread over one think time (all at once when it is 0: a thundering herd).
    const think = arrival.serial.think_ms;
    for (let client = 0; client < count; client++) this.scheduler.at(think > 0 ? this.arrivals() * think : 0, this.callFrom, client, undefined);
  }

  // The dispatcher's AbortSignal (an attempt timeout's, a hedge's: SPEC 18) tells the scheduler which answers are still awaited.
  // A hedge is counted as it is sent: an upstream attempt like any other.
  private readonly attempt: AttemptFn = (_call, _n, _key, context) => {
    if (context.hedge === true) this.series.count("hedges", this.scheduler.now);
    // The static bound (storm-too-large) estimates a closed loop's calls; this one is exact. The run stops at the next event.
    if (this.series.sent >= MAX_ATTEMPTS) this.failure ??= new UsageError(`storm ${this.storm.name} sent ${MAX_ATTEMPTS.toLocaleString("en-US")} attempts by ${Math.round(this.scheduler.now)} ms, the most a storm runs; shorten duration_ms, lower the arrival rate or the playbook's retries`);
    return this.upstream.send(context.signal as AbortSignal | undefined);
  };

  /** The next Poisson arrival after `t`, at the rate in force (redrawn at each phase boundary: exact for a piecewise-constant rate). */
  private scheduleArrival(t: number): void {
    const segment: Segment = this.timeline.at(t);
    const rate = (this.storm.clients.arrival.rate_per_s ?? 0) * segment.arrivalX;
    const next = rate > 0 ? t - (Math.log(1 - this.arrivals()) / rate) * 1000 : Infinity;
    if (next >= segment.to) {
      if (segment.to < this.storm.duration_ms) this.scheduler.at(segment.to, this.redraw, undefined, undefined);
      return;
    }
    if (next < this.storm.duration_ms) this.scheduler.at(next, this.arrive, undefined, undefined);
  }

  private readonly redraw = (): void => this.scheduleArrival(this.scheduler.now);

  private readonly arrive = (): void => {
    const client = Math.floor(this.arrivals() * this.storm.clients.count);
    this.scheduleArrival(this.scheduler.now);
    this.callFrom(client);
  };

  /** Client `client` makes a call now. */
  private readonly callFrom = (client: number): void => {
    const s = this.scheduler;
    const now = s.now;
    if (now >= this.storm.duration_ms) return;
    if (this.series.offered >= MAX_CALLS) {
      throw new UsageError(`storm ${this.storm.name} offered ${MAX_CALLS.toLocaleString("en-US")} calls by ${Math.round(now)} ms, the most a storm runs (calls that end at once with think_ms 0 never let time pass); raise think_ms or shorten duration_ms`);
    }
    const call = this.pickCall();
    const co: CallInFlight = { span: 0, offeredAt: now, client };
    this.inFlight++;
    this.series.offered++;
    this.series.count("offered", now);
    if (this.callsMade !== undefined) this.callsMade[client]++;
    s.begin(co);
    this.dispatcherOf(client)
      .dispatch(call, this.attempt)
      .then(
        (result) => this.ended(co, result),
        (e: unknown) => {
          this.failure ??= e;
          s.end();
        },
      );
  };

  private ended(co: CallInFlight, result: DispatchResult): void {
    const s = this.scheduler;
    s.end();
    this.inFlight--;
    const { kind, reason } = result.outcome;
    const now = s.now;
    this.costs.ended(result.outcome);
    // The dispatch's clock starts when the call is offered: its errors' times are from then.
    const failedAt = result.errors.length === 0 ? Infinity : co.offeredAt + result.errors[0].t;
    this.series.callEnded(kind, isSuccess(kind), co.offeredAt, now, failedAt);
    if (reason !== null) {
      if (THROTTLED.has(reason)) this.series.count("throttled", now);
      else if (BUDGET.has(reason)) this.series.count("budget_refused", now);
    }
    const serial = this.storm.clients.arrival.serial;
    if (serial === undefined) return;
    if (serial.calls !== undefined && this.callsMade![co.client] >= serial.calls) return;
    s.at(now + serial.think_ms, this.callFrom, co.client, undefined);
  }

  private pickCall(): Call {
    const w = this.cumulativeWeights;
    if (w.length === 1) return this.calls[0];
    const u = this.arrivals() * w[w.length - 1];
    let i = 0;
    while (i < w.length - 1 && u >= w[i]) i++;
    return this.calls[i];
  }

  private dispatcherOf(client: number): Dispatcher {
    const index = this.dispatchers.length === 1 ? 0 : client;
    let dispatcher = this.dispatchers[index];
    if (dispatcher === undefined) {
      const random = seededRandom(streamSeed(this.seed, 16 + index));
      const onEvent = (e: DispatchEvent): void => this.observe(index, e);
      const store = this.store;
      dispatcher =
        store === undefined
          ? createDispatcher({ ...this.rules, clock: this.scheduler.clock, random, onEvent })
          : createDispatcher({ ...this.rules, playbook: store.playbook, clock: this.scheduler.clock, random, onEvent, fleet: store.optionsFor(index) });
      this.dispatchers[index] = dispatcher;
      this.dispatchersMade++;
    }
    return dispatcher;
  }

  /** What the report counts from the dispatcher's own events, as they happen. */
  private observe(dispatcher: number, event: DispatchEvent): void {
    const now = this.scheduler.now;
    const type: string = event.type;
    if (type === "retry_scheduled") this.series.count("retries", now);
    else if (event.type === "attempt") {
      // An attempt the client's own rate limit refused is counted as such (rate_limited), not as a breaker's.
      if (event.short_circuited === true && event.error_kind !== "rate_limited") {
        this.series.count("short_circuited", now);
        this.costs.shortCircuit(event.n);
      }
      // The upstream counts the errors it answers with; a timeout is the client's own.
      if (event.error_kind === "attempt_timeout") this.series.countKind(this.series.attemptErrors, "attempt_timeout", now);
    } else if (event.type === "rate_limit_waited") this.costs.paced(event.ms);
    else if (type === "rate_limited") this.costs.rateLimited();
    else if (type === "fleet_store_unavailable" || type === "fleet_store_recovered") this.store?.observe(type, String((event as { instance?: unknown }).instance), now);
    else if (type in BREAKER_STATE) {
      // One state per dispatcher and breaker (and tool, for a breaker `per: tool`).
      const e = event as { breaker?: unknown; tool?: unknown; break_ms?: unknown };
      const [breaker, tool] = [String(e.breaker ?? ""), e.tool === undefined ? undefined : String(e.tool)];
      const key = `${dispatcher}\u0000${breaker}\u0000${tool ?? ""}`;
      if (!this.breakerMoved(key, BREAKER_STATE[type], now)) return;
      this.costs.breakerMoved(key, tool === undefined ? breaker : `${breaker} (${tool})`, BREAKER_STATE[type], now, typeof e.break_ms === "number" ? e.break_ms : 0);
    }
  }

  /** Whether the breaker's state changed. */
  private breakerMoved(key: string, state: BreakerState, now: number): boolean {
    const was = this.breakers.get(key) ?? 0;
    if (was === state) return false;
    this.breakers.set(key, state);
    this.series.breakerChanged(now, (state === 1 ? 1 : 0) - (was === 1 ? 1 : 0), (state === 2 ? 1 : 0) - (was === 2 ? 1 : 0));
    return true;
  }
}

/** A seed for one random stream of a storm: arrivals, the upstream, each client's jitter. */
export function streamSeed(seed: number, stream: number): number {
  let h = (seed ^ Math.imul(stream + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
