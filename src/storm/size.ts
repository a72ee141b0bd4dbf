/**
 * How much work a storm asks for (SPEC 16, 21): its buckets, the calls it offers, and the
 * attempts those calls may send under the playbook, retries and hedges included. One check
 * for a storm file (lint's `storm-too-large`) and for every cell of a `--sweep` before any
 * runs, so that nothing runs in proportion to a configured count.
 */
import { classify } from "failbook-runtime/engine/classify.js";
import { ATTEMPT_TIMEOUT } from "failbook-runtime/engine/policies/attempt-timeout.js";
import { circuitOpenError } from "failbook-runtime/engine/policies/breakers.js";
import { worstCase } from "failbook-runtime/engine/worstcase.js";
import type { PathSegment } from "failbook-runtime/model/finding.js";
import type { AdapterError } from "failbook-runtime/model/fixture.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import type { Registry } from "failbook-runtime/model/registry.js";
import { DEFAULT_GATEWAY_ERROR, DEFAULT_OVERLOAD_ERROR, DEFAULT_STEP_MS, MAX_ATTEMPTS, MAX_BUCKETS, MAX_CALLS, MAX_SYNCS, type Storm } from "./model.js";
import { Timeline } from "./phases.js";
import { refusal } from "./rate-limit.js";
import { storeSyncMs } from "./store.js";

export interface SizeProblem {
  message: string;
  /** The storm file's node to blame. */
  path: PathSegment[];
}

/** What makes a call's attempts many: how many, and the verdict that allows the most. */
export interface AttemptBound {
  attempts: number;
  /** The reachable verdict with the most retries, or null when none retries. */
  verdict: string | null;
  /** The playbook's figure that sets that verdict's retries (max_retries, a hedge's max_attempts...). */
  why: string;
}

/** Every way the storm is too large to run; empty when it is not. */
export function sizeProblems(storm: Storm, registry: Registry, playbook: Playbook): SizeProblem[] {
  const out: SizeProblem[] = [];
  const step = storm.step_ms ?? DEFAULT_STEP_MS;
  const buckets = Math.ceil(storm.duration_ms / step);
  if (buckets > MAX_BUCKETS) {
    out.push({ message: `duration_ms ${storm.duration_ms} in steps of ${step} ms makes ${count(buckets)} buckets; the report holds at most ${count(MAX_BUCKETS)}: raise step_ms`, path: ["step_ms" in storm ? "step_ms" : "duration_ms"] });
  }
  const calls = expectedCalls(storm);
  if (calls === Infinity) {
    out.push({ message: "a closed loop with think_ms 0, a latency that can be 0 and no calls limit never lets time pass; set think_ms, a latency, or serial.calls", path: ["clients", "arrival", "serial", "think_ms"] });
    return out;
  }
  if (calls > MAX_CALLS) {
    out.push({ message: `duration_ms ${storm.duration_ms} would offer about ${count(Math.round(calls))} calls; a storm runs at most ${count(MAX_CALLS)} (a few minutes): shorten duration_ms or lower the arrival rate`, path: ["duration_ms"] });
    return out;
  }
  const bound = attemptsPerCall(storm, registry, playbook);
  const attempts = calls * bound.attempts;
  if (attempts > MAX_ATTEMPTS) {
    const by = bound.verdict === null ? "" : ` (verdict '${bound.verdict}': ${bound.why})`;
    out.push({
      message: `duration_ms ${storm.duration_ms} would offer about ${count(Math.round(calls))} calls, and the playbook allows a call up to ${count(bound.attempts)} attempts${by}: about ${count(Math.round(attempts))} attempts, retries and hedges included; a storm runs at most ${count(MAX_ATTEMPTS)} attempts: shorten duration_ms, lower the arrival rate or the playbook's retries`,
      path: ["duration_ms"],
    });
  }
  if (storm.clients.shared === "store") {
    // A client syncs from its first call on: at most as many clients as calls.
    const store = storm.clients.store;
    const syncMs = storeSyncMs(store, playbook);
    const callers = Math.min(storm.clients.count, Math.ceil(calls));
    const syncs = (callers * storm.duration_ms) / syncMs;
    if (syncs > MAX_SYNCS) {
      out.push({
        message: `${count(callers)} clients syncing with the store every ${syncMs} ms for duration_ms ${storm.duration_ms} would make about ${count(Math.round(syncs))} syncs; a storm runs at most ${count(MAX_SYNCS)}: raise store.sync_ms, lower clients.count or shorten duration_ms`,
        path: store?.sync_ms !== undefined ? ["clients", "store", "sync_ms"] : ["clients", "shared"],
      });
    }
  }
  return out;
}

/**
 * The most attempts the playbook lets one of the storm's calls send: the verdicts the storm's
 * upstream can cause (its errors, a full queue, the gateway, an attempt timeout, an open
 * breaker, for each tool the storm calls), each retried to its worst case in turn (every
 * failed attempt is classified afresh: SPEC 4), the playbook's budgets capping the total; a
 * fallback dispatch may send as many again.
 */
export function attemptsPerCall(storm: Storm, registry: Registry, playbook: Playbook): AttemptBound {
  const codes = new Set<string>();
  const tools = storm.clients.calls.map((c) => c.tool);
  const errors = upstreamErrors(storm, playbook);
  for (let i = 0; i < tools.length; i++) {
    for (const error of errors) {
      const code = classify(registry, error, tools[i], playbook).verdict;
      const action = playbook.verdicts[code];
      // A fallback's tool meets the same upstream.
      if (!codes.has(code) && action?.action === "fallback" && !tools.includes(action.tool)) tools.push(action.tool);
      codes.add(code);
    }
  }
  let retries = 0;
  let best: AttemptBound = { attempts: 1, verdict: null, why: "" };
  let fallback = false;
  for (const code of [...codes].sort()) {
    const worst = worstCase(registry, playbook, code);
    if (worst === undefined) continue;
    if (worst.action === "fallback") fallback = true;
    retries += worst.attempts - 1;
    if (worst.attempts > best.attempts) best = { attempts: worst.attempts, verdict: code, why: worst.hedged !== undefined && worst.hedged.attempts === worst.attempts ? `hedging max_attempts ${worst.hedged.maxAttempts}` : `${worst.limitedBy ?? "retry"} ${worst.retries}` };
  }
  const budgets = playbook.budgets ?? {};
  for (const cap of [budgets.retries, budgets.retries_per_call]) if (cap !== undefined) retries = Math.min(retries, cap);
  const attempts = (1 + retries) * (fallback ? 2 : 1);
  return { ...best, attempts: Math.max(attempts, best.attempts) };
}

/** Every error an attempt of the storm can end with. */
function upstreamErrors(storm: Storm, playbook: Playbook): AdapterError[] {
  const { upstream } = storm;
  const out: AdapterError[] = [...(upstream.errors ?? []).map((m) => m.error), ...(storm.phases ?? []).flatMap((p) => (p.errors ?? []).map((m) => m.error))];
  if (upstream.capacity !== undefined) out.push(upstream.overload_error ?? DEFAULT_OVERLOAD_ERROR);
  if (upstream.gateway !== undefined) out.push(upstream.gateway.error ?? DEFAULT_GATEWAY_ERROR);
  if (upstream.rate_limit !== undefined) out.push(refusal(upstream.rate_limit, upstream.rate_limit.per_ms, 0));
  if (playbook.attempt_timeout_ms !== undefined || Object.values(playbook.tools ?? {}).some((t) => t.attempt_timeout_ms !== undefined)) out.push(ATTEMPT_TIMEOUT);
  for (const name of Object.keys(playbook.circuit_breakers ?? {})) out.push(circuitOpenError(name));
  return out;
}

/** About how many calls the storm offers: exact for open loop, an upper estimate for closed. */
export function expectedCalls(storm: Storm): number {
  const { arrival, count: clients } = storm.clients;
  if (arrival.serial !== undefined) {
    const latency = storm.upstream.latency_ms;
    const cycle = arrival.serial.think_ms + (latency.base ?? latency.median ?? latency.mean ?? 0) + (latency.per_concurrent ?? 0);
    const byTime = cycle > 0 ? storm.duration_ms / cycle + 1 : Infinity;
    return clients * Math.min(arrival.serial.calls ?? Infinity, byTime);
  }
  let calls = 0;
  for (const segment of new Timeline(storm).segments) {
    const to = Math.min(segment.to, storm.duration_ms);
    if (to > segment.from) calls += (arrival.rate_per_s * segment.arrivalX * (to - segment.from)) / 1000;
  }
  return calls;
}

const count = (n: number) => n.toLocaleString("en-US");
