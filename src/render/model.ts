/**
 * The rendered registry as data: one row per code with its guidance, its playbook action and
 * the action's static worst case. Markdown, HTML, JSON and `explain` all print this model, so
 * every format says the same thing about a code.
 */
import type { ActionName, Budgets, CompensationAction, Jitter, Playbook, RateLimitPolicy, RetryAfterPolicy, RetryQuota } from "failbook-runtime/model/playbook.js";
import type { AdapterError } from "failbook-runtime/model/fixture.js";
import { DEFAULT_REFUND, DEFAULT_RETRY_COST } from "failbook-runtime/engine/quota.js";
import { DEFAULT_RETRY_AFTER_HEADERS } from "failbook-runtime/engine/retry-after.js";
import { sideEffectOf, statusOf, type MatchRule, type Registry, type SideEffectState, type Verdict, type VerdictStatus } from "failbook-runtime/model/registry.js";
import { worstCase, type RetryLimit } from "failbook-runtime/engine/worstcase.js";
import { classify } from "failbook-runtime/engine/classify.js";
import { circuitOpenError } from "failbook-runtime/engine/policies/breakers.js";
import { headerSpecOf, rateLimitedError } from "failbook-runtime/engine/policies/rate-limits.js";
import { BREAKER_DEFAULTS } from "failbook-runtime/engine/policies/circuit.js";
import { RETRY_BUDGET_DEFAULTS } from "failbook-runtime/engine/policies/retry-budget.js";
import { redactValue, type Redactor } from "failbook-runtime/engine/redact.js";
import { abbreviatedSum, plural } from "../util/text.js";
import { exampleViews, type ExampleView } from "./examples.js";

export interface ClassRow {
  name: string;
  description: string | null;
  max_retries: number | null;
  adr: string | null;
}

export interface ActionView {
  name: ActionName;
  /** The action's parameters in a few words, e.g. "3 retries; 200, 600, 1800 ms". */
  detail: string;
  /** The action as written in the playbook. */
  params: CompensationAction;
}

export interface WorstCaseView {
  attempts: number;
  retries: number;
  delays_ms: number[];
  total_backoff_ms: number;
  limited_by: RetryLimit | null;
  /** Budgets the full schedule would exceed: the runtime cuts the dispatch short there. */
  exceeds: { budget: "retry_seconds" | "wall_ms"; limit_ms: number }[];
  /** For a retry action: how far a server's Retry-After hint can stretch one wait. */
  retry_after: { honored: boolean; max_wait_ms: number | null; mode: "max" | "replace" | "exact"; above_max: "ignore" | "cap" | "give_up"; over_backoff_ms: number | null } | null;
  /** For a retry action under the playbook's retry_quota: what a full bucket pays for. */
  quota: { capacity: number; cost: number; retries: number } | null;
  /** Under attempt timeouts: attempts × the longest timeout + the backoff. */
  time: { attempt_timeout_ms: number; every_tool: boolean; worst_ms: number; wall_ms: number | null } | null;
  /** When the playbook hedges (SPEC 18): a hedged call's attempts (its hedges; it never retries). */
  hedged?: { tools: string[]; max_attempts: number; attempts: number };
  /** When rate limits pace the tools the code can come from (SPEC 22): the waits for a token before each attempt. */
  paced: PacedView | null;
}

/** The waits for a token of a code's attempts (SPEC 22); a null wait is one nothing bounds. */
export interface PacedView {
  /** Each limit over the code's tools: the longest an attempt waits for its token, and what bounds it. */
  limits: { name: string; wait_ms: number | null; bound: "max_wait_ms" | "fail" | "deadline" | "adaptive" }[];
  /** The attempts that may wait (a hedge never does). */
  waiting_attempts: number;
  attempt_wait_ms: number | null;
  total_wait_ms: number | null;
}

export interface CodeRow {
  code: string;
  class: string;
  retryable: boolean;
  side_effect: SideEffectState;
  status: VerdictStatus;
  boundary: string | null;
  since: number | null;
  adr: string | null;
  replaced_by: string | null;
  /** True when `replaced_by` names a code of this registry (so a link to it resolves). */
  replacement_known: boolean;
  human_action_required: boolean;
  summary: string | null;
  cause: string | null;
  recovery: string | null;
  safe_next_actions: string[];
  unsafe_next_actions: string[];
  details: Record<string, unknown> | null;
  match: MatchRule[];
  /** The verdict's examples (SPEC 13), each with how it classifies today. */
  examples: ExampleView[];
  is_fallback: boolean;
  action: ActionView | null;
  worst_case: WorstCaseView | null;
}

/** A circuit breaker with its defaults filled in, and what an open circuit means in this registry. */
export interface BreakerView {
  name: string;
  tools: string[];
  per: "breaker" | "tool";
  failure_ratio: number;
  minimum_throughput: number;
  sampling_ms: number;
  sampling_attempts: number | null;
  buckets: number | null;
  break_ms: number;
  max_break_ms: number | null;
  half_open_probes: number;
  /** The failure classes that count; null: the default (retryable verdicts and attempt timeouts). */
  counts: string[] | null;
  /** The verdict each attempt it stops (circuit_open) classifies to, per distinct verdict, with that verdict's action. */
  when_open: { verdict: string; action: string | null }[];
}

/** A rate limit (SPEC 22) with its defaults filled in, and what an attempt it refuses classifies to. */
export interface RateLimitView {
  name: string;
  tools: string[];
  limit: { requests: number; per_ms: number } | null;
  /** Tokens the bucket holds (default limit.requests); null without a limit. */
  burst: number | null;
  /** A dialect's name, or the headers as written; null when the limit reads none. */
  from_headers: string | { remaining: string; reset: string | { name: string; epoch: "seconds" | "ms" } | { name: string; duration: true } | null; limit: string | null } | null;
  /** The headers it reads, by role (a dialect's spelled out). */
  headers: { remaining: string; reset: string | null; reset_form: "delay" | "epoch_seconds" | "epoch_ms" | "duration" | null; limit: string | null; ietf: boolean } | null;
  when_empty: "wait" | "fail";
  max_wait_ms: number | null;
  adaptive: "aws" | null;
  /** The verdicts an attempt it refuses (the adapter error rate_limited) classifies to, with their actions. */
  when_empty_verdicts: { verdict: string; action: string | null }[];
}

/** The playbook's shared policies (SPEC 18, 22), defaults filled in. */
export interface PoliciesView {
  attempt_timeout_ms: number | null;
  /** The tools: entries that set their own timeout. */
  tool_timeouts: { tools: string; ms: number }[];
  breakers: BreakerView[];
  retry_budget: { percent: number; min_concurrency: number } | null;
  retry_throttling: { max_tokens: number; token_ratio: number } | null;
  hedging: { tools: string[]; max_attempts: number; delay_ms: number; non_fatal: string[] } | null;
  rate_limits: RateLimitView[];
}

export interface RegistryModel {
  registry: { name: string; revision: number; fallback: string };
  playbook: {
    name: string;
    budgets: Budgets;
    honor_retry_after: boolean;
    retry_after: RetryAfterPolicy | null;
    backoff_index: "per_verdict" | "per_call";
    retry_quota: RetryQuota | null;
    policies: PoliciesView;
  };
  classes: ClassRow[];
  /** The registry's declared error fields (SPEC 12), in the order written. */
  error_fields: { name: string; type: string; description: string | null }[];
  /** Every code, sorted by code; `status` tells active, deprecated and reserved apart. */
  codes: CodeRow[];
}

export interface ModelOptions {
  /** Applied to every text taken from YAML before any format escapes it. */
  redact?: Redactor;
}

export function buildModel(registry: Registry, playbook: Playbook, options: ModelOptions = {}): RegistryModel {
  const codes = [...registry.verdicts]
    .sort((a, b) => compareCodes(a.code, b.code))
    .map((v) => codeRow(v, registry, playbook));
  const model: RegistryModel = {
    registry: { name: registry.name, revision: registry.revision, fallback: registry.fallback },
    playbook: {
      name: playbook.name,
      budgets: playbook.budgets ?? {},
      honor_retry_after: playbook.honor_retry_after ?? true,
      retry_after: playbook.retry_after ?? null,
      backoff_index: playbook.backoff_index ?? "per_verdict",
      retry_quota: playbook.retry_quota ?? null,
      policies: policiesView(registry, playbook),
    },
    classes: Object.entries(registry.classes).map(([name, c]) => ({ name, description: c.description ?? null, max_retries: c.max_retries ?? null, adr: c.adr ?? null })),
    error_fields: Object.entries(registry.error_fields ?? {}).map(([name, f]) => ({ name, type: f.type, description: f.description ?? null })),
    codes,
  };
  return options.redact ? redactValue(model, options.redact) : model;
}

const globList = (tools: string | string[]): string[] => (typeof tools === "string" ? [tools] : tools);

/** The headers a rate limit reads (SPEC 22), by role: a dialect's spelled out. */
export function rateLimitHeaders(from: NonNullable<RateLimitPolicy["from_headers"]>): RateLimitView["headers"] {
  const spec = headerSpecOf(from);
  return { remaining: spec.remaining, reset: spec.reset?.[0] ?? null, reset_form: spec.reset?.[1] ?? null, limit: spec.limit ?? null, ietf: spec.ietf === true };
}

export function policiesView(registry: Registry, playbook: Playbook): PoliciesView {
  const tool_timeouts = Object.entries(playbook.tools ?? {}).flatMap(([tools, t]) => (t.attempt_timeout_ms === undefined ? [] : [{ tools, ms: t.attempt_timeout_ms }]));
  const breakers = Object.entries(playbook.circuit_breakers ?? {}).map(([name, b]): BreakerView => {
    const tools = globList(b.tools);
    // Each glob stands for the tools it guards: a rule testing `tool` sees it as written.
    const verdicts = verdictsOf(registry, playbook, tools, circuitOpenError(name));
    return {
      name,
      tools,
      per: b.per ?? "breaker",
      failure_ratio: b.failure_ratio ?? BREAKER_DEFAULTS.failure_ratio,
      minimum_throughput: b.minimum_throughput ?? BREAKER_DEFAULTS.minimum_throughput,
      sampling_ms: b.sampling_ms ?? BREAKER_DEFAULTS.sampling_ms,
      sampling_attempts: b.sampling_attempts ?? null,
      buckets: b.buckets ?? null,
      break_ms: b.break_ms ?? BREAKER_DEFAULTS.break_ms,
      max_break_ms: b.max_break_ms ?? null,
      half_open_probes: b.half_open_probes ?? BREAKER_DEFAULTS.half_open_probes,
      counts: b.counts ?? null,
      when_open: verdicts,
    };
  });
  const budget = playbook.retry_budget;
  const hedging = playbook.hedging;
  return {
    attempt_timeout_ms: playbook.attempt_timeout_ms ?? null,
    tool_timeouts,
    breakers,
    retry_budget: budget ? { percent: budget.percent ?? RETRY_BUDGET_DEFAULTS.percent, min_concurrency: budget.min_concurrency ?? RETRY_BUDGET_DEFAULTS.min_concurrency } : null,
    retry_throttling: playbook.retry_throttling ? { max_tokens: playbook.retry_throttling.max_tokens, token_ratio: playbook.retry_throttling.token_ratio } : null,
    hedging: hedging ? { tools: globList(hedging.tools), max_attempts: hedging.max_attempts, delay_ms: hedging.delay_ms ?? 0, non_fatal: hedging.non_fatal ?? [] } : null,
    rate_limits: Object.entries(playbook.rate_limits ?? {}).map(([name, r]) => rateLimitView(registry, playbook, name, r)),
  };
}

/** The verdicts an adapter error the runtime makes up classifies to from the tools a policy names, each glob standing for its tools, with their actions. */
function verdictsOf(registry: Registry, playbook: Playbook, tools: readonly string[], error: AdapterError): { verdict: string; action: string | null }[] {
  const verdicts = [...new Set(tools.map((tool) => classify(registry, error, tool, playbook).verdict))];
  return verdicts.map((verdict) => {
    const action = playbook.verdicts[verdict];
    return { verdict, action: action ? `${action.action}${actionDetail(action) ? `: ${actionDetail(action)}` : ""}` : null };
  });
}

function rateLimitView(registry: Registry, playbook: Playbook, name: string, r: RateLimitPolicy): RateLimitView {
  const tools = globList(r.tools);
  const from = r.from_headers;
  return {
    name,
    tools,
    limit: r.limit ? { requests: r.limit.requests, per_ms: r.limit.per_ms } : null,
    burst: r.limit ? (r.burst ?? r.limit.requests) : null,
    from_headers: from === undefined ? null : typeof from === "string" ? from : { remaining: from.remaining, reset: from.reset ?? null, limit: from.limit ?? null },
    headers: from === undefined ? null : rateLimitHeaders(from),
    when_empty: r.when_empty ?? "wait",
    max_wait_ms: r.max_wait_ms ?? null,
    adaptive: r.adaptive ?? null,
    when_empty_verdicts: verdictsOf(registry, playbook, tools, rateLimitedError(name)),
  };
}

/** Whether the playbook sets any policy of SPEC 18 or 22. */
export const hasPolicies = (p: PoliciesView): boolean =>
  p.attempt_timeout_ms !== null || p.tool_timeouts.length > 0 || p.breakers.length > 0 || p.retry_budget !== null || p.retry_throttling !== null || p.hedging !== null || p.rate_limits.length > 0;

/** The attempt timeouts in one sentence. */
export function timeoutsText(p: PoliciesView): string {
  const parts = p.tool_timeouts.map((t) => `${duration(t.ms)} for ${t.tools}`);
  const rest = p.tool_timeouts.length > 0 ? "any other tool" : "every tool";
  parts.push(p.attempt_timeout_ms === null ? `none for ${rest}` : `${duration(p.attempt_timeout_ms)} for ${rest}`);
  return `${parts.join("; ")}; an attempt that has not answered by then ends as the adapter error attempt_timeout (side effect unknown), classified like any other`;
}

/** "opens when at least 50 % of at least 20 counted attempts within 30 s failed; ..." */
export function breakerText(b: BreakerView): string {
  const window = [`within the last ${duration(b.sampling_ms)}`];
  if (b.sampling_attempts !== null) window.push(`(and the last ${b.sampling_attempts} counted attempts)`);
  if (b.buckets !== null) window.push(`(in ${b.buckets} buckets)`);
  const counts = b.counts === null ? "a failure counts when its verdict is retryable or it is an attempt timeout" : `a failure counts when its class is ${b.counts.join(" or ")}`;
  const brk = b.max_break_ms === null ? `for ${duration(b.break_ms)}` : `for ${duration(b.break_ms)}, doubled at each reopening up to ${duration(b.max_break_ms)}`;
  const state = b.per === "tool" ? "one state per tool" : "one state for all its tools";
  return `guards ${b.tools.join(", ")} (${state}); opens when, ${window.join(" ")}, at least ${b.minimum_throughput} attempts were counted and at least ${percentText(b.failure_ratio)} of them failed (${counts}; every success counts); stays open ${brk}, then lets ${plural(b.half_open_probes, "probe")} through: all succeed and it closes, one fails and it opens again`;
}

/** What an open breaker does to an attempt, and what the registry makes of it. */
export function whenOpenText(b: BreakerView): string {
  const to = b.when_open.map((w) => `${w.verdict} (${w.action ?? "no playbook action"})`).join(" or ");
  return `while open, an attempt is not sent: it fails at once as the adapter error circuit_open, which classifies to ${to}`;
}

export function retryBudgetText(b: NonNullable<PoliciesView["retry_budget"]>): string {
  return `a retry only while the retries in progress are fewer than max(${b.min_concurrency}, ${b.percent} % of the calls in progress); else the dispatch ends exhausted, reason retry_budget`;
}

export function throttlingText(t: NonNullable<PoliciesView["retry_throttling"]>): string {
  return `${t.max_tokens} tokens shared by every call; a failed attempt of a retryable verdict takes 1, a success gives back ${t.token_ratio}; retries and hedges only while more than ${t.max_tokens / 2} remain, else the dispatch ends exhausted, reason retry_throttled`;
}

export function hedgingText(h: NonNullable<PoliciesView["hedging"]>): string {
  const pace = h.delay_ms === 0 ? "all at once" : `one more every ${duration(h.delay_ms)} without an answer`;
  const nonFatal = h.non_fatal.length > 0 ? `; a failure of ${h.non_fatal.join(", ")} sends the next at once` : "";
  return `an idempotent call to ${h.tools.join(", ")} sends up to ${h.max_attempts} attempts in flight, ${pace}; the first success wins and the rest are cancelled${nonFatal}`;
}

/** "paces github.* at 5000 requests every 60 min (a bucket of 100); every answer's x-ratelimit-remaining and x-ratelimit-reset correct it; ..." */
export function rateLimitText(r: RateLimitView): string {
  const parts = [`paces ${r.tools.join(", ")}`];
  if (r.limit !== null) parts[0] += ` at ${plural(r.limit.requests, "request")} every ${duration(r.limit.per_ms)} (a token bucket of ${r.burst ?? r.limit.requests})`;
  if (r.adaptive === "aws") parts.push("the AWS SDK's adaptive retry mode (DefaultRateLimiter: off until the first throttling answer, then a bucket whose rate follows CUBIC)");
  if (r.headers !== null) parts.push(r.limit === null ? "from_headers is not read without a limit" : headersText(r));
  const wait = r.when_empty === "fail" ? "with none it fails at once (when_empty: fail)" : r.max_wait_ms === null ? "with none it waits for one, bounded only by the caller's deadline" : `with none it waits up to ${duration(r.max_wait_ms)} for one, never past the caller's deadline`;
  parts.push(`an attempt takes a token before it is sent (retries included; a hedge is sent only with one, never waiting); ${wait}`);
  return parts.join("; ");
}

/** "x-ratelimit-remaining and x-ratelimit-reset (a Unix time in seconds) of every answer correct the bucket (the github dialect)" */
function headersText(r: RateLimitView): string {
  const h = r.headers!;
  const dialect = typeof r.from_headers === "string" ? ` (the ${r.from_headers} dialect)` : "";
  if (h.ietf) return `the RateLimit field of every answer (the IETF httpapi draft: r= requests left, t= seconds to the reset) corrects the bucket${dialect}`;
  const reset = h.reset === null ? "" : ` and ${h.reset} (${RESET_FORMS[h.reset_form ?? "delay"]})`;
  return `${h.remaining}${reset} of every answer correct the bucket${dialect}: its tokens become at most what remains, refilled at the reset`;
}

export const RESET_FORMS: Record<NonNullable<NonNullable<RateLimitView["headers"]>["reset_form"]>, string> = {
  delay: "seconds from now, or an RFC 3339 time",
  epoch_seconds: "a Unix time in seconds",
  epoch_ms: "a Unix time in ms",
  duration: "a duration such as 6m0s",
};

/** What a refused attempt does, and what the registry makes of it. */
export function whenEmptyText(r: RateLimitView): string {
  const to = r.when_empty_verdicts.map((w) => `${w.verdict} (${w.action ?? "no playbook action"})`).join(" or ");
  return `an attempt it refuses is not sent: it fails at once as the adapter error rate_limited, which classifies to ${to}`;
}

const percentText = (ratio: number): string => `${Number((ratio * 100).toFixed(2))} %`;

/** Codes in a stable order that does not depend on the locale. */
export function compareCodes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function codeRow(v: Verdict, registry: Registry, playbook: Playbook): CodeRow {
  const action = playbook.verdicts[v.code];
  const worst = action ? worstCase(registry, playbook, v.code) : undefined;
  return {
    code: v.code,
    class: v.class,
    retryable: v.retryable,
    side_effect: sideEffectOf(v),
    status: statusOf(v),
    boundary: v.boundary ?? null,
    since: v.since ?? null,
    adr: v.adr ?? null,
    replaced_by: v.replaced_by ?? null,
    replacement_known: v.replaced_by !== undefined && registry.verdicts.some((o) => o.code === v.replaced_by),
    human_action_required: v.human_action_required ?? false,
    summary: v.summary ?? null,
    cause: v.cause ?? null,
    recovery: v.recovery ?? null,
    safe_next_actions: v.safe_next_actions ?? [],
    unsafe_next_actions: v.unsafe_next_actions ?? [],
    details: v.details ?? null,
    match: v.match ?? [],
    examples: exampleViews(v, registry),
    is_fallback: registry.fallback === v.code,
    action: action ? { name: action.action, detail: actionDetail(action), params: action } : null,
    worst_case: worst
      ? {
          attempts: worst.attempts,
          retries: worst.retries,
          delays_ms: worst.delays,
          total_backoff_ms: worst.totalBackoffMs,
          limited_by: worst.limitedBy ?? null,
          exceeds: worst.exceeds.map((e) => ({ budget: e.budget, limit_ms: e.limitMs })),
          retry_after: worst.retryAfter
            ? { honored: worst.retryAfter.honored, max_wait_ms: worst.retryAfter.maxWaitMs, mode: worst.retryAfter.mode, above_max: worst.retryAfter.aboveMax, over_backoff_ms: worst.retryAfter.overBackoffMs }
            : null,
          quota: worst.quota ? { capacity: worst.quota.capacity, cost: worst.quota.cost, retries: worst.quota.retries } : null,
          time: worst.time ? { attempt_timeout_ms: worst.time.attemptTimeoutMs, every_tool: worst.time.everyTool, worst_ms: worst.time.worstMs, wall_ms: playbook.budgets?.wall_ms ?? null } : null,
          ...(worst.hedged ? { hedged: { tools: worst.hedged.tools, max_attempts: worst.hedged.maxAttempts, attempts: worst.hedged.attempts } } : {}),
          paced: worst.paced
            ? { limits: worst.paced.limits.map((l) => ({ name: l.name, wait_ms: l.waitMs, bound: l.bound })), waiting_attempts: worst.paced.waitingAttempts, attempt_wait_ms: worst.paced.attemptWaitMs, total_wait_ms: worst.paced.totalWaitMs }
            : null,
        }
      : null,
  };
}

/** An action's parameters in a few words, for a table cell. */
export function actionDetail(a: CompensationAction): string {
  switch (a.action) {
    case "retry_with_backoff":
      return `${plural(a.max_retries, "retry", "retries")}; ${scheduleText(a)}`;
    case "retry_with_hint":
      return `${plural(a.max_retries, "retry", "retries")}; ${scheduleText(a)}; hint: ${a.hint}`;
    case "refresh_evidence":
    case "restore_checkpoint":
    case "refresh_credentials":
      return `then ${a.then}`;
    case "escalate_to_human":
    case "dead_letter":
      return `queue ${a.queue}`;
    case "issue_reversal":
      return a.reason;
    case "deprecate_tool_call":
      return a.replan ? `re-plan; ${a.reason}` : a.reason;
    case "fallback":
      return `to tool ${a.tool}`;
    case "fail":
      return a.message ?? "";
    default: {
      const never: never = a;
      return String(never);
    }
  }
}

function scheduleText(a: Extract<CompensationAction, { max_retries: number }>): string {
  if (a.backoff_ms) return `${a.backoff_ms.join(", ")} ms`;
  const f = a.backoff;
  if (!f) return "no delay";
  const cap = f.cap_ms !== undefined ? `, cap ${duration(f.cap_ms)}` : "";
  switch (f.strategy) {
    case "exponential":
      return `exponential from ${duration(f.base_ms)} ×${f.factor ?? 2}${cap}, ${jitterText(f.jitter)}`;
    case "linear":
    case "constant":
      return `${f.strategy} ${duration(f.base_ms)}${cap}, ${jitterText(f.jitter)}`;
    case "decorrelated":
      return `decorrelated jitter from ${duration(f.base_ms)}${cap}`;
  }
}

/** A jitter in words: "full jitter", "jitter ×0.8 to ×1.2 (symmetric)". */
export function jitterText(j: Jitter | undefined): string {
  if (j === undefined || j === "none") return "no jitter";
  if (j === "full" || j === "equal") return `${j} jitter`;
  if (typeof j === "number") return `jitter down to ${Number(((1 - j) * 100).toFixed(2))} % of the delay`;
  return `jitter ×${j.min} to ×${j.max} (the delay times a uniform draw from ${j.min} to ${j.max}${j.integer ? ", whole milliseconds" : ""})`;
}

/** Milliseconds for people: "800 ms", "2.6 s", "2 min 30 s". */
export function duration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(1))} s`;
  const min = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return s === 0 ? `${min} min` : `${min} min ${s} s`;
}

const LIMIT_NAMES: Record<RetryLimit, string> = {
  max_retries: "the action's max_retries",
  class_max_retries: "the class's max_retries",
  "budgets.retries": "budgets.retries",
  "budgets.retries_per_call": "budgets.retries_per_call",
  same_verdict_ceiling: "budgets.same_verdict_ceiling",
  retry_quota: "the retry quota (a full bucket)",
};

/** The static worst case in one sentence, for people. */
export function worstCaseText(row: CodeRow): string {
  const w = row.worst_case;
  if (!w) return "no playbook action";
  const parts = [`at most ${plural(w.attempts, "attempt")}`];
  if (w.retries > 0) {
    parts.push(`${duration(w.total_backoff_ms)} total backoff (${abbreviatedSum(w.delays_ms.map(duration), w.retries)}, jitter at its maximum)`);
    if (w.limited_by) parts.push(`retries capped by ${LIMIT_NAMES[w.limited_by]}`);
  } else if (row.action && (row.action.name === "retry_with_backoff" || row.action.name === "retry_with_hint")) {
    parts.push(row.retryable ? "no retry allowed by the limits" : "no retry: the verdict is not retryable");
  }
  for (const e of w.exceeds) parts.push(`exceeds budgets.${e.budget} (${duration(e.limit_ms)}), which cuts the dispatch short`);
  if (w.time) parts.push(timeText(w.time, w.attempts, w.total_backoff_ms, w.paced));
  if (w.retries > 0 && w.retry_after) parts.push(retryAfterWorst(w.retry_after));
  if (w.paced) parts.push(...pacedText(w.paced));
  if (w.hedged) parts.push(`a hedged call (${w.hedged.tools.join(", ")}) sends up to ${plural(w.hedged.attempts, "attempt")} (at most ${w.hedged.max_attempts} in flight) and never retries`);
  if (w.quota) parts.push(`each retry takes ${plural(w.quota.cost, "token")} of a shared quota of ${w.quota.capacity}, enough for ${w.quota.retries >= Number.MAX_SAFE_INTEGER ? "any number of" : w.quota.retries} retries when nothing refills it`);
  return parts.join("; ");
}

/** "each attempt may first wait up to 10 s for a token of rate limit github (at most 30 s over 3 attempts)" */
function pacedText(p: PacedView): string[] {
  const waits = p.limits.filter((l) => l.bound !== "fail");
  const fails = p.limits.filter((l) => l.bound === "fail");
  const parts: string[] = [];
  if (waits.length > 0) {
    const each = waits.map((l) => (l.wait_ms !== null ? `up to ${duration(l.wait_ms)} for a token of rate limit ${l.name}` : `for a token of rate limit ${l.name} without bound (${l.bound === "adaptive" ? "the AWS SDK's adaptive loop, no max_wait_ms" : "no max_wait_ms"}; only the caller's deadline ends it)`));
    const total = p.total_wait_ms !== null && p.waiting_attempts > 1 ? ` (at most ${duration(p.total_wait_ms)} over ${plural(p.waiting_attempts, "attempt")})` : "";
    parts.push(`each attempt may first wait ${each.join(", and ")}${total}`);
  }
  if (fails.length > 0) parts.push(`rate limit ${fails.map((l) => l.name).join(", ")} never holds an attempt (when_empty: fail: without a token it fails at once)`);
  return parts;
}

/** "at most 9.8 s in all (4 attempts × 2 s attempt timeout + 1.8 s backoff)" */
function timeText(t: NonNullable<WorstCaseView["time"]>, attempts: number, backoffMs: number, paced: PacedView | null): string {
  const waits = paced !== null && paced.total_wait_ms !== null && paced.total_wait_ms > 0 ? ` + ${duration(paced.total_wait_ms)} waiting for tokens` : "";
  const sum = `${plural(attempts, "attempt")} × ${duration(t.attempt_timeout_ms)} attempt timeout${backoffMs > 0 ? ` + ${duration(backoffMs)} backoff` : ""}${waits}`;
  const parts = [`at most ${duration(t.worst_ms)} in all (${sum})`];
  if (paced !== null && paced.total_wait_ms === null) parts.push("plus the waits for a token that nothing bounds");
  if (!t.every_tool) parts.push("for the tools under an attempt timeout; an attempt to another tool can wait without bound");
  if (t.wall_ms !== null && t.worst_ms > t.wall_ms) parts.push(`more than budgets.wall_ms (${duration(t.wall_ms)}), which ends the dispatch first`);
  return parts.join(", ");
}

function retryAfterWorst(r: NonNullable<WorstCaseView["retry_after"]>): string {
  if (!r.honored) return "Retry-After hints are ignored (honor_retry_after: false)";
  if (r.max_wait_ms === null) return "a server's Retry-After hint can stretch each wait without bound (set retry_after.max_ms)";
  const above = r.above_max === "give_up" ? "a longer hint gives up" : r.above_max === "ignore" ? "a longer hint is ignored" : "a longer hint is capped";
  return `a server's Retry-After hint can stretch each wait to ${duration(r.max_wait_ms)} (${above})`;
}

/** A Retry-After policy in a few words, e.g. "retry-after-ms, then retry-after; the longer of hint and backoff; at most 1 min, above it give up". */
export function retryAfterText(policy: RetryAfterPolicy): string {
  const ms = new Set((policy.ms_headers ?? []).map((h) => h.toLowerCase()));
  const headers = (policy.headers ?? DEFAULT_RETRY_AFTER_HEADERS).map((h) =>
    typeof h !== "string" ? `${h.name} (${h.duration === true ? "a duration" : `a Unix time in ${h.epoch === "ms" ? "ms" : "seconds"}`})` : ms.has(h.toLowerCase()) ? `${h} (ms)` : h,
  );
  const sources = [headers.join(", then ") + (policy.order === "response" ? " (the first in the response)" : ""), ...(policy.fields ?? []).map((f) => `field ${f} (ms)`), "the error's retry_after_ms"];
  const parts = [sources.join(", then ")];
  if (policy.parse === "number") parts.push("values read as JavaScript's Number");
  if (policy.parse === "float") parts.push("values read as parseFloat");
  if (policy.zero === "absent") parts.push("a 0 hint is none");
  if (policy.clock === "local") parts.push("dates against the local clock");
  if (policy.invalid === "give_up") parts.push("a negative or unreadable hint gives up");
  parts.push(policy.mode === "exact" ? "the hint exactly, neither raised to the backoff nor capped" : policy.mode === "replace" ? "the hint replaces the backoff" : "the longer of hint and backoff");
  if (policy.mode !== "exact" && policy.max_over_backoff_ms !== undefined) parts.push(`hint at most backoff + ${duration(policy.max_over_backoff_ms)}`);
  if (policy.mode !== "exact" && policy.max_ms !== undefined) parts.push(`at most ${duration(policy.max_ms)}, above it ${policy.above_max === "give_up" ? "give up" : policy.above_max === "ignore" ? "ignore the hint" : "wait the maximum"}`);
  return parts.join("; ");
}

/** The playbook's retry quota in one sentence. */
export function quotaText(q: RetryQuota): string {
  const costs = [`a retry costs ${q.cost ?? DEFAULT_RETRY_COST}`];
  for (const [name, cost] of Object.entries(q.cost_by_class ?? {})) costs.push(`${cost} for class ${name}`);
  for (const [name, cost] of Object.entries(q.cost_by_kind ?? {})) costs.push(`${cost} for kind ${name}`);
  const recovery = q.refund_on_recovery ?? "last";
  const back = recovery === "none" ? "nothing on recovery" : recovery === "all" ? "every retry's cost on recovery" : "the last retry's cost on recovery";
  return `${q.capacity} tokens shared by every call; ${costs.join(", ")}; gives back ${q.refund ?? DEFAULT_REFUND} on a first-try success and ${back}`;
}

/** A match rule in one line, e.g. "kind 409_conflict and message contains idempotency". */
export function matchText(rule: MatchRule): string {
  const field = (label: string, v: unknown): string | undefined => (v === undefined ? undefined : `${label} ${Array.isArray(v) ? v.join(" or ") : String(v)}`);
  const parts = [
    field("kind", rule.kind),
    field("http_status", rule.http_status),
    field("provider_code", rule.provider_code),
    field("message contains", rule.message_contains),
    field("tool", rule.tool),
    field("side_effect_state", rule.side_effect_state),
    field("message matches", rule.message_matches),
    ...Object.entries(rule.headers ?? {}).map(([name, v]) => (v === "*" || (Array.isArray(v) && v.includes("*")) ? `header ${name} present` : field(`header ${name}`, v))),
    ...Object.entries(rule.fields ?? {}).map(([name, v]) => field(`field ${name}`, v)),
    rule.cause === undefined ? undefined : `a cause with ${matchText(rule.cause)}`,
    rule.retry_after === undefined ? undefined : "a valid Retry-After hint present",
    rule.not === undefined ? undefined : `not (${matchText(rule.not)})`,
  ]
    .filter((s): s is string => s !== undefined);
  return parts.length === 0 ? "any error" : parts.join(" and ");
}

/** Codes listed in the main table (active and deprecated), and the reserved ones apart. */
export function partition(model: RegistryModel): { listed: CodeRow[]; reserved: CodeRow[] } {
  return { listed: model.codes.filter((r) => r.status !== "reserved"), reserved: model.codes.filter((r) => r.status === "reserved") };
}
