/**
 * The tools `failbook mcp` offers an agent: classify an adapter error, explain a code or an
 * action, list the verdicts. Each is the library's own code (the one classifier, the
 * rendered model that `failbook explain` prints), answered as an MCP tool result whose
 * `structuredContent` matches the tool's `outputSchema`. No SDK here: ./server.ts wires
 * these to the protocol.
 */
import { Chalk } from "chalk";
import type { Loaded, Project } from "../load/project.js";
import type { AdapterError } from "failbook-runtime/model/fixture.js";
import { ACTION_NAMES, type ActionName, type Playbook } from "failbook-runtime/model/playbook.js";
import type { Registry } from "failbook-runtime/model/registry.js";
import { envelopeError } from "failbook-runtime/engine/envelope.js";
import { redactValue, type Redactor } from "failbook-runtime/engine/redact.js";
import { fixturesExercising } from "../render/exercises.js";
import { classificationReport } from "../render/classification.js";
import { explainCode, lookupCode } from "../render/explain.js";
import { worstCaseText, type CodeRow, type RegistryModel } from "../render/model.js";
import { inert } from "failbook-runtime/util/inert.js";
import { nearest } from "../util/text.js";
import { mcpError, mcpResult, type McpToolResult } from "failbook-runtime/mcp/result.js";
import { toolSchemas, type JsonSchema } from "./schemas.js";

/** What the tools answer from: one loaded project, its rendered model, its secret patterns. */
export interface ToolContext {
  project: Project;
  registry: Loaded<Registry>;
  playbook: Loaded<Playbook>;
  model: RegistryModel;
  redact: Redactor;
}

export const TOOL_NAMES = ["classify", "explain", "list_verdicts"] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

export interface ToolDefinition {
  name: ToolName;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: { readOnlyHint: true; openWorldHint: false };
}

/** Checks a tool's arguments against its input schema: the problem in one line, or undefined. */
export type ArgumentCheck = (schema: JsonSchema, args: unknown) => string | undefined;

const DESCRIPTIONS: Record<ToolName, { title: string; description: string }> = {
  classify: {
    title: "Classify an adapter error",
    description:
      "Which failure verdict one adapter error gets under this project's registry (the first match rule that holds, else the fallback), the playbook's compensation action for it, and the envelope an agent is shown (retryable, side effect, recovery hint, safe and unsafe next actions). `error` is the adapter error (kind, message, http_status, provider_code, side_effect_state, retry_after_ms, headers, fields, cause), or null for a failure without an error object; `tool` is the call's tool name, for rules that match on it and for the tool's idempotency.",
  },
  explain: {
    title: "Explain a verdict code or an action",
    description:
      "For a verdict code (any case): its summary, class, retryable, side effect, cause, recovery, safe and unsafe next actions, the playbook action with its static worst case, the match rules, and the fixtures that exercise it, as `failbook explain` prints it. For an action name (e.g. retry_with_backoff): what the action does and which verdicts take it. An unknown name is an error that suggests the closest ones.",
  },
  list_verdicts: {
    title: "List the verdicts",
    description: "Every verdict code of the registry, sorted, with its class, status, retryable flag, side effect, summary and playbook action; optionally only one class or one status.",
  },
};

/** The tools as `tools/list` returns them. */
export function toolDefinitions(): ToolDefinition[] {
  const schemas = toolSchemas();
  return TOOL_NAMES.map((name) => ({
    name,
    ...DESCRIPTIONS[name],
    inputSchema: schemas[name].input,
    outputSchema: schemas[name].output,
    annotations: { readOnlyHint: true, openWorldHint: false },
  }));
}

/** Answer one `tools/call`: an unknown tool or bad arguments are tool errors (`isError: true`) the model can read. */
export function callTool(ctx: ToolContext, name: string, args: unknown, check: ArgumentCheck): McpToolResult {
  if (!(TOOL_NAMES as readonly string[]).includes(name)) {
    return mcpError(`unknown tool '${inert(name)}'; this server has ${TOOL_NAMES.join(", ")}`);
  }
  const tool = name as ToolName;
  if (deeperThan(args, MAX_ARGUMENT_DEPTH)) return mcpError(`invalid arguments for ${tool}: nested more than ${MAX_ARGUMENT_DEPTH} levels deep`);
  const problem = check(toolSchemas()[tool].input, args ?? {});
  if (problem !== undefined) return mcpError(`invalid arguments for ${tool}: ${inert(ctx.redact(problem))}`);
  const a = (args ?? {}) as Record<string, unknown>;
  switch (tool) {
    case "classify":
      return classifyTool(ctx, (a.error ?? null) as AdapterError | null, a.tool as string | undefined);
    case "explain":
      return explainTool(ctx, a.code as string);
    case "list_verdicts":
      return listVerdicts(ctx, a.class as string | undefined, a.status as string | undefined);
  }
}

/** Deeper than any adapter error needs (a cause chain counts 8): checked before anything recurses into it. */
const MAX_ARGUMENT_DEPTH = 64;

/** Is `value` nested deeper than `limit` objects and arrays? Iterative, so a hostile depth cannot overflow the stack. */
function deeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth >= limit) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

function classifyTool(ctx: ToolContext, rawError: AdapterError | null, tool: string | undefined): McpToolResult {
  const registry = ctx.registry.value;
  const playbook = ctx.playbook.value;
  // Classification sees the error as given (the registry's vocabulary is never redacted);
  // what is shown of it is redacted.
  const { result, report } = classificationReport(ctx.registry, playbook, rawError ?? undefined, tool, Date.now());
  const error = rawError === null ? null : redactValue(rawError, ctx.redact);
  return mcpResult(
    redactValue(
      {
        ...report,
        envelope: envelopeError(registry, { verdict: result.verdict, error, idempotent: report.idempotent }, ctx.redact),
      },
      ctx.redact,
    ),
  );
}

const PLAIN = new Chalk({ level: 0 });

function explainTool(ctx: ToolContext, query: string): McpToolResult {
  const lookup = lookupCode(ctx.model, query);
  if ("found" in lookup) {
    const row = lookup.found;
    const exercises = fixturesExercising(row.code, ctx.registry.value, ctx.playbook.value, ctx.project.fixtures);
    const text = ctx.redact(explainCode(row, ctx.model, exercises, { c: PLAIN }));
    const fixtures = exercises.map(({ fixture, file, line, column, via, at }) => ({ fixture, file, line, column, via, at }));
    return mcpResult(redactValue({ kind: "code", code: row, action: null, fixtures, text }, ctx.redact));
  }
  if ("ambiguous" in lookup) return mcpError(`'${inert(query)}' matches ${lookup.ambiguous.join(", ")}, which differ only in case; give the exact code`);
  const action = ACTION_NAMES.find((a) => a === query.toLowerCase());
  if (action) {
    const explained = explainAction(ctx.model, action);
    return mcpResult(redactValue({ kind: "action", code: null, action: explained, fixtures: [], text: actionText(explained) }, ctx.redact));
  }
  const suggestions = nearest(query, [...ctx.model.codes.map((r) => r.code), ...ACTION_NAMES]);
  const hint = suggestions.length > 0 ? `did you mean ${suggestions.join(", ")}?` : "list_verdicts lists every code";
  return mcpError(`unknown code or action '${inert(query)}': registry ${ctx.model.registry.name} has no such code; ${hint}`);
}

/** What each action does when it is the last word (SPEC 3.1), for an agent deciding what a verdict means for it. */
const ACTION_EFFECTS: Record<ActionName, string> = {
  retry_with_backoff: "Retries the same call, with the same idempotency key, after each delay of the backoff schedule; ends recovered, or exhausted when the retries or budgets run out.",
  retry_with_hint: "Retries like retry_with_backoff and records the hint on each retry, so the caller can adjust the call; ends recovered or exhausted.",
  refresh_evidence: "Re-reads the evidence the call was based on, then retries (then: retry) or stops (then: abort); ends recovered or deprecated.",
  restore_checkpoint: "Restores the last checkpoint, then retries (then: retry) or stops (then: abort); ends recovered or deprecated.",
  refresh_credentials: "Refreshes the call's credentials (an expired token), then retries (then: retry) or stops (then: abort); ends recovered or deprecated.",
  escalate_to_human: "Stops and sends a recovery packet to a human queue; ends escalated.",
  issue_reversal: "Undoes the committed call with its reversal token; ends reversed, or exhausted when the call has no reversal token.",
  deprecate_tool_call: "Stops calling the tool for this step, optionally asking the agent to re-plan; ends deprecated.",
  fallback: "Sends the same call to another tool; ends as that call ends.",
  fail: "Stops with an error; ends failed.",
  dead_letter: "Stops and puts the call on a dead-letter queue for later triage; ends dead_lettered.",
};

interface ActionExplained {
  name: ActionName;
  effect: string;
  verdicts: { code: string; detail: string; worst_case: string }[];
}

function explainAction(model: RegistryModel, name: ActionName): ActionExplained {
  const verdicts = model.codes
    .filter((r): r is CodeRow & { action: NonNullable<CodeRow["action"]> } => r.action?.name === name)
    .map((r) => ({ code: r.code, detail: r.action.detail, worst_case: worstCaseText(r) }));
  return { name, effect: ACTION_EFFECTS[name], verdicts };
}

function actionText(a: ActionExplained): string {
  const lines = [`${a.name}  (action)`, a.effect, ""];
  if (a.verdicts.length === 0) lines.push("No verdict of this playbook takes it.");
  else {
    lines.push(`Verdicts that take it (${a.verdicts.length}):`);
    for (const v of a.verdicts) lines.push(`  ${inert(v.code)}: ${inert(v.detail)}${v.detail ? "; " : ""}worst case: ${inert(v.worst_case)}`);
  }
  return lines.join("\n") + "\n";
}

function listVerdicts(ctx: ToolContext, cls: string | undefined, status: string | undefined): McpToolResult {
  const { registry } = ctx.model;
  const verdicts = ctx.model.codes
    .filter((r) => (cls === undefined || r.class === cls) && (status === undefined || r.status === status))
    .map((r) => ({
      code: r.code,
      class: r.class,
      status: r.status,
      retryable: r.retryable,
      side_effect: r.side_effect,
      summary: r.summary,
      action: r.action?.name ?? null,
      replaced_by: r.replaced_by,
    }));
  return mcpResult({ registry, verdicts });
}
