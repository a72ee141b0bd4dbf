/**
 * `failbook mcp`'s server: the official MCP SDK on stdio, answering `tools/list` and
 * `tools/call` with ./tools.ts. Loaded only when `failbook mcp` runs.
 *
 * The SDK's stdio transport drops a line that is not JSON or not a JSON-RPC message and
 * reports it to `onerror`; JSON-RPC 2.0 wants an answer (a Parse error or an Invalid Request
 * with id null), so that answer is sent here, and the server keeps serving. A line longer
 * than the SDK's buffer would make it close the connection: such a line is answered and
 * dropped before it gets there. Answers leave in the order their lines came (AnswersInOrder).
 */
import { Transform, type TransformCallback } from "node:stream";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  ListToolsRequestSchema,
  type JSONRPCMessage,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
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

  // Lines are only read once the server is connected, when `answers` is there.
  const lines = stdin.pipe(new LineLimit(MAX_LINE_BYTES, (answer) => void answers.unread(answer as JSONRPCMessage)));
  const transport = new StdioServerTransport(lines, stdout);
  const answers = new AnswersInOrder(transport.send.bind(transport));
  transport.send = (message) => answers.send(message);
  // Set before connect: the server calls it first, then handles the message.
  transport.onmessage = (message) => answers.received(message);
  transport.onerror = (error) => {
    const answer = malformedAnswer(error);
    if (answer) void answers.unread(answer as JSONRPCMessage);
    else options.log(`failbook mcp: ${error.message}`);
  };
  const ended = new Promise<void>((resolve) => {
    stdin.once("end", resolve);
    stdin.once("close", resolve);
    transport.onclose = resolve;
  });
  await server.connect(transport);
  await ended;
  await server.close();
}

/**
 * Answers in the order their lines came. The server answers a request when its handler
 * finishes, but a line it cannot read at once: so a junk line after `initialize` was answered
 * before `initialize` was. Each request, and each unreadable line, takes a place in line; an
 * answer is written when every place before it is answered. A notification is owed nothing,
 * nor is a request the client cancelled (the server sends it no answer).
 */
class AnswersInOrder {
  private readonly places: { id?: RequestId; answer?: JSONRPCMessage | null; written: () => void }[] = [];

  constructor(private readonly write: (message: JSONRPCMessage) => Promise<void>) {}

  /** A message read from the client. */
  received(message: JSONRPCMessage): void {
    if (isJSONRPCRequest(message)) this.take(message.id);
    else if (isJSONRPCNotification(message) && message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      const place = this.places.find((p) => p.answer === undefined && p.id === id);
      if (place) this.fill(place, null);
    }
  }

  /** The error for a line that could not be read (not JSON, not JSON-RPC, too long). */
  unread(answer: JSONRPCMessage): Promise<void> {
    return this.fill(this.take(undefined), answer);
  }

  /** A message from the server: a response waits for its place; anything else goes at once. */
  send(message: JSONRPCMessage): Promise<void> {
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      const place = this.places.find((p) => p.answer === undefined && p.id !== undefined && p.id === message.id);
      if (place) return this.fill(place, message);
    }
    return this.write(message);
  }

  private take(id: RequestId | undefined) {
    const place = { id, answer: undefined, written: () => undefined };
    this.places.push(place);
    return place;
  }

  private fill(place: (typeof this.places)[number], answer: JSONRPCMessage | null): Promise<void> {
    const written = new Promise<void>((resolve) => (place.written = resolve));
    place.answer = answer;
    // Written in order, each as soon as every place before it is answered.
    for (let next = this.places[0]; next !== undefined && next.answer !== undefined; next = this.places[0]) {
      this.places.shift();
      if (next.answer === null) next.written();
      else void this.write(next.answer).then(next.written);
    }
    return written;
  }
}

/** The JSON-RPC error for a line the transport could not read, or undefined for another kind of error. */
function malformedAnswer(error: Error): object | undefined {
  if (error instanceof SyntaxError) return rpcError(ErrorCode.ParseError, `Parse error: not JSON (${error.message})`);
  // The transport's message schema (zod) rejected valid JSON that is not a JSON-RPC message.
  if (error.name === "ZodError") return rpcError(ErrorCode.InvalidRequest, "Invalid Request: not a JSON-RPC 2.0 request, notification or response");
  return undefined;
}

const rpcError = (code: number, message: string) => ({ jsonrpc: "2.0", id: null, error: { code, message } });

/** The longest message line read (the SDK's own buffer holds 10 MB). */
const MAX_LINE_BYTES = 8 * 1024 * 1024;

/**
 * Passes stdin on a whole line at a time, except a line longer than `max` bytes: that one is
 * answered with an Invalid Request and dropped as it streams (never held whole).
 */
class LineLimit extends Transform {
  private parts: Buffer[] = [];
  private size = 0;
  private dropping = false;

  constructor(
    private readonly max: number,
    private readonly answer: (error: object) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl + 1;
      const piece = chunk.subarray(start, end);
      start = end;
      if (this.dropping) {
        if (nl !== -1) this.dropping = false;
        continue;
      }
      if (this.size + piece.length > this.max) {
        this.answer(rpcError(ErrorCode.InvalidRequest, `Invalid Request: a message longer than ${this.max / 1024 / 1024} MB`));
        this.parts = [];
        this.size = 0;
        this.dropping = nl === -1;
        continue;
      }
      this.parts.push(piece);
      this.size += piece.length;
      if (nl !== -1) this.passLine();
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.size > 0) this.passLine();
    done();
  }

  private passLine(): void {
    this.push(Buffer.concat(this.parts));
    this.parts = [];
    this.size = 0;
  }
}

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
