/**
 * The rendered registry as data: one row per code with its guidance, its playbook action and
 * the action's static worst case. Markdown, HTML, JSON and `explain` all print this model, so
 * every format says the same thing about a code.
 */
import type { ActionName, Budgets, CompensationAction, Playbook, RetryAfterPolicy, RetryQuota } from "failbook-runtime/model/playbook.js";
import { DEFAULT_REFUND, DEFAULT_RETRY_COST } from "failbook-runtime/engine/quota.js";
import { DEFAULT_RETRY_AFTER_HEADERS } from "failbook-runtime/engine/retry-after.js";
import { sideEffectOf, statusOf, type MatchRule, type Registry, type SideEffectState, type Verdict, type VerdictStatus } from "failbook-runtime/model/registry.js";
import { worstCase, type RetryLimit } from "failbook-runtime/engine/worstcase.js";
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
  /** When the playbook hedges (SPEC 18): a hedged call's attempts (its hedges; it never retries). */
  hedged?: { tools: string[]; max_attempts: number; attempts: number };
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

export interface RegistryModel {
  registry: { name: string; revision: number; fallback: string };
  playbook: {
    name: string;
    budgets: Budgets;
    honor_retry_after: boolean;
    retry_after: RetryAfterPolicy | null;
    backoff_index: "per_verdict" | "per_call";
    retry_quota: RetryQuota | null;
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
    },
    classes: Object.entries(registry.classes).map(([name, c]) => ({ name, description: c.description ?? null, max_retries: c.max_retries ?? null, adr: c.adr ?? null })),
    error_fields: Object.entries(registry.error_fields ?? {}).map(([name, f]) => ({ name, type: f.type, description: f.description ?? null })),
    codes,
  };
  return options.redact ? redactValue(model, options.redact) : model;
}

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
          ...(worst.hedged ? { hedged: { tools: worst.hedged.tools, max_attempts: worst.hedged.maxAttempts, attempts: worst.hedged.attempts } } : {}),
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
      return `exponential from ${duration(f.base_ms)} ×${f.factor ?? 2}${cap}, ${f.jitter ?? "no"} jitter`;
    case "linear":
    case "constant":
      return `${f.strategy} ${duration(f.base_ms)}${cap}, ${f.jitter ?? "no"} jitter`;
    case "decorrelated":
      return `decorrelated jitter from ${duration(f.base_ms)}${cap}`;
  }
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
  if (w.retries > 0 && w.retry_after) parts.push(retryAfterWorst(w.retry_after));
  if (w.hedged) parts.push(`a hedged call (${w.hedged.tools.join(", ")}) sends up to ${plural(w.hedged.attempts, "attempt")} (at most ${w.hedged.max_attempts} in flight) and never retries`);
  if (w.quota) parts.push(`each retry takes ${plural(w.quota.cost, "token")} of a shared quota of ${w.quota.capacity}, enough for ${w.quota.retries >= Number.MAX_SAFE_INTEGER ? "any number of" : w.quota.retries} retries when nothing refills it`);
  return parts.join("; ");
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
  const headers = (policy.headers ?? DEFAULT_RETRY_AFTER_HEADERS).map((h) => (ms.has(h.toLowerCase()) ? `${h} (ms)` : h));
  const parts = [headers.join(", then ") + ", then the error's retry_after_ms"];
  parts.push(policy.mode === "replace" ? "the hint replaces the backoff" : "the longer of hint and backoff");
  if (policy.max_over_backoff_ms !== undefined) parts.push(`hint at most backoff + ${duration(policy.max_over_backoff_ms)}`);
  if (policy.max_ms !== undefined) parts.push(`at most ${duration(policy.max_ms)}, above it ${policy.above_max === "give_up" ? "give up" : policy.above_max === "ignore" ? "ignore the hint" : "wait the maximum"}`);
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
  ]
    .filter((s): s is string => s !== undefined);
  return parts.length === 0 ? "any error" : parts.join(" and ");
}

/** Codes listed in the main table (active and deprecated), and the reserved ones apart. */
export function partition(model: RegistryModel): { listed: CodeRow[]; reserved: CodeRow[] } {
  return { listed: model.codes.filter((r) => r.status !== "reserved"), reserved: model.codes.filter((r) => r.status === "reserved") };
}
