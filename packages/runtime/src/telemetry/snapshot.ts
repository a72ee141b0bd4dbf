/**
 * `dispatcher.snapshot()` (SPEC 24): every shared policy's state now, as plain JSON, for a
 * health endpoint or a debug page. Reading it changes nothing: a bucket is refilled to now
 * on paper, never in place, so a health check cannot move a policy.
 */
import type { BreakerState } from "../model/fixture.js";
import type { SharedPolicies } from "../engine/policies/index.js";
import type { RetryQuotaBucket } from "../engine/quota.js";
import type { Redactor } from "../engine/redact.js";
import type { FleetMode, FleetStatus } from "../engine/fleet/index.js";

export interface DispatcherSnapshot {
  /** The dispatcher's clock when the snapshot was taken (ms; times below are on the same clock). */
  at_ms: number;
  /** One entry per circuit: a `per: tool` breaker has one per tool it has seen. */
  breakers: BreakerSnapshot[];
  retry_budget: RetryBudgetSnapshot | null;
  retry_throttling: RetryThrottlingSnapshot | null;
  retry_quota: RetryQuotaSnapshot | null;
  rate_limits: RateLimitSnapshot[];
  /** The fleet's store (SPEC 23), when the dispatcher has a `fleet` and the playbook a `scope: fleet` policy. */
  fleet: FleetSnapshot | null;
}

export interface FleetSnapshot {
  instance: string;
  /** `fleet`: deciding on the fleet's totals; `alone` or `closed`: before the first sync, or the store down (`on_store_down`). */
  mode: FleetMode;
  /** Whether this process syncs with the store within its lease (`mode` is `fleet`). */
  available: boolean;
  /** Good syncs since the start, and syncs that failed or answered after `sync_ms`. */
  syncs: number;
  failures: number;
  /** The dispatcher's clock at the last good sync; null before the first. */
  last_sync_ms: number | null;
  /** Processes in the fleet at the last good sync. */
  instances: number;
}

export interface BreakerSnapshot {
  breaker: string;
  /** The tool, for a breaker that keeps one state per tool (`per: tool`). */
  tool?: string;
  state: BreakerState;
  /** Since when it has been in that state (the dispatcher's clock, ms). */
  since_ms: number;
  /** The break an opening starts now (doubled on each reopening up to `max_break_ms`). */
  break_ms: number;
  /** The longest break it can take: `max_break_ms`, else `break_ms`. */
  longest_break_ms: number;
}

export interface RetryBudgetSnapshot {
  retries_in_progress: number;
  calls_in_progress: number;
  /** Retries that may be in progress now: `max(min_concurrency, percent × calls in progress)`. */
  limit: number;
  /** `limit` less the retries in progress, never below 0. */
  remaining: number;
}

export interface RetryThrottlingSnapshot {
  tokens: number;
  max_tokens: number;
  /** Retries and hedges go only while `tokens` is above this. */
  threshold: number;
  retries_allowed: boolean;
}

export interface RetryQuotaSnapshot {
  tokens: number;
  capacity: number;
}

export interface RateLimitSnapshot {
  name: string;
  /** The token bucket of `limit:` (below zero: tokens waiters have reserved); null for an `adaptive` limit alone. */
  tokens: number | null;
  capacity: number | null;
  /** `adaptive: aws`: the SDK's bucket, off until the first throttling response. */
  adaptive?: { active: boolean; tokens: number; fill_rate: number; capacity: number };
}

/** The state of a dispatcher's policies at `now`. */
export function snapshotOf(policies: SharedPolicies, quota: RetryQuotaBucket | undefined, fleet: FleetStatus | undefined, now: number, redact: Redactor): DispatcherSnapshot {
  const { breakers, budget, throttle, rateLimits } = policies;
  return {
    at_ms: now,
    breakers: (breakers?.viewAt(now) ?? []).map((b) => ({
      breaker: b.breaker,
      ...(b.tool === undefined ? {} : { tool: redact(b.tool) }),
      state: b.state,
      since_ms: b.since,
      break_ms: b.breakMs,
      longest_break_ms: b.longestBreakMs,
    })),
    retry_budget:
      budget === undefined
        ? null
        : { retries_in_progress: budget.retriesInProgress, calls_in_progress: budget.callsInProgress, limit: budget.limit(), remaining: Math.max(0, budget.limit() - budget.retriesInProgress) },
    retry_throttling: throttle === undefined ? null : { tokens: throttle.tokens, max_tokens: throttle.threshold * 2, threshold: throttle.threshold, retries_allowed: throttle.retriesAllowed },
    retry_quota: quota === undefined ? null : { tokens: quota.tokens, capacity: quota.capacity },
    rate_limits: (rateLimits?.viewAt(now) ?? []).map((l) => ({
      name: l.name,
      tokens: l.bucket === undefined ? null : l.bucket.tokens,
      capacity: l.bucket === undefined ? null : l.bucket.capacity,
      ...(l.adaptive === undefined ? {} : { adaptive: { active: l.adaptive.active, tokens: l.adaptive.tokens, fill_rate: l.adaptive.fillRate, capacity: l.adaptive.capacity } }),
    })),
    fleet: fleet === undefined ? null : fleetSnapshot(fleet),
  };
}

function fleetSnapshot(fleet: FleetStatus): FleetSnapshot {
  const { instance, mode, syncs, failures, lastSyncMs, instances } = fleet;
  return { instance, mode, available: mode === "fleet", syncs, failures, last_sync_ms: lastSyncMs ?? null, instances };
}
