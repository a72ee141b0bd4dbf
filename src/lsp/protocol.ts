/**
 * What the server accepts, before any handler sees it (the transport's screen): the life
 * cycle the Language Server Protocol prescribes, and params of the shape their method needs.
 *
 * - Before `initialize`, a request gets ServerNotInitialized (-32002) and a notification is
 *   dropped, `exit` excepted; after `shutdown`, a request gets InvalidRequest (-32600).
 * - Params that are present must be an object or an array (JSON-RPC); `null` or a number is
 *   InvalidParams (-32602) for a request, and a notification carrying them is dropped.
 * - The notifications that carry a buffer's text (didOpen, didChange) and the requests the
 *   protocol library reads itself (`initialize`) are checked field by field: a didOpen whose
 *   text is not a string would otherwise become a document every feature trips on.
 */
import { ErrorCodes, type NotificationMessage, type RequestMessage } from "vscode-languageserver/node";
import type { Refusal } from "./transport.js";

type Shape = "string" | "number" | "object" | "array" | "id";
/** The fields a method's params must have, by path, beyond being an object. */
type Needs = readonly (readonly [string, Shape])[];

const POSITION: Needs = [
  ["line", "number"],
  ["character", "number"],
];
/** The methods whose params the protocol library or the documents' store read as they are. */
const NEEDS: Record<string, Needs> = {
  initialize: [],
  "textDocument/didOpen": [
    ["textDocument", "object"],
    ["textDocument.uri", "string"],
    ["textDocument.version", "number"],
    ["textDocument.text", "string"],
  ],
  "textDocument/didChange": [
    ["textDocument", "object"],
    ["textDocument.uri", "string"],
    ["textDocument.version", "number"],
    ["contentChanges", "array"],
  ],
  "textDocument/didClose": [
    ["textDocument", "object"],
    ["textDocument.uri", "string"],
  ],
  "workspace/didChangeWatchedFiles": [["changes", "array"]],
  "$/cancelRequest": [["id", "id"]],
  "$/setTrace": [["value", "string"]],
};

type Phase = "new" | "running" | "shut down";

/** A screen that keeps the session's phase: one a connection. */
export function protocolScreen(): (message: RequestMessage | NotificationMessage) => Refusal | undefined {
  let phase: Phase = "new";
  return (message) => {
    const { method, params } = message;
    if (method === "exit") return undefined;
    if (phase === "new" && method !== "initialize") return { code: ErrorCodes.ServerNotInitialized, message: `the server is not initialized: send initialize before ${method}`, quiet: true };
    if (phase === "shut down") return { code: ErrorCodes.InvalidRequest, message: `the server is shut down: only exit may follow shutdown, not ${method}` };
    const wrong = paramsProblem(method, params);
    if (wrong !== undefined) return { code: ErrorCodes.InvalidParams, message: `invalid params: ${wrong}` };
    if (method === "initialize") phase = "running";
    else if (method === "shutdown") phase = "shut down";
    return undefined;
  };
}

/** What is wrong with a method's params, or undefined. */
function paramsProblem(method: string, params: unknown): string | undefined {
  const needs = NEEDS[method];
  if (params === undefined) return needs === undefined ? undefined : "the params are missing";
  if (params === null || typeof params !== "object") return `the params must be an object or an array, not ${params === null ? "null" : typeof params}`;
  for (const [path, shape] of needs ?? []) {
    if (!fits(valueAt(params, path), shape)) return `${path} must be ${ARTICLE[shape]}`;
  }
  if (method === "textDocument/didChange") return changesProblem((params as { contentChanges: unknown[] }).contentChanges);
  if (method === "workspace/didChangeWatchedFiles") return (params as { changes: unknown[] }).changes.every((c) => fits((c as { uri?: unknown } | null)?.uri, "string")) ? undefined : "each change must have a string uri";
  return undefined;
}

/** Each change is a whole text, or a text and the range it replaces. */
function changesProblem(changes: unknown[]): string | undefined {
  for (const [i, change] of changes.entries()) {
    const { text, range } = (change ?? {}) as { text?: unknown; range?: { start?: unknown; end?: unknown } };
    if (typeof text !== "string") return `contentChanges[${i}].text must be a string`;
    if (range === undefined) continue;
    const point = (p: unknown) => p !== null && typeof p === "object" && POSITION.every(([key, shape]) => fits((p as Record<string, unknown>)[key], shape));
    if (range === null || typeof range !== "object" || !point(range.start) || !point(range.end)) return `contentChanges[${i}].range must have a start and an end, each a line and a character`;
  }
  return undefined;
}

/** The value at a dotted path into params (undefined where a step is missing). */
export const valueAt = (params: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>((node, key) => (node !== null && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined), params);

const ARTICLE: Record<Shape, string> = { string: "a string", number: "a number", object: "an object", array: "an array", id: "a number or a string" };

function fits(value: unknown, shape: Shape): boolean {
  switch (shape) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "object":
      return value !== null && typeof value === "object" && !Array.isArray(value);
    case "array":
      return Array.isArray(value);
    case "id":
      return typeof value === "string" || typeof value === "number";
  }
}
