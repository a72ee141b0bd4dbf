/**
 * The JSON Schemas (draft-07) of the MCP tools' arguments and results. The adapter error is
 * the fixture schema's own definition and a code row is the rendered registry's
 * (schemas/fixture.schema.json, schemas/render.schema.json): one description of each shape.
 */
import { readFileSync } from "node:fs";
import { ACTION_NAMES } from "failbook-runtime/model/playbook.js";
import { packageFile } from "../version.js";
import type { ToolName } from "./tools.js";

export type JsonSchema = { type: "object"; [key: string]: unknown };

interface SchemaFile {
  properties: Record<string, unknown>;
  definitions: Record<string, unknown>;
}

const readSchema = (name: string): SchemaFile => JSON.parse(readFileSync(packageFile(`schemas/${name}.schema.json`), "utf8")) as SchemaFile;

const nullable = (schema: Record<string, unknown>) => ({ anyOf: [schema, { type: "null" }] });
const STRING_OR_NULL = { type: ["string", "null"] };
const SIDE_EFFECT = { enum: ["none", "unknown", "committed"] };

/** An object whose every listed property is required and no other is allowed. */
function closed(properties: Record<string, unknown>, optional: readonly string[] = []): Record<string, unknown> {
  return { type: "object", additionalProperties: false, required: Object.keys(properties).filter((k) => !optional.includes(k)), properties };
}

/** The envelope's error (src/model/outcome.ts EnvelopeError). */
const ENVELOPE_ERROR = closed({
  code: { type: "string" },
  class: STRING_OR_NULL,
  retryable: { type: "boolean", description: "May anything retry this: the verdict is retryable, nothing committed, the call idempotent." },
  side_effect_state: SIDE_EFFECT,
  human_action_required: { type: "boolean" },
  retry_after_ms: { type: ["integer", "null"], minimum: 0 },
  summary: STRING_OR_NULL,
  message: { type: ["string", "null"], description: "The adapter's own message, redacted." },
  recovery_hint: STRING_OR_NULL,
  safe_next_actions: { type: "array", items: { type: "string" } },
  unsafe_next_actions: { type: "array", items: { type: "string" } },
});

const ACTION = {
  type: "object",
  description: "The playbook's compensation action, as written in the playbook.",
  required: ["action"],
  properties: { action: { enum: [...ACTION_NAMES] } },
};

let cached: Record<ToolName, { input: JsonSchema; output: JsonSchema }> | undefined;

export function toolSchemas(): Record<ToolName, { input: JsonSchema; output: JsonSchema }> {
  if (cached) return cached;
  const fixture = readSchema("fixture");
  const render = readSchema("render");
  const object = (schema: Record<string, unknown>, definitions?: Record<string, unknown>): JsonSchema => ({
    ...schema,
    type: "object",
    ...(definitions ? { definitions } : {}),
  });
  cached = {
    classify: {
      input: object(
        closed(
          {
            error: { ...nullable({ $ref: "#/definitions/error" }), description: "The adapter error; null for a failure without an error object." },
            tool: { type: "string", minLength: 1, description: "The call's tool, e.g. payments.refund." },
          },
          ["tool"],
        ),
        { error: fixture.definitions.error },
      ),
      output: object(
        closed({
          verdict: { type: "string" },
          fallback: { type: "boolean", description: "No rule matched: the registry's fallback verdict." },
          rule: nullable(closed({ index: { type: "integer", minimum: 0 }, file: { type: "string" }, line: { type: "integer", minimum: 1 }, column: { type: "integer", minimum: 1 } })),
          class: STRING_OR_NULL,
          retryable: { type: ["boolean", "null"], description: "May this failure be retried: the verdict is retryable, nothing committed, the tool idempotent (as envelope.retryable)." },
          idempotent: { type: "boolean", description: "The tool may be retried at all (the playbook's tools); true without a tool." },
          side_effect: { enum: ["none", "unknown", "committed", null] },
          summary: STRING_OR_NULL,
          recovery: STRING_OR_NULL,
          action: nullable(ACTION),
          dispatch: nullable({
            ...closed({
              retries: { type: "boolean" },
              delay_ms: { type: ["integer", "null"], minimum: 0, description: "The delay before the retry, at the top of its jitter." },
              outcome: { enum: ["failed", "exhausted", "escalated", null], description: "How the dispatch ends without a retry (before on_exhausted)." },
              reason: STRING_OR_NULL,
              queue: STRING_OR_NULL,
            }),
            description: "For a retry action: what the dispatcher does with this error as a call's first failure (fresh budgets, a full retry quota).",
          }),
          envelope: ENVELOPE_ERROR,
        }),
      ),
    },
    explain: {
      input: object(closed({ code: { type: "string", minLength: 1, maxLength: 1000, description: "A verdict code (any case) or an action name." } })),
      output: object(
        closed({
          kind: { enum: ["code", "action"] },
          code: nullable({ $ref: "#/definitions/code" }),
          action: nullable(
            closed({
              name: { enum: [...ACTION_NAMES] },
              effect: { type: "string" },
              verdicts: { type: "array", items: closed({ code: { type: "string" }, detail: { type: "string" }, worst_case: { type: "string" } }) },
            }),
          ),
          fixtures: {
            type: "array",
            description: "The fixtures that exercise the code, by file and line.",
            items: closed({
              fixture: { type: "string" },
              file: { type: "string" },
              line: { type: "integer" },
              column: { type: "integer" },
              via: { enum: ["failure", "golden"] },
              at: { type: "string" },
            }),
          },
          text: { type: "string", description: "What `failbook explain` prints." },
        }),
        { code: render.definitions.code },
      ),
    },
    list_verdicts: {
      input: object(
        closed(
          {
            class: { type: "string", description: "Only verdicts of this class." },
            status: { enum: ["active", "deprecated", "reserved"], description: "Only verdicts with this status." },
          },
          ["class", "status"],
        ),
      ),
      output: object(
        closed({
          registry: render.properties.registry,
          verdicts: {
            type: "array",
            items: closed({
              code: { type: "string" },
              class: { type: "string" },
              status: { enum: ["active", "deprecated", "reserved"] },
              retryable: { type: "boolean" },
              side_effect: SIDE_EFFECT,
              summary: STRING_OR_NULL,
              action: nullable({ enum: [...ACTION_NAMES] }),
              replaced_by: STRING_OR_NULL,
            }),
          },
        }),
      ),
    },
  };
  return cached;
}
