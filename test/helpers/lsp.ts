/**
 * A real LSP client for `failbook lsp`: the built CLI as a child process, driven over stdio
 * by vscode-languageserver-protocol, as an editor drives it. It keeps every diagnostics
 * notification, and waits for the next one of a file that satisfies a test.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  createProtocolConnection,
  Message,
  StreamMessageReader,
  StreamMessageWriter,
  type Diagnostic,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
  type ResponseMessage,
} from "vscode-languageserver-protocol/node";
import { BIN } from "./cli.js";

export interface LspClient {
  connection: ProtocolConnection;
  child: ChildProcessWithoutNullStreams;
  stderr: () => string;
  /** The last diagnostics published for a file. */
  diagnostics(file: string): Diagnostic[] | undefined;
  /** The buffer version the last diagnostics of a file were published for (undefined when they named none). */
  publishedVersion(file: string): number | undefined;
  /** The version of an open buffer, as last sent. */
  version(file: string): number | undefined;
  /** The diagnostics of a file that `test` accepts: those shown now, else the next such published. */
  nextDiagnostics(file: string, test?: (d: Diagnostic[]) => boolean, timeoutMs?: number): Promise<Diagnostic[]>;
  open(file: string, text?: string): Promise<void>;
  change(file: string, text: string): Promise<void>;
  uri(file: string): string;
  text(file: string): string;
  close(): Promise<number | null>;
}

export async function startLsp(root: string, args: string[] = []): Promise<LspClient> {
  const child = spawn(process.execPath, [BIN, ...args, "lsp"], { cwd: root, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NO_COLOR: "1" } });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const published = new Map<string, Diagnostic[]>();
  const publishedVersions = new Map<string, number | undefined>();
  const waiters: { uri: string; test: (d: Diagnostic[]) => boolean; resolve: (d: Diagnostic[]) => void }[] = [];
  connection.onNotification("textDocument/publishDiagnostics", (p: PublishDiagnosticsParams) => {
    published.set(p.uri, p.diagnostics);
    publishedVersions.set(p.uri, p.version ?? undefined);
    for (const w of [...waiters]) {
      if (w.uri === p.uri && w.test(p.diagnostics)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(p.diagnostics);
      }
    }
  });
  connection.onNotification("window/logMessage", () => {});
  connection.listen();
  const versions = new Map<string, number>();
  const texts = new Map<string, string>();
  /** A file of the project by its path from the root, or any file by its URI. */
  const uri = (file: string) => (file.startsWith("file:") ? file : pathToFileURL(join(root, file)).href);
  await connection.sendRequest("initialize", { processId: process.pid, rootUri: pathToFileURL(root).href, capabilities: {}, workspaceFolders: null });
  await connection.sendNotification("initialized", {});
  const client: LspClient = {
    connection,
    child,
    stderr: () => stderr,
    uri,
    text: (file) => texts.get(file) ?? readFileSync(join(root, file), "utf8"),
    diagnostics: (file) => published.get(uri(file)),
    publishedVersion: (file) => publishedVersions.get(uri(file)),
    version: (file) => versions.get(file),
    nextDiagnostics(file, test = () => true, timeoutMs = 20_000) {
      const current = published.get(uri(file));
      if (current && test(current)) return Promise.resolve(current);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no diagnostics for ${file} within ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
        waiters.push({
          uri: uri(file),
          test,
          resolve: (d) => {
            clearTimeout(timer);
            resolve(d);
          },
        });
      });
    },
    async open(file, text) {
      const content = text ?? readFileSync(join(root, file), "utf8");
      texts.set(file, content);
      versions.set(file, 1);
      await connection.sendNotification("textDocument/didOpen", { textDocument: { uri: uri(file), languageId: "yaml", version: 1, text: content } });
    },
    async change(file, text) {
      const version = (versions.get(file) ?? 1) + 1;
      versions.set(file, version);
      texts.set(file, text);
      await connection.sendNotification("textDocument/didChange", { textDocument: { uri: uri(file), version }, contentChanges: [{ text }] });
    },
    async close() {
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      try {
        await connection.sendRequest("shutdown");
        await connection.sendNotification("exit");
      } catch {
        child.kill();
      }
      const code = await exited;
      connection.dispose();
      return code;
    },
  };
  return client;
}

/** The LSP position (0-based) of the first occurrence of `needle` in `text`, `offset` characters into it. */
export function positionOf(text: string, needle: string, offset = 0): { line: number; character: number } {
  const at = text.indexOf(needle);
  if (at < 0) throw new Error(`'${needle}' is not in the text`);
  const before = text.slice(0, at + offset);
  const line = before.split("\n").length - 1;
  return { line, character: before.length - before.lastIndexOf("\n") - 1 };
}

/** A diagnostic as `failbook lint --format json` shows a finding (positions from 1, files from the root). */
export interface Shown {
  rule: string;
  severity: string;
  message: string;
  line: number;
  column: number;
  related?: { message: string; file: string; line: number; column: number }[];
}

export const asShown = (root: string, d: Diagnostic): Shown => ({
  rule: String(d.code),
  severity: ["error", "warning", "info"][(d.severity ?? 1) - 1],
  message: d.message,
  line: d.range.start.line + 1,
  column: d.range.start.character + 1,
  ...(d.relatedInformation
    ? { related: d.relatedInformation.map((r) => ({ message: r.message, file: relative(root, fileURLToPath(r.location.uri)), line: r.location.range.start.line + 1, column: r.location.range.start.character + 1 })) }
    : {}),
});

/**
 * `failbook lsp` driven byte by byte, as a broken or hostile client drives it: frames written
 * as given (a bad `Content-Length` included), every message the server sends kept in order.
 */
export interface RawLsp {
  /** Bytes as they are, framing included. */
  write(bytes: string): void;
  /** One message, well framed. */
  send(message: unknown): void;
  /** The server's messages so far, in the order sent. */
  received: Message[];
  /** The response to request `id`. */
  answer(id: number | string, timeoutMs?: number): Promise<ResponseMessage>;
  /** The first message after `from` (an index into received) that `test` accepts. */
  next(test: (m: Message) => boolean, from?: number, timeoutMs?: number): Promise<Message>;
  /** The exit code once the process ended. */
  exited: Promise<number | null>;
  stderr: () => string;
  child: ChildProcessWithoutNullStreams;
}

export const frame = (body: string): string => `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

export function startRawLsp(root: string): RawLsp {
  const child = spawn(process.execPath, [BIN, "lsp"], { cwd: root, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NO_COLOR: "1" } });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const received: Message[] = [];
  const waiters = new Set<() => void>();
  new StreamMessageReader(child.stdout).listen((m) => {
    received.push(m);
    for (const w of [...waiters]) w();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const next = (test: (m: Message) => boolean, from = 0, timeoutMs = 10_000) =>
    new Promise<Message>((resolve, reject) => {
      const look = () => {
        const found = received.slice(from).find(test);
        if (!found) return false;
        waiters.delete(look);
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        waiters.delete(look);
        reject(new Error(`no such message within ${timeoutMs} ms; received ${JSON.stringify(received)}; stderr: ${stderr}`));
      }, timeoutMs);
      if (!look()) waiters.add(look);
    });
  return {
    write: (bytes) => void child.stdin.write(bytes),
    send: (message) => void child.stdin.write(frame(JSON.stringify(message))),
    received,
    next,
    answer: (id, timeoutMs) => next((m) => Message.isResponse(m) && m.id === id, 0, timeoutMs) as Promise<ResponseMessage>,
    exited,
    stderr: () => stderr,
    child,
  };
}
