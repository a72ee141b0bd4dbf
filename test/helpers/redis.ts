/**
 * A real Redis for the fleet tests (SPEC 23): Debian's redis-server, started on a free
 * loopback port with a temp dir and no persistence, stopped after. Where it is missing the
 * tests say so in one line and skip.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./net.js";

export { freePort };

const CANDIDATES = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"];
export const REDIS_SERVER = CANDIDATES.find((p) => existsSync(p));

/** One line, once, when the tests cannot run. */
export function skipWithoutRedis(file: string): boolean {
  if (REDIS_SERVER === undefined) console.warn(`${file}: skipped, redis-server is absent (apt-get install -y redis-server)`);
  return REDIS_SERVER === undefined;
}


/** One command in RESP over a fresh connection: enough for PING, INFO and CONFIG without a client. */
export function redisCommand(port: number, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    let text = "";
    socket.setEncoding("utf8");
    socket.once("error", reject);
    socket.on("data", (chunk: string) => {
      text += chunk;
      const reply = completeReply(text);
      if (reply !== undefined) {
        socket.destroy();
        if (reply.startsWith("-")) reject(new Error(reply.slice(1)));
        else resolve(reply);
      }
    });
    socket.write(`*${args.length}\r\n` + args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join(""));
  });
}

/** A simple or bulk reply, when it has all arrived. */
function completeReply(text: string): string | undefined {
  const end = text.indexOf("\r\n");
  if (end < 0) return undefined;
  if (text[0] !== "$") return text.slice(0, end);
  const length = Number(text.slice(1, end));
  if (length < 0) return "";
  return text.length >= end + 2 + length + 2 ? text.slice(end + 2, end + 2 + length) : undefined;
}

export interface RedisServer {
  readonly port: number;
  /** SIGKILL, as a crash would. */
  kill(): Promise<void>;
  /** Start again on the same port (after kill). */
  restart(): Promise<void>;
  stop(): Promise<void>;
  /** `INFO commandstats`'s calls of one command, e.g. "evalsha". */
  calls(command: string): Promise<number>;
}

export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "failbook-redis-"));
  let child: ChildProcess | undefined;
  const launch = async (): Promise<void> => {
    child = spawn(REDIS_SERVER!, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir], { stdio: "ignore" });
    for (let i = 0; i < 200; i++) {
      if (await redisCommand(port, "PING").then((r) => r === "+PONG", () => false)) return;
      await sleep(20);
    }
    throw new Error(`redis-server did not answer on port ${port}`);
  };
  const kill = async (): Promise<void> => {
    const c = child;
    child = undefined;
    if (c === undefined || c.exitCode !== null) return;
    const exited = new Promise((resolve) => c.once("exit", resolve));
    c.kill("SIGKILL");
    await exited;
  };
  await launch();
  return {
    port,
    kill,
    restart: launch,
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
    async calls(command) {
      const info = await redisCommand(port, "INFO", "commandstats");
      const m = new RegExp(`^cmdstat_${command}:calls=(\\d+)`, "m").exec(info);
      return m === null ? 0 : Number(m[1]);
    },
  };
}

/** A loopback TCP proxy in front of a port that delays every chunk by `delayMs` each way. */
export async function slowProxy(target: number, delayMs: number): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((inbound) => {
    const outbound = createConnection({ port: target, host: "127.0.0.1" });
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on("error", () => s.destroy());
      s.on("close", () => sockets.delete(s));
    }
    const pipeDelayed = (from: Socket, to: Socket) => from.on("data", (chunk) => setTimeout(() => to.destroyed || to.write(chunk), delayMs));
    pipeDelayed(inbound, outbound);
    pipeDelayed(outbound, inbound);
    inbound.on("close", () => outbound.destroy());
    outbound.on("close", () => inbound.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
