/** The generated bindings' toMcpToolResult: an adapter's failure envelope as an MCP tool result. */
import { describe, expect, it } from "vitest";
import { generateTypeScript } from "../src/codegen/typescript.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import type { Registry } from "failbook-runtime/model/registry.js";
import { baseProject } from "./helpers/change-project.js";
import { importTypeScript, STRICTEST, typeCheck, writeTree } from "./helpers/typescript.js";

type Result = { content: { type: string; text: string }[]; structuredContent: Record<string, unknown>; isError: boolean };
interface Generated {
  timeoutEnvelope(input?: Record<string, unknown>): Record<string, unknown>;
  toMcpToolResult(envelope: Record<string, unknown>): Result;
}

describe("generated toMcpToolResult", () => {
  const p = baseProject();
  const text = generateTypeScript({ registry: p.registry as unknown as Registry, playbook: p.playbook as unknown as Playbook }).text;

  it("turns a failure envelope into a tool error with the envelope as structuredContent and as JSON text", async () => {
    const mod = await importTypeScript<Generated>({ "gen.ts": text }, "gen.ts");
    const envelope = mod.timeoutEnvelope({ error: { kind: "timeout", message: "upstream slow" }, trace_id: "tr_1" });
    const result = mod.toMcpToolResult(envelope);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({ ...envelope });
    expect(result.structuredContent).toMatchObject({ code: "timeout", retryable: true, message: "upstream slow", trace_id: "tr_1", recovery_hint: "Retry." });
    expect(result.content).toEqual([{ type: "text", text: JSON.stringify(envelope, null, 2) }]);
  });

  it("type-checks a tool handler that returns it, under the strictest flags", () => {
    const dir = writeTree({
      "gen.ts": text,
      "tool.ts": `import { classify, timeoutEnvelope, toMcpToolResult, type McpToolResult } from "./gen.js";
export function onFailure(error: { kind: string; message?: string }): McpToolResult {
  if (classify(error) === "timeout") return toMcpToolResult(timeoutEnvelope({ error }));
  return toMcpToolResult(timeoutEnvelope());
}
`,
    });
    expect(typeCheck([`${dir}/tool.ts`], STRICTEST).diagnostics).toEqual([]);
  });
});
