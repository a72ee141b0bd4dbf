/**
 * The upstream, as a model (SPEC 19): an attempt's latency is drawn when it starts, from the
 * load at that moment; an optional FIFO capacity makes attempts wait, and past the queue
 * turns them away at once; an error mix independent of load; a gateway deadline, past which
 * the client hears a timeout while the upstream, which never hears, works on.
 *
 * An attempt its client stopped waiting for (its own timeout, a cancelled hedge, the
 * gateway's deadline) keeps the upstream busy until its latency has passed: the feedback
 * loop of a metastable failure.
 *
 * An optional rate limit (rate-limit.ts) counts every attempt as it arrives, before the
 * queue: past it, 429 at once; within it, a successful answer carries the quota headers.
 */
import type { AdapterError, Response } from "failbook-runtime/model/fixture.js";
import type { Random } from "failbook-runtime/engine/random.js";
import { DEFAULT_GATEWAY_ERROR, DEFAULT_OVERLOAD_ERROR, type Upstream } from "./model.js";
import type { Timeline } from "./phases.js";
import { UpstreamLimiter } from "./rate-limit.js";
import type { Scheduler, Ticket } from "./scheduler.js";
import type { Series } from "./series.js";

/** z of the 99th percentile of the standard normal distribution. */
const Z99 = 2.3263478740408408;

const OK: Response = Object.freeze({ status: "ok", value: true }) as Response;

interface Attempt {
  ticket: Ticket<Response>;
  arrivedAt: number;
  /** The client has its answer (the response, or the gateway's timeout). */
  answered: boolean;
  response: Response;
  /** The upstream's rate limit: the quota left when it arrived (-1 without a limit), and when that window resets. */
  remaining: number;
  resetAt: number;
}

export class UpstreamModel {
  private inProgress = 0;
  /** FIFO of attempts waiting for a slot (a ring would save little: the queue is bounded). */
  private readonly waiting: Attempt[] = [];
  private head = 0;
  private readonly overload: Response;
  private readonly gatewayTimeout: Response | undefined;
  private readonly errorResponses = new Map<AdapterError, Response>();
  private readonly draw: () => number;
  private readonly perConcurrent: number;
  private readonly gatewayMs: number;
  private readonly limiter: UpstreamLimiter | undefined;
  /** 429s answered, over the run: the rate limit's, and any other error with that status. */
  answered429 = 0;

  constructor(
    private readonly upstream: Upstream,
    private readonly timeline: Timeline,
    private readonly random: Random,
    private readonly scheduler: Scheduler,
    private readonly series: Series,
  ) {
    this.overload = errorResponse(upstream.overload_error ?? DEFAULT_OVERLOAD_ERROR);
    this.gatewayMs = upstream.gateway?.timeout_ms ?? Infinity;
    this.gatewayTimeout = upstream.gateway === undefined ? undefined : errorResponse(upstream.gateway.error ?? DEFAULT_GATEWAY_ERROR);
    this.draw = latencyDraw(upstream.latency_ms, random);
    this.perConcurrent = upstream.latency_ms.per_concurrent ?? 0;
    this.limiter = upstream.rate_limit === undefined ? undefined : new UpstreamLimiter(upstream.rate_limit);
    // Phases bring capacity back: the queue's head starts when a phase boundary allows.
    for (const segment of timeline.segments) if (segment.from > 0) scheduler.at(segment.from, this.pump, undefined, undefined);
  }

  /** Attempts in progress at the upstream and waiting in its queue, now. */
  get load(): { inProgress: number; queued: number } {
    return { inProgress: this.inProgress, queued: this.waiting.length - this.head };
  }

  /** An attempt of the running dispatch arrives: its answer, at once (turned away) or later. */
  send(signal?: AbortSignal): Response | Promise<Response> {
    const s = this.scheduler;
    const now = s.now;
    this.series.sent++;
    this.series.count("sent", now);
    let remaining = -1;
    if (this.limiter !== undefined) {
      const admitted = this.limiter.admit(now);
      if (typeof admitted !== "number") {
        this.answeredError(admitted, now);
        s.touch();
        return admitted;
      }
      remaining = admitted;
    }
    const segment = this.timeline.at(now);
    const capacity = this.upstream.capacity;
    const limit = capacity === undefined ? Infinity : Math.floor(capacity.concurrency * segment.capacityX);
    const queued = this.waiting.length - this.head;
    if (this.inProgress >= limit && queued >= (capacity?.queue ?? 0)) {
      this.answeredError(this.overload, now);
      s.touch();
      return this.overload;
    }
    const { promise, ticket } = s.park<Response>(signal);
    const attempt: Attempt = { ticket, arrivedAt: now, answered: false, response: OK, remaining, resetAt: remaining < 0 ? 0 : this.limiter!.windowEnd(now) };
    if (this.inProgress < limit && queued === 0) this.start(attempt);
    else {
      this.waiting.push(attempt);
      this.series.loadChanged(now, 0, 1);
      if (this.gatewayMs !== Infinity) s.at(now + this.gatewayMs, this.timeOut, attempt, undefined);
    }
    return promise;
  }

  /** An attempt takes a slot now: its latency and its answer are drawn from the load and the phase in force. */
  private start(attempt: Attempt): void {
    const s = this.scheduler;
    const now = s.now;
    this.inProgress++;
    this.series.loadChanged(now, 1, 0);
    const segment = this.timeline.at(now);
    const latency = (this.draw() + this.perConcurrent * this.inProgress) * segment.latencyX;
    attempt.response = this.answerOf(segment.cumulative, segment.errors);
    const done = now + latency;
    const deadline = attempt.arrivedAt + this.gatewayMs;
    // A queued attempt already has its deadline event; one that starts at once gets it only if it will need it.
    if (done > deadline && attempt.arrivedAt === now) s.at(deadline, this.timeOut, attempt, undefined);
    s.at(done, this.finish, attempt, done <= deadline);
  }

  private answerOf(cumulative: Float64Array, errors: AdapterError[]): Response {
    if (cumulative.length === 0) return OK;
    const u = this.random();
    for (let i = 0; i < cumulative.length; i++) if (u < cumulative[i]) return this.errorFor(errors[i]);
    return OK;
  }

  private errorFor(error: AdapterError): Response {
    let response = this.errorResponses.get(error);
    if (response === undefined) this.errorResponses.set(error, (response = errorResponse(error)));
    return response;
  }

  /** The attempt's latency has passed: its slot frees, and its client hears, unless the gateway answered first. */
  private readonly finish = (attempt: Attempt, inTime: boolean): void => {
    const now = this.scheduler.now;
    this.inProgress--;
    this.series.loadChanged(now, -1, 0);
    if (inTime && !attempt.answered) this.answer(attempt, attempt.response === OK && attempt.remaining >= 0 ? this.limiter!.ok(attempt.remaining, attempt.resetAt, now) : attempt.response);
    this.pump();
  };

  /** The gateway's deadline passed without an answer: the client hears a timeout. */
  private readonly timeOut = (attempt: Attempt): void => {
    if (!attempt.answered) this.answer(attempt, this.gatewayTimeout!);
  };

  /** Start waiting attempts while there are free slots. */
  private readonly pump = (): void => {
    const now = this.scheduler.now;
    const capacity = this.upstream.capacity;
    if (capacity === undefined) return;
    const limit = Math.floor(capacity.concurrency * this.timeline.at(now).capacityX);
    while (this.inProgress < limit && this.head < this.waiting.length) {
      const next = this.waiting[this.head++];
      this.series.loadChanged(now, 0, -1);
      this.start(next);
    }
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting.splice(0, this.head);
      this.head = 0;
    }
  };

  private answer(attempt: Attempt, response: Response): void {
    attempt.answered = true;
    if (response.status === "error") this.answeredError(response, this.scheduler.now);
    this.scheduler.wake(attempt.ticket, response);
  }

  private answeredError(response: Response, t: number): void {
    const error = response.status === "error" ? response.error : undefined;
    if (error?.http_status === 429) this.answered429++;
    this.series.countKind(this.series.attemptErrors, errorLabel(error), t);
  }
}

function errorResponse(error: AdapterError): Response {
  return Object.freeze({ status: "error", error }) as Response;
}

/** How the report names an error: its kind, and its HTTP status when it has one. */
export function errorLabel(error: AdapterError | undefined): string {
  if (error === undefined) return "error";
  return error.http_status === undefined ? error.kind : `${error.kind} ${error.http_status}`;
}

/** The load-independent part of an attempt's latency, in ms. */
export function latencyDraw(model: Upstream["latency_ms"], random: Random): () => number {
  if (model.median !== undefined && model.p99 !== undefined) {
    const mu = Math.log(model.median);
    const sigma = Math.max(0, (Math.log(model.p99) - mu) / Z99);
    const normal = standardNormal(random);
    return () => Math.exp(mu + sigma * normal());
  }
  if (model.mean !== undefined) {
    const mean = model.mean;
    return () => -mean * Math.log(1 - random());
  }
  const base = model.base ?? 0;
  return () => base;
}

/** Standard normal draws, two at a time (Box–Muller). */
function standardNormal(random: Random): () => number {
  let spare: number | undefined;
  return () => {
    if (spare !== undefined) {
      const z = spare;
      spare = undefined;
      return z;
    }
    const u = 1 - random();
    const v = random();
    const r = Math.sqrt(-2 * Math.log(u));
    spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  };
}
