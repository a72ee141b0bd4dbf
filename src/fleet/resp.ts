/**
 * Just enough of a Redis client for `failbook fleet status` (SPEC 23): RESP2 over node:net
 * (node:tls for rediss://), one command at a time. The CLI reads what the fleet's processes
 * wrote without depending on a Redis package.
 */
import { connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";

export type Reply = string | number | null | Reply[] | RedisReplyError;

export class RedisReplyError extends Error {}

/** A `redis://` or `rediss://` URL, parsed; a message saying what is wrong otherwise. */
export interface RedisTarget {
  host: string;
  port: number;
  tls: boolean;
  username?: string;
  password?: string;
  db?: number;
  /** The URL without its password, to show. */
  shown: string;
}

export function parseRedisUrl(text: string): RedisTarget | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `--redis '${text}' is not a URL; give redis://HOST[:PORT][/DB] (rediss:// for TLS)`;
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") return `--redis '${safe(url)}' is a ${url.protocol.replace(/:$/, "")} URL; give redis://HOST[:PORT][/DB] (rediss:// for TLS)`;
  if (url.hostname === "") return `--redis '${safe(url)}' names no host; give redis://HOST[:PORT][/DB]`;
  const path = url.pathname.replace(/^\//, "");
  if (path !== "" && !/^\d{1,5}$/.test(path)) return `--redis '${safe(url)}': the database '${path}' is not a number; give redis://HOST[:PORT][/DB]`;
  const target: RedisTarget = { host: url.hostname.replace(/^\[|\]$/g, ""), port: url.port === "" ? 6379 : Number(url.port), tls: url.protocol === "rediss:", shown: safe(url) };
  if (url.username !== "") target.username = decodeURIComponent(url.username);
  if (url.password !== "") target.password = decodeURIComponent(url.password);
  if (path !== "") target.db = Number(path);
  return target;
}

function safe(url: URL): string {
  const copy = new URL(url.href);
  if (copy.password !== "") copy.password = "***";
  return copy.href.replace(/\/$/, "");
}

/** A connection: `command` sends one and resolves with its reply (an error reply resolves as RedisReplyError). */
export class RespClient {
  private buffer: Buffer = Buffer.alloc(0);
  private readonly waiting: { resolve(reply: Reply): void; reject(error: Error): void }[] = [];
  private failure: Error | undefined;

  private constructor(private readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => this.read(chunk));
    socket.on("error", (e) => this.fail(e));
    socket.on("close", () => this.fail(new Error("the connection closed")));
  }

  /** Connect, authenticate and select the database; rejects after `timeoutMs`. */
  static async open(target: RedisTarget, timeoutMs: number): Promise<RespClient> {
    const socket = target.tls ? tlsConnect({ host: target.host, port: target.port, servername: target.host }) : netConnect({ host: target.host, port: target.port });
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    await new Promise<void>((resolve, reject) => {
      socket.once(target.tls ? "secureConnect" : "connect", () => resolve());
      socket.once("error", (e) => {
        socket.destroy();
        reject(e);
      });
    });
    const client = new RespClient(socket);
    try {
      if (target.password !== undefined) await client.must(target.username === undefined ? ["AUTH", target.password] : ["AUTH", target.username, target.password]);
      if (target.db !== undefined) await client.must(["SELECT", String(target.db)]);
    } catch (e) {
      client.close();
      throw e;
    }
    return client;
  }

  command(args: readonly string[]): Promise<Reply> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.socket.write(`*${args.length}\r\n` + args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join(""));
    });
  }

  /** A command whose error reply is an error. */
  async must(args: readonly string[]): Promise<Reply> {
    const reply = await this.command(args);
    if (reply instanceof RedisReplyError) throw reply;
    return reply;
  }

  close(): void {
    this.failure ??= new Error("closed");
    this.socket.destroy();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const w of this.waiting.splice(0)) w.reject(this.failure);
  }

  private read(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const parsed = parseReply(this.buffer, 0);
      if (parsed === undefined) return;
      this.buffer = this.buffer.subarray(parsed.end);
      this.waiting.shift()?.resolve(parsed.reply);
    }
  }
}

/** One reply from `at`, or undefined when it has not all arrived. */
function parseReply(buffer: Buffer, at: number): { reply: Reply; end: number } | undefined {
  const lineEnd = buffer.indexOf("\r\n", at);
  if (lineEnd < 0) return undefined;
  const line = buffer.toString("utf8", at + 1, lineEnd);
  const next = lineEnd + 2;
  switch (String.fromCharCode(buffer[at]!)) {
    case "+":
      return { reply: line, end: next };
    case "-":
      return { reply: new RedisReplyError(line), end: next };
    case ":":
      return { reply: Number(line), end: next };
    case "$": {
      const length = Number(line);
      if (length < 0) return { reply: null, end: next };
      if (buffer.length < next + length + 2) return undefined;
      return { reply: buffer.toString("utf8", next, next + length), end: next + length + 2 };
    }
    case "*": {
      const count = Number(line);
      if (count < 0) return { reply: null, end: next };
      const items: Reply[] = [];
      let end = next;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buffer, end);
        if (item === undefined) return undefined;
        items.push(item.reply);
        end = item.end;
      }
      return { reply: items, end };
    }
    default:
      throw new Error(`the server answered something that is not RESP (${JSON.stringify(line.slice(0, 40))})`);
  }
}
