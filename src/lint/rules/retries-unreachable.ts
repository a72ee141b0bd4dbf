import type { PathSegment, Position } from "failbook-runtime/model/finding.js";
import { isRetryAction, type Playbook, type RetryAction } from "failbook-runtime/model/playbook.js";
import { statusOf } from "failbook-runtime/model/registry.js";
import { retryDelay } from "failbook-runtime/engine/backoff.js";
import type { Random } from "failbook-runtime/engine/random.js";
import type { LintRule } from "../rule.js";
import { playbookEntries } from "./support.js";

/** Always the bottom of the range: the shortest a jittered schedule can be. */
const minRandom: Random = () => 0;

/** A budget that ends the dispatch before the action's own max_retries would. */
interface Cap {
  /** Where the budget is set. */
  path: PathSegment[];
  /** Retries that still happen under it. */
  retries: number;
  /** The budget's value, as the message shows it. */
  value: string;
  /** Why the next retry does not come, in a few words. */
  why: string;
  /** How the dispatch ends instead. */
  ends: string;
}

export const retriesUnreachable: LintRule = {
  id: "retries-unreachable",
  severity: "warning",
  verdictFields: ["code", "status", "class", "retryable"],
  description: "A verdict's max_retries that a budget (same_verdict_ceiling, budgets.retries, retry_seconds, wall_ms) cuts short: the dispatch never ends as the action says.",
  check(ctx) {
    const { registry, playbook } = ctx;
    // Where each budget is set, located once: hundreds of findings point at the same few.
    const budgetAt = new Map<string, Position>();
    for (const { verdict, code, action } of playbookEntries(ctx)) {
      if (!isRetryAction(action) || statusOf(verdict) === "reserved" || !verdict.retryable) continue;
      const classMax = Object.hasOwn(registry.value.classes, verdict.class) ? registry.value.classes[verdict.class].max_retries : undefined;
      // What the action promises, within its class's ceiling (class-retry-ceiling says the rest).
      const promised = classMax === undefined ? action.max_retries : Math.min(action.max_retries, classMax);
      const cap = firstCapOf(playbook.value, action, promised);
      if (cap === undefined) continue;
      const where = cap.path.join(".");
      let setAt = budgetAt.get(where);
      if (setAt === undefined) budgetAt.set(where, (setAt = playbook.doc.locate(cap.path)));
      ctx.report({
        message: `max_retries ${promised} for '${code}' cannot be reached: ${where} ${cap.value} ends the dispatch after ${cap.retries === 1 ? "1 retry" : `${cap.retries} retries`} (${cap.why}), ${cap.ends}, not exhausted after ${promised} as max_retries says; lower max_retries to ${cap.retries}, or raise ${where}`,
        doc: playbook.doc,
        path: ["verdicts", code, "max_retries"],
        related: [{ message: `${where} is set here`, position: setAt }],
      });
    }
  },
  example: `# playbooks/playbook.yaml
budgets: { same_verdict_ceiling: 3 }
verdicts:
  upstream_unavailable: { action: retry_with_backoff, max_retries: 3, backoff_ms: [200, 400, 800] }`,
  fix: "Lower max_retries to what the budget allows, so the playbook says what the dispatch does, or raise the budget (same_verdict_ceiling above max_retries, budgets.retries, or retry_seconds and wall_ms above the shortest backoff) if the verdict should retry that often.",
};

/**
 * Each action's first cap, with the playbook and promise it was worked out for: the loader
 * keeps an unchanged playbook's objects, so a rename, which runs this rule again, works out
 * none of the thousands again.
 */
const caps = new WeakMap<RetryAction, { playbook: Playbook; promised: number; cap: Cap | undefined }>();

function firstCapOf(playbook: Playbook, action: RetryAction, promised: number): Cap | undefined {
  const known = caps.get(action);
  if (known !== undefined && known.playbook === playbook && known.promised === promised) return known.cap;
  const cap = firstCap(playbook, action, promised);
  caps.set(action, { playbook, promised, cap });
  return cap;
}

/**
 * The budget that ends the dispatch first, with fewer retries than `promised` (SPEC 4): the
 * same-verdict ceiling (checked at each failure, before the action's guards, so it wins a
 * tie), a retry count, or the time the shortest backoff takes (jitter at its least, attempts
 * taking no time); undefined when the action's own max_retries is reached.
 */
function firstCap(playbook: Playbook, action: RetryAction, promised: number): Cap | undefined {
  const budgets = playbook.budgets ?? {};
  let cap: Cap | undefined;
  for (const budget of ["retries", "retries_per_call"] as const) {
    const limit = budgets[budget];
    if (limit !== undefined && limit < (cap?.retries ?? promised)) cap = { path: ["budgets", budget], retries: limit, value: `(${limit})`, why: budget === "retries" ? "the dispatch's retries, of any verdict, run out" : "the call's retries run out", ends: `exhausted (budget_${budget})` };
  }
  const ceiling = budgets.same_verdict_ceiling;
  if (ceiling !== undefined && ceiling - 1 < promised && ceiling - 1 <= (cap?.retries ?? promised)) {
    cap = { path: ["budgets", "same_verdict_ceiling"], retries: ceiling - 1, value: `(${ceiling})`, why: `the verdict's failure ${ceiling} escalates`, ends: `escalated to '${playbook.escalation_queue ?? "default"}'` };
  }
  return timeCap(budgets, action, cap?.retries ?? promised) ?? cap;
}

/** The first retry whose shortest delay takes the total backoff past retry_seconds or the clock past wall_ms, when it comes before retry `counted`. */
function timeCap(budgets: NonNullable<Playbook["budgets"]>, action: RetryAction, counted: number): Cap | undefined {
  const limits = [
    budgets.retry_seconds === undefined ? undefined : { ms: budgets.retry_seconds * 1000, budget: "retry_seconds", reason: "budget_retry_seconds", value: `${budgets.retry_seconds} s` },
    budgets.wall_ms === undefined ? undefined : { ms: budgets.wall_ms, budget: "wall_ms", reason: "budget_wall", value: `${budgets.wall_ms} ms` },
  ].filter((l) => l !== undefined);
  if (limits.length === 0) return undefined;
  let total = 0;
  let previous: number | undefined;
  for (let n = 0; n < counted; n++) {
    previous = retryDelay(action, n, previous, minRandom);
    total += previous;
    const passed = limits.find((l) => total > l.ms);
    if (passed) {
      return { path: ["budgets", passed.budget], retries: n, value: `(${passed.value})`, why: `even the shortest backoff before retry ${n + 1} totals ${total} ms`, ends: `exhausted (${passed.reason})` };
    }
  }
  return undefined;
}
