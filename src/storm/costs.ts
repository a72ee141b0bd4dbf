/**
 * What an outage costs (SPEC 21): every call by how it ended (kind, reason, queue: the
 * pager's escalations, the dead letters), the retries the policies refused and the attempts
 * an open breaker short-circuited, over the whole run (the drain included), and how long each
 * breaker kept its calls out: its share of the run, its longest spell, its reopenings, and
 * how long after the trigger ended it stayed open (a `max_break_ms` doubling trap); and the
 * rate limits side by side (SPEC 22): attempts the client's own limits paced or refused,
 * against 429s the upstream answered.
 */
import type { Outcome } from "failbook-runtime/model/outcome.js";

export interface OutcomeCount {
  kind: string;
  reason: string | null;
  queue: string | null;
  calls: number;
}

export interface RefusedRetries {
  /** By Envoy's retry budget or the playbook's budgets. */
  budget: number;
  /** By gRPC's retry throttling. */
  throttling: number;
  /** By the retry quota (the AWS SDKs' token bucket). */
  quota: number;
  /** A retry an open breaker short-circuited. */
  breaker: number;
}

/** The rate limits, side by side: the client's pacing against the upstream's 429s. */
export interface RateLimitCost {
  /** Waits the client's own rate limits made attempts take (`rate_limit_waited`), how long in all, and the longest. */
  waits: number;
  wait_ms: number;
  longest_wait_ms: number;
  /** Attempts the client's own rate limits refused, never sent (`rate_limited`). */
  refused: number;
  /** 429s the upstream answered (its rate_limit's, and any other error with that status). */
  upstream_429: number;
}

export interface BreakerTime {
  /** The breaker's name, and the tool for a breaker `per: tool`. */
  breaker: string;
  /** Breakers of this name in the fleet: one per dispatcher. */
  instances: number;
  /** Of the run's time, summed over the instances, the share an instance was open (turning attempts away). */
  open_share: number;
  /** The longest an instance went from opening to closing again (half-open probes that failed included). */
  longest_open_ms: number;
  /** Openings after a failed half-open probe. */
  reopenings: number;
  /** Instances still open or half-open at some time after the last phase ended (0 without phases). */
  open_after_trigger: number;
  /** How long after the last phase ended the last of them closed (the run's end, if one never did). */
  longest_after_trigger_ms: number;
}

export interface StormCost {
  /** Every call by how it ended, most first. */
  outcomes: OutcomeCount[];
  /** Calls escalated to a human, per queue: the pager. */
  escalations: Record<string, number>;
  /** Calls dead-lettered, per queue. */
  dead_letters: Record<string, number>;
  refused_retries: RefusedRetries;
  /** Attempts an open breaker failed at once, never sent. */
  short_circuited: number;
  breakers: BreakerTime[];
  rate_limits: RateLimitCost;
}

/** A retry refused, by the outcome's reason. */
const REFUSED: Record<string, Exclude<keyof RefusedRetries, "breaker">> = {
  retry_budget: "budget",
  budget_retries: "budget",
  budget_retries_per_call: "budget",
  budget_retry_seconds: "budget",
  budget_wall: "budget",
  retry_throttled: "throttling",
  retry_quota: "quota",
};

/** A breaker's state as the fleet reports it: closed, open, half-open. */
export type BreakerState = 0 | 1 | 2;
const State = { Closed: 0, Open: 1, HalfOpen: 2 } as const;

interface Instance {
  group: string;
  state: BreakerState;
  /** When it last left the closed state. */
  spellStart: number;
  openedAt: number;
  breakMs: number;
}

interface GroupTime {
  openMs: number;
  longest: number;
  reopenings: number;
  after: Set<string>;
  longestAfter: number;
}

export class Costs {
  private readonly outcomes = new Map<string, OutcomeCount>();
  private readonly refused: RefusedRetries = { budget: 0, throttling: 0, quota: 0, breaker: 0 };
  private shortCircuited = 0;
  private readonly rateLimits: RateLimitCost = { waits: 0, wait_ms: 0, longest_wait_ms: 0, refused: 0, upstream_429: 0 };
  private readonly instances = new Map<string, Instance>();
  private readonly groups = new Map<string, GroupTime>();

  constructor(
    private readonly durationMs: number,
    private readonly triggerEnd: number,
  ) {}

  ended(outcome: Pick<Outcome, "kind" | "reason" | "queue">): void {
    const key = `${outcome.kind}\u0000${outcome.reason ?? ""}\u0000${outcome.queue ?? ""}`;
    const count = this.outcomes.get(key);
    if (count !== undefined) count.calls++;
    else this.outcomes.set(key, { kind: outcome.kind, reason: outcome.reason, queue: outcome.queue, calls: 1 });
    const refused = outcome.reason === null ? undefined : REFUSED[outcome.reason];
    if (refused !== undefined) this.refused[refused]++;
  }

  /** An open breaker failed attempt `n` at once (n > 1: a retry it refused). */
  shortCircuit(n: number): void {
    this.shortCircuited++;
    if (n > 1) this.refused.breaker++;
  }

  /** A client's rate limit made an attempt wait `ms`. */
  paced(ms: number): void {
    this.rateLimits.waits++;
    this.rateLimits.wait_ms += ms;
    if (ms > this.rateLimits.longest_wait_ms) this.rateLimits.longest_wait_ms = ms;
  }

  /** A client's rate limit refused an attempt: it was not sent. */
  rateLimited(): void {
    this.rateLimits.refused++;
  }

  /** A breaker instance (`key`: dispatcher, breaker, tool) of `group` moved to `state` at `t`; `breakMs` when it opened. */
  breakerMoved(key: string, group: string, state: BreakerState, t: number, breakMs = 0): void {
    let inst = this.instances.get(key);
    if (inst === undefined) this.instances.set(key, (inst = { group, state: State.Closed, spellStart: 0, openedAt: 0, breakMs: 0 }));
    const now = Math.min(t, this.durationMs);
    const time = this.groupOf(group);
    if (inst.state === State.Open) time.openMs += Math.max(0, Math.min(inst.breakMs, now - inst.openedAt));
    if (state === State.Open) {
      if (inst.state === State.HalfOpen && t < this.durationMs) time.reopenings++;
      if (inst.state === State.Closed) inst.spellStart = now;
      inst.openedAt = now;
      inst.breakMs = breakMs;
    } else if (state === State.Closed && inst.state !== State.Closed) this.spellEnded(key, inst, now);
    inst.state = state;
  }

  /** The costs at the run's end; `instances` says how many breakers of a group the fleet has, `upstream429` how many 429s the upstream answered. */
  result(breakerNames: readonly string[], instances: number, upstream429: number): StormCost {
    for (const [key, inst] of this.instances) {
      if (inst.state === State.Closed) continue;
      const time = this.groupOf(inst.group);
      if (inst.state === State.Open) time.openMs += Math.max(0, Math.min(inst.breakMs, this.durationMs - inst.openedAt));
      this.spellEnded(key, inst, this.durationMs);
      inst.state = State.Closed;
    }
    for (const name of breakerNames) if (![...this.groups.keys()].some((g) => g === name || g.startsWith(`${name} (`))) this.groupOf(name);
    const outcomes = [...this.outcomes.values()].sort((a, b) => b.calls - a.calls || keyOf(a).localeCompare(keyOf(b)));
    const byQueue = (kind: string) => Object.fromEntries(outcomes.filter((o) => o.kind === kind && o.queue !== null).map((o) => [o.queue!, 0] as const).sort(([a], [b]) => a.localeCompare(b)));
    const escalations = byQueue("escalated");
    const deadLetters = byQueue("dead_lettered");
    for (const o of outcomes) {
      if (o.queue === null) continue;
      if (o.kind === "escalated") escalations[o.queue] += o.calls;
      else if (o.kind === "dead_lettered") deadLetters[o.queue] += o.calls;
    }
    const breakers = [...this.groups.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([breaker, t]) => ({
        breaker,
        instances,
        open_share: instances === 0 ? 0 : Math.round((t.openMs / (instances * this.durationMs)) * 10_000) / 10_000,
        longest_open_ms: Math.round(t.longest),
        reopenings: t.reopenings,
        open_after_trigger: t.after.size,
        longest_after_trigger_ms: Math.round(t.longestAfter),
      }));
    return { outcomes, escalations, dead_letters: deadLetters, refused_retries: { ...this.refused }, short_circuited: this.shortCircuited, breakers, rate_limits: { ...this.rateLimits, upstream_429: upstream429 } };
  }

  private spellEnded(key: string, inst: Instance, end: number): void {
    const time = this.groupOf(inst.group);
    time.longest = Math.max(time.longest, end - inst.spellStart);
    if (this.triggerEnd > 0 && end > this.triggerEnd && this.triggerEnd < this.durationMs) {
      time.after.add(key);
      time.longestAfter = Math.max(time.longestAfter, end - this.triggerEnd);
    }
  }

  private groupOf(group: string): GroupTime {
    let time = this.groups.get(group);
    if (time === undefined) this.groups.set(group, (time = { openMs: 0, longest: 0, reopenings: 0, after: new Set(), longestAfter: 0 }));
    return time;
  }
}

const keyOf = (o: OutcomeCount) => `${o.kind}\u0000${o.reason ?? ""}\u0000${o.queue ?? ""}`;
