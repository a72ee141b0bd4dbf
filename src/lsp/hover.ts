/**
 * Hover: on a verdict code anywhere, what `failbook explain` leads with (summary, class,
 * retryable, side effect, the playbook action and its worst case); on an action, the action
 * reference; on a class, a tool, a field, a rule id or an ADR, its declaration; on any other
 * key, what the JSON Schema says it means, and its value.
 */
import type { Hover, HoverParams } from "vscode-languageserver";
import { redactValue } from "failbook-runtime/engine/redact.js";
import { globMatches } from "failbook-runtime/engine/match.js";
import { allRuleMeta } from "../lint/lint.js";
import { verdictIndex } from "../lint/rules/support.js";
import { valueAt, type DocumentKind } from "../load/schema.js";
import type { PathSegment } from "failbook-runtime/model/finding.js";
import { ACTION_NAMES } from "failbook-runtime/model/playbook.js";
import { actionReference, isActionName } from "../render/actions.js";
import { codeRow, policiesView, RESET_FORMS, rateLimitHeaders, rateLimitText, whenEmptyText, worstCaseText } from "../render/model.js";
import { clip, nearest } from "../util/text.js";
import type { Cursor } from "./cursor.js";
import { documentAtLine, rangeOf } from "./locate.js";
import type { Role } from "./roles.js";
import { descriptionAt } from "./schema.js";
import { redactorOf, type FileView, type ProjectState, type Workspace } from "./workspace.js";
import { adrFileFor, namesInProject, targetAt } from "./names.js";

export function hover(workspace: Workspace, params: HoverParams): Hover | null {
  const target = targetAt(workspace, params);
  if (!target) return null;
  const { view, cursor, role } = target;
  const word = cursor.word;
  const text = (role && word ? describeNamed(view.state, role, word.text) : undefined) ?? describeRateLimit(view, cursor) ?? describeKey(view, cursor, params.position.line);
  if (text === undefined) return null;
  return { contents: { kind: "markdown", value: text }, ...(word ? { range: rangeOf(view.document, word.start, word.end) } : {}) };
}

/** A named thing of the project, in Markdown; undefined when there is nothing to say. */
export function describeNamed(state: ProjectState, role: Role, name: string): string | undefined {
  const redact = redactorOf(state);
  const out = (() => {
    switch (role) {
      case "code":
        return describeCode(state, name);
      case "action":
        return isActionName(name) ? describeAction(state, name) : `\`${name}\` is not a playbook action${suggest(name, ACTION_NAMES)}`;
      case "class":
        return describeClass(state, name);
      case "tool":
        return describeTool(state, name);
      case "field": {
        const field = state.registry?.value.error_fields?.[name];
        return field ? `**${name}** (error field, ${field.type})${field.description ? `\n\n${field.description}` : ""}` : `\`${name}\` is not declared under error_fields`;
      }
      case "kind": {
        const codes = namesInProject(state, "kind", ["registry"]).filter((n) => n.name === name).map((n) => state.registry?.value.verdicts[n.path[1] as number]?.code);
        return `**${name}** (adapter error kind)\n\n${codes.length === 0 ? "No match rule of the registry tests this kind." : `Recognised by ${codes.length} match rule${codes.length === 1 ? "" : "s"}: ${[...new Set(codes)].slice(0, 8).map((c) => `\`${c}\``).join(", ")}${codes.length > 8 ? ", …" : ""}`}`;
      }
      case "rule": {
        const rule = allRuleMeta().find((r) => r.id === name);
        return rule ? `**${rule.id}** (lint rule, ${rule.severity} by default)\n\n${rule.description}\n\n\`failbook explain ${rule.id}\` says more.` : `\`${name}\` is not a rule id${suggest(name, allRuleMeta().map((r) => r.id))}`;
      }
      case "adr": {
        const file = adrFileFor(state, name);
        return file ? `ADR \`${name}\`: ${file}` : `ADR \`${name}\` has no file in adr_dir`;
      }
      case "file":
        return undefined;
    }
  })();
  return out === undefined ? undefined : redact(out);
}

function describeCode(state: ProjectState, code: string): string | undefined {
  const registry = state.registry?.value;
  if (!registry) return undefined;
  const at = verdictIndex(registry).get(code);
  if (at === undefined) return `\`${code}\` is not a verdict of the registry${suggest(code, [...verdictIndex(registry).keys()])}`;
  const verdict = registry.verdicts[at];
  const playbook = state.playbook?.value;
  const row = playbook ? codeRow(verdict, registry, playbook) : undefined;
  const cls = registry.classes[verdict.class];
  const lines = [`**${code}** · ${verdict.status ?? "active"}`];
  if (verdict.summary) lines.push("", verdict.summary);
  lines.push("", "| | |", "| --- | --- |");
  lines.push(`| class | \`${verdict.class}\`${cls?.description ? `: ${cell(cls.description)}` : ""} |`);
  lines.push(`| retryable | ${verdict.retryable ? "yes" : "no"} |`, `| side effect | ${verdict.side_effect ?? "unknown"} |`);
  if (verdict.replaced_by) lines.push(`| replaced by | \`${verdict.replaced_by}\` |`);
  if (row?.action) {
    lines.push(`| action | \`${row.action.name}\`${row.action.detail ? `: ${cell(row.action.detail)}` : ""} |`);
    lines.push(`| worst case | ${cell(worstCaseText(row))} |`);
  } else if (playbook) lines.push("| action | none: the playbook has no entry for it |");
  lines.push("", `\`failbook explain ${code}\` shows its cause, recovery, rules and fixtures.`);
  return lines.join("\n");
}

function describeAction(state: ProjectState, name: Parameters<typeof actionReference>[0]): string {
  const ref = actionReference(name);
  const lines = [`**${ref.name}** (playbook action)`, "", ref.summary, "", "Parameters:"];
  for (const p of ref.parameters) lines.push(`- \`${p.name}\` (${p.required ? "required" : "optional"}): ${p.text}`);
  lines.push("", "Outcomes:", ...ref.outcomes.map((o) => `- ${o}`));
  const playbook = state.playbook?.value;
  if (playbook) {
    const users = Object.entries(playbook.verdicts).filter(([, a]) => a.action === name).length;
    lines.push("", `In this playbook: ${users} verdict${users === 1 ? "" : "s"}.`);
  }
  return lines.join("\n");
}

function describeClass(state: ProjectState, name: string): string | undefined {
  const registry = state.registry?.value;
  if (!registry) return undefined;
  const cls = registry.classes[name];
  if (!cls) return `\`${name}\` is not a class of the registry${suggest(name, Object.keys(registry.classes))}`;
  const count = registry.verdicts.filter((v) => v.class === name).length;
  const facts = [cls.max_retries === undefined ? "no retry ceiling of its own" : `at most ${cls.max_retries} retries`, `${count} verdict${count === 1 ? "" : "s"}`, ...(cls.adr ? [`ADR ${cls.adr}`] : [])];
  return `**${name}** (class)${cls.description ? `\n\n${cls.description}` : ""}\n\n${facts.join(" · ")}`;
}

function describeTool(state: ProjectState, name: string): string {
  const tools = state.playbook?.value.tools ?? {};
  const matching = Object.entries(tools).filter(([glob]) => glob === name || globMatches(glob, name));
  if (matching.length === 0) return `**${name}** (tool)\n\nNo \`tools:\` entry of the playbook matches it: calls to it are idempotent unless a call says otherwise.`;
  return `**${name}** (tool)\n\n${matching.map(([glob, policy]) => `- \`${glob}\`: idempotent: ${policy.idempotent === false ? "false (never retried)" : "true"}`).join("\n")}`;
}

/** A key, or a value with no name of its own: the schema's description, and the value as loaded. */
function describeKey(view: FileView, cursor: Cursor, line: number): string | undefined {
  const kind = view.kind as DocumentKind;
  const path = cursor.path.filter((s) => s !== "");
  if (path.length === 0) return undefined;
  const key = [...path].reverse().find((s): s is string => typeof s === "string");
  const description = actionParameter(view, path) ?? descriptionAt(kind, path);
  const doc = documentAtLine(view.documents, line);
  const value = doc && doc.has(path) ? valueAt(doc.value, path) : undefined;
  if (description === undefined && value === undefined) return undefined;
  const redact = redactorOf(view.state);
  const lines = [`**${key ?? path.join(".")}**`];
  if (description) lines.push("", description);
  if (value !== undefined && (value === null || typeof value !== "object" || cursor.on === "key")) lines.push("", `value: \`${clip(JSON.stringify(redactValue(value, redact)) ?? "null", 200)}\``);
  return lines.join("\n");
}

const DIALECTS = ["github", "openai", "anthropic", "ietf"] as const;

/**
 * A rate limit (SPEC 22): on its name, what it does as render says it; on a from_headers
 * dialect, the exact headers it reads. Undefined elsewhere (the schema describes the rest).
 */
function describeRateLimit(view: FileView, cursor: Cursor): string | undefined {
  const [top, name, key] = cursor.path;
  if (view.kind !== "playbook" || top !== "rate_limits" || typeof name !== "string") return undefined;
  const redact = redactorOf(view.state);
  if (cursor.on === "key" && cursor.path.length === 2) {
    const registry = view.state.registry?.value;
    const playbook = view.state.playbook?.value;
    const limit = registry && playbook?.rate_limits?.[name] ? policiesView(registry, playbook).rate_limits.find((r) => r.name === name) : undefined;
    return limit && redact(`**${name}** (rate limit)\n\n${rateLimitText(limit)}\n\n${whenEmptyText(limit)}\n\n\`failbook explain CODE\` counts its waits in a code's worst case.`);
  }
  const dialect = DIALECTS.find((d) => d === cursor.word?.text);
  if (cursor.on !== "value" || cursor.path.length !== 3 || key !== "from_headers" || dialect === undefined) return undefined;
  const h = rateLimitHeaders(dialect)!;
  const lines = [`**${dialect}** (rate-limit headers)`, ""];
  if (h.ietf) lines.push("- `RateLimit`: the IETF httpapi draft's structured field, `r=` requests left and `t=` seconds to the reset (also `remaining=`, `reset=`)", "- `RateLimit-Policy`: the window's size (not read: the playbook's `limit` sets the bucket)");
  else {
    lines.push(`- \`${h.remaining}\`: the requests left in the window`);
    if (h.reset !== null) lines.push(`- \`${h.reset}\` (${RESET_FORMS[h.reset_form ?? "delay"]}): when the window resets`);
    if (h.limit !== null) lines.push(`- \`${h.limit}\`: the window's size (not read: the playbook's \`limit\` sets the bucket)`);
  }
  lines.push("", "Every answer that carries them corrects the bucket: its tokens become at most what remains, refilled at the reset. A header holding garbage, a negative or a far-future reset is ignored (event rate_limit_header_ignored).");
  return lines.join("\n");
}

/** A playbook action's parameter, described by the action reference. */
function actionParameter(view: FileView, path: readonly PathSegment[]): string | undefined {
  if (view.kind !== "playbook" || path.length !== 3 || path[0] !== "verdicts") return undefined;
  const action = view.state.playbook?.value.verdicts[String(path[1])]?.action;
  if (action === undefined || !isActionName(action)) return undefined;
  return actionReference(action).parameters.find((p) => p.name === path[2])?.text;
}


function suggest(word: string, candidates: readonly string[]): string {
  const near = nearest(word, candidates, 3);
  return near.length > 0 ? `; did you mean ${near.map((n) => `\`${n}\``).join(", ")}?` : "";
}

/** Text for a Markdown table cell: one line, no pipe. */
const cell = (text: string): string => text.replace(/\s*\n\s*/g, " ").replace(/\|/g, "\\|");
