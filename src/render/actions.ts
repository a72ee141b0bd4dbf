/**
 * The action reference: each playbook action's parameters, what dispatch does with it, and
 * how it can end (SPEC 3.1 and 4). `failbook explain ACTION` prints it in the terminal and
 * docs/actions.md carries the same text as Markdown (written by `npm run docs`), so the two
 * cannot drift.
 */
import type { Colors } from "../util/colors.js";
import { ACTION_NAMES, type ActionName } from "failbook-runtime/model/playbook.js";

export interface ActionParameter {
  name: string;
  required: boolean;
  /** What it takes and means, in one or two sentences. */
  text: string;
}

export interface ActionReference {
  name: ActionName;
  /** One line: what the action is for. */
  summary: string;
  parameters: ActionParameter[];
  /** What dispatch does, step by step. */
  semantics: string[];
  /** The outcomes it can end with, each with when. */
  outcomes: string[];
  example: string;
}

const RETRY_PARAMETERS: ActionParameter[] = [
  { name: "max_retries", required: true, text: "retries after the first attempt (0 to 1000); the verdict's class max_retries caps it." },
  { name: "backoff_ms", required: false, text: "an explicit delay schedule, one entry per retry, used as is (no jitter); lint wants it at least max_retries long." },
  {
    name: "backoff",
    required: false,
    text: "a formula instead: { strategy: exponential | linear | constant | decorrelated, base_ms, factor (exponential, default 2), cap_ms, jitter: none | full | equal | a ratio in (0, 1], min_ms }. Jitter draws come from the seeded random source.",
  },
  { name: "retry_after", required: false, text: "this verdict's own Retry-After policy ({ headers, ms_headers, fields, max_ms, above_max, mode, max_over_backoff_ms, invalid, parse, zero, order, clock }; see docs/files.md), replacing the playbook's." },
];

const RETRY_SEMANTICS = [
  "Each failed attempt is classified afresh; while it is this verdict, the guards run in order and the first that applies ends the dispatch:",
  "  a. the call is not idempotent (its idempotent: false, or a matching tools: entry) -> failed, reason non_idempotent; when the side effect is unknown and the playbook sets on_unknown_side_effect, escalated to its queue instead, reason side_effect_unknown;",
  "  b. the error's side_effect_state is committed -> failed, reason side_effect_committed;",
  "  c. the verdict is retryable: false -> failed, reason not_retryable;",
  "  c'. the call is hedged (the playbook's hedging, SPEC 18): its retries are its hedges -> exhausted, reason hedged (retry_throttled when retry throttling stopped the hedges);",
  "  d. this verdict's retries reached max_retries (reason max_retries) or the class's max_retries (class_max_retries) -> exhausted;",
  "  e. budgets.retries, the retry quota, retry_seconds or wall_ms would be exceeded, or a Retry-After hint is above max_ms with above_max: give_up (retry_after_too_long), or negative or unparseable with invalid: give_up (retry_after_invalid) -> exhausted, with that as reason.",
  "Otherwise retry_scheduled is emitted with delay_ms (the schedule's delay, raised to the server's Retry-After hint when honor_retry_after), the clock advances, and the call is attempted again with the same idempotency key.",
];

const REFERENCE: Record<ActionName, Omit<ActionReference, "name">> = {
  retry_with_backoff: {
    summary: "Try the same call again after a delay, with the same idempotency key.",
    parameters: RETRY_PARAMETERS,
    semantics: RETRY_SEMANTICS,
    outcomes: [
      "recovered: a later attempt succeeded;",
      "exhausted: the retries or a budget ran out (on_exhausted may turn it into escalated or dead_lettered, with exhausted: true);",
      "failed: a guard refused the retry (non_idempotent, side_effect_committed, not_retryable);",
      "escalated: on_unknown_side_effect caught a refused retry whose side effect is unknown;",
      "whatever the next verdict's action does, when a retry fails with another verdict.",
    ],
    example: "transient_timeout: { action: retry_with_backoff, max_retries: 3, backoff_ms: [200, 600, 1800] }",
  },
  retry_with_hint: {
    summary: "Retry as retry_with_backoff does, recording a hint (what to change) on every retry.",
    parameters: [...RETRY_PARAMETERS.slice(0, 1), { name: "hint", required: true, text: "the text recorded on each retry_scheduled event, e.g. for the model that builds the next attempt." }, ...RETRY_PARAMETERS.slice(1)],
    semantics: [...RETRY_SEMANTICS, "Each retry_scheduled event carries the hint."],
    outcomes: ["as retry_with_backoff: recovered, exhausted, failed, escalated (on_unknown_side_effect), or the next verdict's end."],
    example: "tool_args_invalid: { action: retry_with_hint, max_retries: 1, hint: fix the arguments named in the error, backoff_ms: [0] }",
  },
  refresh_evidence: {
    summary: "The context the call was built from is stale: refresh it, then try once more or give up.",
    parameters: [{ name: "then", required: true, text: "retry (one immediate attempt after the refresh) or abort." }],
    semantics: ["Emits evidence_refreshed (with the call's evidence_refs).", "then: abort ends the dispatch deprecated, replan: true, reason refresh_evidence then abort.", "then: retry makes one immediate attempt: ok -> recovered; any failure -> deprecated, reason post-refresh retry still failing."],
    outcomes: ["recovered: the attempt after the refresh succeeded;", "deprecated (replan: true): then: abort, or the attempt after the refresh failed."],
    example: "evidence_stale: { action: refresh_evidence, then: retry }",
  },
  restore_checkpoint: {
    summary: "Roll the run back to its last checkpoint, then try once more or give up.",
    parameters: [{ name: "then", required: true, text: "retry (one immediate attempt after the restore) or abort." }],
    semantics: ["Emits checkpoint_restored.", "then: abort ends the dispatch deprecated, replan: true.", "then: retry makes one immediate attempt: ok -> recovered; any failure -> deprecated."],
    outcomes: ["recovered: the attempt after the restore succeeded;", "deprecated (replan: true): then: abort, or the attempt after the restore failed."],
    example: "plan_diverged: { action: restore_checkpoint, then: retry }",
  },
  refresh_credentials: {
    summary: "The call's credentials expired or were revoked: refresh them, then try once more or give up.",
    parameters: [{ name: "then", required: true, text: "retry (one immediate attempt after the refresh) or abort." }],
    semantics: ["Emits credentials_refreshed; in production the refreshCredentials effect runs first, and the retry's attempt context says refreshed: credentials.", "then: abort ends the dispatch deprecated, replan: true.", "then: retry makes one immediate attempt: ok -> recovered; any failure -> deprecated."],
    outcomes: ["recovered: the attempt after the refresh succeeded;", "deprecated (replan: true): then: abort, or the attempt after the refresh failed."],
    example: "token_expired: { action: refresh_credentials, then: retry }",
  },
  escalate_to_human: {
    summary: "Stop and hand the failure to a person, with a recovery packet.",
    parameters: [{ name: "queue", required: true, text: "the queue the recovery packet goes to (policy_review, oncall, ...)." }],
    semantics: ["Emits escalated with the queue.", "The outcome carries a recovery packet: code, summary, attempts, idempotency key, side-effect state, safe and unsafe next actions, a suggested prompt."],
    outcomes: ["escalated, with queue and packet."],
    example: "policy_denied: { action: escalate_to_human, queue: policy_review }",
  },
  issue_reversal: {
    summary: "Undo a committed side effect with the call's reversal token.",
    parameters: [{ name: "reason", required: true, text: "why the reversal is issued; recorded on the reversal_issued event." }],
    semantics: ["With a reversal_token on the call: emits reversal_issued (token and reason) -> reversed.", "Without one: emits reversal_refused -> exhausted, reason no_reversal_token. A reversal never fires without a token."],
    outcomes: ["reversed, with the reason: the reversal was issued;", "exhausted: the call had no reversal token."],
    example: "write_committed_wrong: { action: issue_reversal, reason: the write landed on the wrong account }",
  },
  deprecate_tool_call: {
    summary: "Drop this call: the agent must not repeat it, and may re-plan.",
    parameters: [
      { name: "reason", required: true, text: "why the call is dropped; shown to the agent in the envelope." },
      { name: "replan", required: true, text: "true when the agent should build a new plan without this call." },
    ],
    semantics: ["Ends the dispatch at once; nothing is retried."],
    outcomes: ["deprecated, with reason and replan."],
    example: "idempotency_conflict: { action: deprecate_tool_call, reason: upstream already processed this idempotency_key, replan: true }",
  },
  fallback: {
    summary: "Send the same call to another tool.",
    parameters: [{ name: "tool", required: true, text: "the tool the call is sent to instead (simulation reads the fixture's fallback_responses)." }],
    semantics: [
      "Emits fallback_started; the call is dispatched again with tool replaced, sharing the clock and the budgets.",
      "A fallback inside a fallback ends failed, reason fallback_chain.",
    ],
    outcomes: ["the fallback's outcome, except that a fallback that succeeded makes the whole dispatch recovered;", "failed, reason fallback_chain."],
    example: "provider_down: { action: fallback, tool: backup_provider.search }",
  },
  fail: {
    summary: "End the dispatch as failed, with an optional message.",
    parameters: [{ name: "message", required: false, text: "the reason shown in the outcome and the envelope." }],
    semantics: ["Ends the dispatch at once; nothing is retried. Lint (retryable-not-retried) notes a retryable verdict that only fails."],
    outcomes: ["failed, with the message as reason."],
    example: "request_invalid: { action: fail, message: the request is malformed; fix the adapter }",
  },
  dead_letter: {
    summary: "Park the failed call in a dead-letter queue for later triage.",
    parameters: [{ name: "queue", required: true, text: "the dead-letter queue." }],
    semantics: ["Emits dead_lettered; the outcome carries the entry (the call, its errors, the envelope, first-attempt and dead-letter times)."],
    outcomes: ["dead_lettered, with queue."],
    example: "webhook_rejected: { action: dead_letter, queue: webhooks_dlq }",
  },
};

export const isActionName = (name: string): name is ActionName => (ACTION_NAMES as readonly string[]).includes(name);

export function actionReference(name: ActionName): ActionReference {
  return { name, ...REFERENCE[name] };
}

/** `failbook explain ACTION`: the reference in the terminal, plus which verdicts use it when a playbook is at hand. */
export function explainActionText(name: ActionName, c: Colors, usedBy?: readonly string[]): string {
  const ref = actionReference(name);
  const out = [`${c.bold(ref.name)}  ${c.dim("(playbook action)")}`, ref.summary, "", c.bold("Parameters")];
  const width = Math.max(...ref.parameters.map((p) => p.name.length));
  for (const p of ref.parameters) out.push(`  ${c.cyan(p.name.padEnd(width))}  ${p.required ? "required" : "optional"}: ${p.text}`);
  out.push("", c.bold("Dispatch"), ...ref.semantics.map((s) => `  ${s}`));
  out.push("", c.bold("Outcomes"), ...ref.outcomes.map((o) => `  - ${o}`));
  out.push("", c.bold("Example"), `  ${ref.example}`);
  if (usedBy !== undefined) {
    out.push("", c.bold("In this playbook"), usedBy.length > 0 ? `  ${usedBy.join(", ")}` : "  no verdict uses it");
  }
  return out.join("\n") + "\n";
}

/** The action reference of docs/actions.md: every action, in the SPEC's order. */
export function actionReferenceMarkdown(): string {
  const out: string[] = [];
  for (const name of ACTION_NAMES) {
    const ref = actionReference(name);
    out.push(`#### \`${ref.name}\``, "", ref.summary, "", "| parameter | | |", "| --- | --- | --- |");
    for (const p of ref.parameters) out.push(`| \`${p.name}\` | ${p.required ? "required" : "optional"} | ${p.text.replace(/\|/g, "\\|")} |`);
    out.push("", "Dispatch:", "", ...ref.semantics.map((s) => (s.startsWith("  ") ? `  - ${s.trim()}` : `- ${s}`)), "", "Outcomes:", "", ...ref.outcomes.map((o) => `- ${o}`), "", "```yaml", ref.example, "```", "");
  }
  return out.join("\n").trimEnd();
}
