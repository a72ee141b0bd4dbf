/**
 * One code for the terminal, in the spirit of `rustc --explain`: what it means, why it
 * happens, what to do and not do, what the playbook does with it (and how bad that can get),
 * and which fixtures exercise it.
 */
import type { Colors } from "../util/colors.js";
import { inert, inertJson, inertValue } from "failbook-runtime/util/inert.js";
import { nearest } from "../util/text.js";
import { honorsRetryAfter, isRetryAction, retryAfterPolicyOf } from "failbook-runtime/model/playbook.js";
import { exampleText, exampleVerdictText } from "./examples.js";
import type { Exercise } from "./exercises.js";
import { outcomeFor } from "failbook-runtime/engine/policies/breakers.js";
import { breakerText, matchText, quotaText, rateLimitText, retryAfterText, retryBudgetText, throttlingText, timeoutsText, whenEmptyText, whenOpenText, worstCaseText, type CodeRow, type RegistryModel } from "./model.js";

export type CodeLookup =
  | { found: CodeRow }
  /** Only case tells these codes apart. */
  | { ambiguous: string[] }
  | { suggestions: string[] };

/** Find a code, case-insensitively; an exact match wins over a case-insensitive one. */
export function lookupCode(model: RegistryModel, query: string): CodeLookup {
  const exact = model.codes.find((r) => r.code === query);
  if (exact) return { found: exact };
  const folded = model.codes.filter((r) => r.code.toLowerCase() === query.toLowerCase());
  if (folded.length === 1) return { found: folded[0] };
  if (folded.length > 1) return { ambiguous: folded.map((r) => r.code) };
  return { suggestions: nearest(query, model.codes.map((r) => r.code)) };
}

export interface ExplainOptions {
  c: Colors;
  /** Wrap prose at this many columns (a terminal); no wrapping when absent (a pipe). */
  width?: number;
}

export function explainCode(raw: CodeRow, model: RegistryModel, rawExercises: readonly Exercise[], options: ExplainOptions): string {
  const { c } = options;
  // Every value from YAML prints on one line (a code, a queue, a fixture name cannot start a
  // line of its own), except the paragraphs, whose line breaks wrap() keeps and indents.
  const row = inertValue(raw);
  const exercises = inertValue(rawExercises);
  const paragraph = (text: string) => inert(text, "text");
  const wrap = (text: string, indent: string) => wrapText(text, indent, options.width);
  const out: string[] = [];
  const heading = (title: string) => out.push("", c.bold(title));
  const para = (title: string, text: string | null) => {
    if (text === null) return;
    heading(title);
    out.push(wrap(text, "  "));
  };
  const bullets = (title: string, items: string[], mark: string) => {
    if (items.length === 0) return;
    heading(title);
    for (const item of items) out.push(wrap(item, "    ").replace(/^ {4}/, `  ${mark} `));
  };

  out.push(`${c.bold(row.code)}  ${c.dim(`(${row.status})`)}`);
  if (row.summary) out.push(wrap(row.summary, ""));
  if (row.status === "deprecated") out.push(c.yellow(`deprecated: use ${row.replaced_by ?? "another code"} instead${row.replaced_by && !row.replacement_known ? " (not in this registry)" : ""}`));
  if (row.status === "reserved") out.push(c.dim("reserved: a name kept for later; no rule produces this code yet"));

  const cls = model.classes.find((k) => k.name === raw.class);
  const facts: [string, string][] = [
    ["class", cls?.description ? `${row.class}: ${paragraph(cls.description)}` : row.class],
    ["retryable", row.retryable ? "yes" : "no"],
    ["side effect", row.side_effect],
  ];
  if (row.boundary !== null) facts.push(["boundary", row.boundary]);
  facts.push(["human action", row.human_action_required ? "required" : "not required"]);
  if (row.since !== null) facts.push(["since", `revision ${row.since}`]);
  facts.push(["adr", row.adr ?? "none"]);
  if (row.is_fallback) facts.push(["fallback", "yes: an error that no rule recognises classifies as this code"]);
  out.push("");
  const labelWidth = Math.max(...facts.map(([k]) => k.length)) + 2;
  for (const [k, v] of facts) out.push(wrap(v, " ".repeat(labelWidth + 2)).replace(/^ +/, `  ${c.dim(k.padEnd(labelWidth))}`));

  para("Cause", raw.cause === null ? null : paragraph(raw.cause));
  para("Recovery", raw.recovery === null ? null : paragraph(raw.recovery));
  bullets("Safe next actions", raw.safe_next_actions.map(paragraph), "+");
  bullets("Unsafe next actions", raw.unsafe_next_actions.map(paragraph), "-");

  heading("Playbook action");
  if (row.action) {
    out.push(`  ${c.cyan(row.action.name)}${row.action.detail ? `: ${row.action.detail}` : ""}`);
    out.push(wrap(`worst case: ${worstCaseText(row)}`, "  "));
    const params = raw.action?.params;
    if (params !== undefined && isRetryAction(params) && row.retryable) {
      // The policy in force, as the engine reads it.
      const own = params.retry_after !== undefined ? " (this action's own)" : "";
      out.push(wrap(honorsRetryAfter(model.playbook) ? `retry after${own}: ${inert(retryAfterText(retryAfterPolicyOf(model.playbook, params)))}` : "retry after: ignored (honor_retry_after: false)", "  "));
      if (model.playbook.backoff_index === "per_call") out.push(wrap("backoff index: per call (the n-th retry of the call waits the n-th delay, whatever its verdict)", "  "));
      if (model.playbook.retry_quota !== null) out.push(wrap(`retry quota: ${inert(quotaText(model.playbook.retry_quota))}`, "  "));
      const { retry_budget, retry_throttling } = model.playbook.policies;
      if (retry_budget !== null) out.push(wrap(`retry budget: ${retryBudgetText(retry_budget)}`, "  "));
      if (retry_throttling !== null) out.push(wrap(`retry throttling: ${throttlingText(retry_throttling)}`, "  "));
    }
    if (params?.action === "refresh_credentials") {
      out.push(wrap(params.then === "retry" ? 'refresh credentials: effects.refreshCredentials(call) runs (event credentials_refreshed), then one immediate attempt whose context says refreshed: "credentials"; if it fails too, the call is deprecated with replan' : "refresh credentials: effects.refreshCredentials(call) runs (event credentials_refreshed), then the call is deprecated with replan (then: abort)", "  "));
    }
    for (const policy of policyLines(raw, model)) out.push(wrap(inert(policy), "  "));
  } else {
    out.push(row.status === "reserved" ? "  none (reserved codes need none)" : "  none: the playbook has no action for this code (lint reports playbook-exhaustive)");
  }

  if (row.match.length > 0) {
    heading("Recognised when");
    for (const rule of row.match) out.push(`  ${matchText(rule)}`);
  }
  if (row.examples.length > 0) {
    heading("Examples");
    for (const e of row.examples) out.push(`  ${exampleText(e.error)}`, `    ${c.dim(exampleVerdictText(e, row.code))}`);
  }
  if (row.details) {
    heading("Details schema");
    out.push(inertJson(raw.details, 2).replace(/^/gm, "  "));
  }

  heading("Fixtures that exercise it");
  if (exercises.length === 0) {
    out.push(row.status === "reserved" ? "  none" : `  none: add a fixture whose expect.verdict is ${row.code}`);
  } else {
    const groups = byFixture(exercises);
    const where = groups.map((g) => `${g[0].file}:${g[0].line}`);
    const width = Math.max(...where.map((w) => w.length));
    const nameWidth = Math.max(...groups.map((g) => g[0].fixture.length));
    groups.forEach((g, i) => out.push(`  ${where[i].padEnd(width)}  ${g[0].fixture.padEnd(nameWidth)}  ${c.dim(exerciseSummary(g))}`));
  }
  return out.join("\n") + "\n";
}

/** The shared policies of SPEC 18 and 22 as they bear on this code: attempt timeouts, each breaker, each rate limit over its tools or refusing to it. */
function policyLines(row: CodeRow, model: RegistryModel): string[] {
  const policies = model.playbook.policies;
  const lines: string[] = [];
  if (policies.attempt_timeout_ms !== null || policies.tool_timeouts.length > 0) lines.push(`attempt timeout: ${timeoutsText(policies)}`);
  for (const b of policies.breakers) {
    const stops = b.when_open.some((w) => w.verdict === row.code);
    const counted = outcomeFor({ tools: b.tools, ...(b.counts === null ? {} : { counts: b.counts }) }, { verdictClass: row.class, retryable: row.retryable, errorKind: undefined }) === "failure";
    const mine = stops ? "an attempt it stops classifies as this code" : counted ? "a failure with this code counts toward opening it" : "a failure with this code does not count toward it";
    lines.push(`breaker ${b.name}: ${mine}; ${breakerText(b)}; ${whenOpenText(b)}`);
  }
  const paced = new Set(row.worst_case?.paced?.limits.map((l) => l.name) ?? []);
  for (const r of policies.rate_limits) {
    const refuses = r.when_empty_verdicts.some((w) => w.verdict === row.code);
    if (!refuses && !paced.has(r.name)) continue;
    const mine = refuses ? "an attempt it refuses classifies as this code" : "it paces the tools this code can come from";
    lines.push(`rate limit ${r.name}: ${mine}; ${rateLimitText(r)}; ${whenEmptyText(r)}`);
  }
  return lines;
}

/** One group per fixture, in the order of the fixtures' first place. */
function byFixture(exercises: readonly Exercise[]): Exercise[][] {
  const groups = new Map<string, Exercise[]>();
  for (const e of exercises) {
    const key = `${e.file}\u0000${e.fixture}`;
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  return [...groups.values()];
}

/** "responses[0], responses[1] classify as it; the golden names it at expect.events[*].verdict (4)" */
function exerciseSummary(group: readonly Exercise[]): string {
  const failures = group.filter((e) => e.via === "failure").map((e) => e.at);
  const golden = new Map<string, number>();
  for (const e of group.filter((x) => x.via === "golden")) {
    const at = e.at.replace(/\[\d+\]/g, "[*]");
    golden.set(at, (golden.get(at) ?? 0) + 1);
  }
  const parts: string[] = [];
  if (failures.length > 0) parts.push(`${failures.join(", ")} ${failures.length === 1 ? "classifies" : "classify"} as it`);
  if (golden.size > 0) parts.push(`the golden names it at ${[...golden].map(([at, n]) => (n > 1 ? `${at} (${n})` : at)).join(", ")}`);
  return parts.join("; ");
}

/** Word-wrap `text` to `width` columns, every line starting with `indent`; source newlines kept. */
export function wrapText(text: string, indent: string, width: number | undefined): string {
  const lines = text.trim().split(/\r?\n/);
  if (width === undefined) return lines.map((l) => indent + l.trim()).join("\n");
  const max = Math.max(20, width - indent.length);
  const out: string[] = [];
  for (const line of lines) {
    let current = "";
    for (const word of line.trim().split(/\s+/)) {
      if (current && current.length + 1 + word.length > max) {
        out.push(indent + current);
        current = word;
      } else current = current ? `${current} ${word}` : word;
    }
    out.push(indent + current);
  }
  return out.join("\n");
}
