/**
 * JSON-RPC over stdio, strict about what it accepts and never stuck on what it refuses. Each
 * frame is headers, a blank line and a body of exactly `Content-Length` bytes; a frame whose
 * header is bad (no `Content-Length`, or one that is not a whole number) or whose body is
 * not JSON gets a Parse error response, and the reader resynchronises on the next
 * `Content-Length:` header: what a bad frame left behind (the rest of a body after a length
 * too small, a body after a header it could not use) is skipped, so the next well-framed
 * message is read and answered, `exit` included. A JSON value that is not a request,
 * notification or response gets an Invalid Request error (with its id when it has one), and
 * a message the `screen` refuses (lsp/protocol.ts) gets its error when it is a request and
 * is dropped, logged, when it is a notification.
 */
import { AbstractMessageReader, Disposable, ErrorCodes, Message, StreamMessageWriter, type DataCallback, type MessageReader, type MessageWriter, type NotificationMessage, type RequestMessage } from "vscode-languageserver/node";

export interface Transport {
  reader: MessageReader;
  writer: MessageWriter;
}

/** Why a message is not handed to the server: the error a request gets. */
export interface Refusal {
  code: number;
  message: string;
  /** A notification refused so is dropped without a word (before initialize, the server may send nothing). */
  quiet?: boolean;
}

export interface TransportOptions {
  /** A message the server must not see, and why; undefined to let it through. */
  screen(message: RequestMessage | NotificationMessage): Refusal | undefined;
  log(message: string): void;
}

export function stdioTransport(input: NodeJS.ReadableStream, output: NodeJS.WritableStream, options: TransportOptions): Transport {
  const writer = new StreamMessageWriter(output, { charset: "utf-8", contentTypeEncoder: { name: "application/json", encode: (message, { charset }) => Promise.resolve(Buffer.from(encode(message), charset)) } });
  const refuse = (id: number | string | null, code: number, message: string) => void writer.write({ jsonrpc: "2.0", id, error: { code, message } } as Message);
  const reader = new FramedReader(input, (why) => refuse(null, ErrorCodes.ParseError, why), (message, callback) => {
    if (!(Message.isRequest(message) || Message.isNotification(message) || Message.isResponse(message))) {
      const id = (message as { id?: unknown } | null)?.id;
      refuse(typeof id === "number" || typeof id === "string" ? id : null, ErrorCodes.InvalidRequest, "invalid request: a JSON-RPC 2.0 message has a string method (and a numeric or string id for a request)");
      return;
    }
    const refusal = Message.isResponse(message) ? undefined : options.screen(message);
    if (refusal === undefined) callback(message);
    else if (Message.isRequest(message)) refuse(message.id, refusal.code, refusal.message);
    else if (!refusal.quiet) options.log(`failbook lsp: ignored ${(message as NotificationMessage).method}: ${refusal.message}`);
  });
  return { reader, writer };
}

/** Each diagnostic sent, as JSON: an edit publishes its file's thousands again, most of them the very objects sent before. */
const encoded = new WeakMap<object, string>();

/**
 * A message as JSON, exactly JSON.stringify's text. A publishDiagnostics notification's
 * diagnostics are encoded once each (lsp/diagnostics.ts keeps a finding's diagnostic while
 * lint hands back the same finding, and never changes one).
 */
export function encode(message: Message): string {
  const params = (message as NotificationMessage).params as { diagnostics?: unknown } | undefined;
  const diagnostics = params?.diagnostics;
  if ((message as NotificationMessage).method !== "textDocument/publishDiagnostics" || !Array.isArray(diagnostics)) return JSON.stringify(message);
  const empty = JSON.stringify({ ...message, params: { ...params, diagnostics: [] } });
  // The params' last key (the URI, a JSON string, cannot hold the unescaped quotes of this).
  const at = empty.lastIndexOf('"diagnostics":[]');
  if (at < 0) return JSON.stringify(message);
  const items = diagnostics.map((d: unknown) => {
    if (typeof d !== "object" || d === null) return JSON.stringify(d) ?? "null";
    let text = encoded.get(d);
    if (text === undefined) encoded.set(d, (text = JSON.stringify(d)));
    return text;
  });
  return `${empty.slice(0, at)}"diagnostics":[${items.join(",")}]${empty.slice(at + '"diagnostics":[]'.length)}`;
}

const CONTENT_LENGTH = "Content-Length:";
/** A header line (RFC 9110's token, a colon, a value), or the start of one still arriving. */
const HEADER_LINE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+:[^\r\n]*$/;
const HEADER_START = /^[!#$%&'*+.^_`|~0-9A-Za-z-]*(:[^\r\n]*)?$/;
/** Headers longer than this are no headers. */
const MAX_HEADER_BYTES = 8192;

/** What the bytes at the start of the buffer are. */
type Frame =
  /** More bytes must come: `need` in all, when the header said how many. */
  | { kind: "incomplete"; need?: number }
  | { kind: "message"; body: Buffer; end: number }
  /** `skip` bytes that are no message: a bad header (and its body), or what a bad frame left. */
  | { kind: "bad"; skip: number; why: string | undefined };

class FramedReader extends AbstractMessageReader {
  /** What came and was not read yet, in pieces: a large body is joined once, when it is whole. */
  private chunks: Buffer[] = [];
  private length = 0;
  private need = 0;
  /** After a bad frame: bytes up to the next `Content-Length:` are its remains, skipped without a word. */
  private resyncing = false;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly parseError: (why: string) => void,
    private readonly deliver: (message: Message, callback: DataCallback) => void,
  ) {
    super();
  }

  listen(callback: DataCallback): Disposable {
    const onData = (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.length += chunk.length;
      if (this.length >= this.need) this.drain(callback);
    };
    const onError = (error: Error) => this.fireError(error);
    const onClose = () => this.fireClose();
    this.input.on("data", onData);
    this.input.on("error", onError);
    this.input.on("end", onClose);
    this.input.on("close", onClose);
    return Disposable.create(() => {
      this.input.off("data", onData);
      this.input.off("error", onError);
      this.input.off("end", onClose);
      this.input.off("close", onClose);
    });
  }

  private drain(callback: DataCallback): void {
    let buffer = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
    const keep = (rest: Buffer) => {
      buffer = rest;
      this.chunks = rest.length === 0 ? [] : [rest];
      this.length = rest.length;
    };
    keep(buffer);
    for (;;) {
      const frame = nextFrame(buffer, this.resyncing);
      if (frame.kind === "incomplete") {
        this.need = frame.need ?? 0;
        return;
      }
      if (frame.kind === "bad") {
        keep(buffer.subarray(frame.skip));
        if (frame.why !== undefined) this.parseError(frame.why);
        this.resyncing = true;
        continue;
      }
      keep(buffer.subarray(frame.end));
      let message: Message;
      try {
        message = JSON.parse(frame.body.toString("utf8")) as Message;
      } catch (e) {
        this.parseError(`not a JSON-RPC message: ${(e as Error).message.split("\n")[0]}`);
        // A body that is not JSON may be a frame whose length was too small: its rest follows.
        this.resyncing = true;
        continue;
      }
      this.resyncing = false;
      this.deliver(message, callback);
    }
  }
}

/**
 * The frame at the start of `buffer`. Bytes that do not start a header are skipped up to the
 * next `Content-Length:` (said once, unless they are a bad frame's remains: `resyncing`).
 */
function nextFrame(buffer: Buffer, resyncing: boolean): Frame {
  if (buffer.length === 0) return { kind: "incomplete" };
  const headerEnd = buffer.subarray(0, MAX_HEADER_BYTES).indexOf("\r\n\r\n");
  const head = buffer.subarray(0, headerEnd < 0 ? Math.min(buffer.length, MAX_HEADER_BYTES) : headerEnd).toString("latin1");
  const lines = head.split("\r\n");
  const complete = headerEnd >= 0 ? lines : lines.slice(0, -1);
  const looksLikeHeaders = complete.every((l) => HEADER_LINE.test(l)) && (headerEnd >= 0 || HEADER_START.test(lines[lines.length - 1] as string));
  if (!looksLikeHeaders || (headerEnd < 0 && buffer.length >= MAX_HEADER_BYTES)) return skipToNextFrame(buffer, resyncing ? undefined : "bytes that are not a JSON-RPC frame (no Content-Length header before them)");
  if (headerEnd < 0) return { kind: "incomplete" };
  const length = complete.map((l) => /^content-length:[ \t]*(.*?)[ \t]*$/i.exec(l)).find((m) => m !== null)?.[1];
  if (length === undefined) return skipToNextFrame(buffer, "a JSON-RPC frame without a Content-Length header");
  if (!/^\d{1,15}$/.test(length)) return skipToNextFrame(buffer, `a JSON-RPC frame whose Content-Length is not a whole number of bytes: '${length.slice(0, 20)}'`);
  const start = headerEnd + 4;
  const end = start + Number(length);
  if (buffer.length < end) return { kind: "incomplete", need: end };
  return { kind: "message", body: buffer.subarray(start, end), end };
}

/** Everything up to the next `Content-Length:` header is skipped (all but its last bytes, which may start one, when none came yet). */
function skipToNextFrame(buffer: Buffer, why: string | undefined): Frame {
  const next = buffer.indexOf(CONTENT_LENGTH, 1);
  return { kind: "bad", skip: next >= 0 ? next : Math.max(1, buffer.length - CONTENT_LENGTH.length + 1), why };
}
