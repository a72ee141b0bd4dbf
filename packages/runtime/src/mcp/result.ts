/**
 * Tool results in the shape of the Model Context Protocol (`CallToolResult`), without the
 * SDK: a library user who wraps a tool in failbook's dispatcher returns the envelope to the
 * agent as the tool's result, and `failbook mcp` answers its own calls the same way.
 */
import type { Envelope } from "../model/outcome.js";
import { inertJson } from "../util/inert.js";

/** One MCP tool result: the JSON as text (for clients that read only text) and as data. */
export interface McpToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError: boolean;
}

/** A successful tool result carrying `value` as its structured content. */
export function mcpResult(value: Record<string, unknown>, isError = false): McpToolResult {
  return { content: [{ type: "text", text: inertJson(value, 2) }], structuredContent: value, isError };
}

/** A tool-level error the model can read and act on (a bad argument, an unknown code): text only. */
export function mcpError(message: string): McpToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/**
 * The envelope of a dispatch as an MCP tool result: `isError: true` unless the call ended
 * well, the envelope as `structuredContent`, and its JSON as text. The dispatcher's envelope
 * is already redacted; the text escapes control and bidi characters (losslessly, as JSON).
 */
export function toMcpToolResult(envelope: Envelope): McpToolResult {
  return mcpResult({ ...envelope }, !envelope.ok);
}
