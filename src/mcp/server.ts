/**
 * `failbook mcp`'s server: the official MCP SDK on stdio, answering `tools/list` and
 * `tools/call` with ./tools.ts. Loaded only when `failbook mcp` runs.
 *
 * The SDK's stdio transport drops a line that is not JSON or not a JSON-RPC message and
 * reports it to `onerror`; JSON-RPC 2.0 wants an answer (a Parse error or an Invalid Request
 * with id null), so that answer is sent here, and the server keeps serving.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { callTool, toolDefinitions, type ArgumentCheck, type ToolContext } from "./tools.js";
import type { JsonSchema } from "./schemas.js";

export interface ServeOptions {
  version: string;
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout?: NodeJS.WritableStream;
  /** Diagnostics (never stdout, which carries the protocol). */
  log: (line: string) => void;
}

const INSTRUCTIONS =
  "failbook's failure registry and playbook for this project. Call classify with an adapter error you received to learn its verdict, whether it may be retried, and what to do next; explain gives the full guidance for a code; list_verdicts lists every code.";

/** Serve until stdin ends. */
export async function serveMcp(ctx: ToolContext, options: ServeOptions): Promise<void> {
  const stdin = (options.stdin ?? process.stdin) as NodeJS.ReadStream;
  const stdout = (options.stdout ?? process.stdout) as NodeJS.WriteStream;
  const server = new Server({ name: "failbook", version: options.version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  const check = argumentCheck();
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolDefinitions() }));
  server.setRequestHandler(CallToolRequestSchema, (request) => callTool(ctx, request.params.name, request.params.arguments, check));

  const transport = new StdioServerTransport(stdin, stdout);
  transport.onerror = (error) => {
    const answer = malformedAnswer(error);
    if (answer) void transport.send(answer as JSONRPCMessage);
    else options.log(`failbook mcp: ${error.message}`);
  };
  const ended = new Promise<void>((resolve) => {
    stdin.once("end", resolve);
    stdin.once("close", resolve);
  });
  await server.connect(transport);
  await ended;
  await server.close();
}

/** The JSON-RPC error for a line the transport could not read, or undefined for another kind of error. */
function malformedAnswer(error: Error): object | undefined {
  if (error instanceof SyntaxError) return rpcError(ErrorCode.ParseError, `Parse error: not JSON (${error.message})`);
  // The transport's message schema (zod) rejected valid JSON that is not a JSON-RPC message.
  if (error.name === "ZodError") return rpcError(ErrorCode.InvalidRequest, "Invalid Request: not a JSON-RPC 2.0 request, notification or response");
  return undefined;
}

const rpcError = (code: number, message: string) => ({ jsonrpc: "2.0", id: null, error: { code, message } });

/** Arguments checked against each tool's input schema, with the SDK's validator (ajv). */
function argumentCheck(): ArgumentCheck {
  const validator = new AjvJsonSchemaValidator();
  const compiled = new Map<JsonSchema, ReturnType<AjvJsonSchemaValidator["getValidator"]>>();
  return (schema, args) => {
    let validate = compiled.get(schema);
    if (!validate) compiled.set(schema, (validate = validator.getValidator(schema)));
    const result = validate(args);
    return result.valid ? undefined : readable(result.errorMessage ?? "do not match the tool's input schema");
  };
}

/**
 * ajv's text without its `data/` prefixes; of a nullable value's alternatives, only what the
 * non-null one wants ("error/kind must be string", not also "error must be null").
 */
function readable(ajvText: string): string {
  const parts = ajvText.split(", ").map((p) => p.replace(/^data(\/| )/, (_, sep: string) => (sep === " " ? "arguments " : "")));
  const specific = parts.filter((p) => !/ must (be null|match a schema in anyOf)$/.test(p));
  return (specific.length > 0 ? specific : parts).join(", ");
}
