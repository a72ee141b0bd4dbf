/**
 * `failbook fleet status --watch` (SPEC 23): the refresh loop with an injected clock and
 * screen, and the command into a pipe (not a terminal) against a real redis-server, stopped
 * with SIGINT as Ctrl-C stops it.
 */
import { spawn } from "node:child_process";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisFleetStore } from "failbook-runtime/redis/index.js";
import { appendingScreen, terminalScreen, watch, type WatchClock } from "../src/fleet/watch.js";
import { BIN, failbook, REPO } from "./helpers/cli.js";
import { skipWithoutRedis, sleep, startRedis, type RedisServer } from "./helpers/redis.js";

/** A clock that only moves when the loop sleeps, or a read says it took time. */
function fakeClock(): WatchClock & { at: number; sleeps: number[] } {
  const clock = {
    at: 0,
    sleeps: [] as number[],
    now: () => clock.at,
    sleep: async (ms: number) => {
      clock.sleeps.push(ms);
      clock.at += ms;
    },
  };
  return clock;
}

describe("the --watch loop", () => {
  it("draws a frame on each second's tick: a slow read delays its own frame, not the ticks after it", async () => {
    const clock = fakeClock();
    const stop = new AbortController();
    const drawn: string[] = [];
    let n = 0;
    const frames = await watch({
      read: async () => {
        clock.at += n === 1 ? 300 : 20;
        return `reading ${++n} at ${clock.at}`;
      },
      screen: { draw: (f) => (drawn.push(f), drawn.length === 4 && stop.abort()) },
      clock,
      signal: stop.signal,
      failed: () => "failed",
    });
    expect(frames).toBe(4);
    expect(drawn).toEqual(["reading 1 at 20", "reading 2 at 1300", "reading 3 at 2020", "reading 4 at 3020"]);
    expect(clock.sleeps).toEqual([980, 700, 980]);
  });

  it("a read that fails draws what went wrong in its place, and the next tick reads again", async () => {
    const clock = fakeClock();
    const stop = new AbortController();
    const drawn: string[] = [];
    const answers = [() => "up", () => { throw new Error("ECONNREFUSED"); }, () => "up again"];
    await watch({
      read: async () => answers[drawn.length]!(),
      screen: { draw: (f) => (drawn.push(f), drawn.length === 3 && stop.abort()) },
      clock,
      signal: stop.signal,
      failed: (e) => `cannot read: ${(e as Error).message}`,
    });
    expect(drawn).toEqual(["up", "cannot read: ECONNREFUSED", "up again"]);
  });

  it("Ctrl-C during a read ends the loop without drawing that reading", async () => {
    const stop = new AbortController();
    const drawn: string[] = [];
    const frames = await watch({
      read: async () => {
        if (drawn.length === 1) stop.abort();
        return "frame";
      },
      screen: { draw: (f) => drawn.push(f) },
      clock: fakeClock(),
      signal: stop.signal,
      failed: () => "failed",
    });
    expect(frames).toBe(1);
  });

  it("a terminal's screen clears before each frame; a pipe's appends, the separator between frames", () => {
    const written: string[] = [];
    const tty = terminalScreen((clear, frame) => written.push(JSON.stringify(clear) + frame));
    tty.draw("a");
    tty.draw("b");
    expect(written).toEqual(['"\\u001b[H\\u001b[2J"a', '"\\u001b[H\\u001b[2J"b']);
    const piped: string[] = [];
    const pipe = appendingScreen((frame) => piped.push(frame), "\n");
    pipe.draw("a\n");
    pipe.draw("b\n");
    expect(piped.join("")).toBe("a\n\nb\n");
  });

  it("--help documents --watch", () => {
    const r = failbook(["fleet", "status", "--help"]);
    expect(r.stdout).toContain("--watch");
    expect(r.stdout).toContain("every second until Ctrl-C");
    expect(r.stdout).toContain("as kubectl get\n-w does");
  });
});

/** `failbook ARGS` into a pipe for `ms`, then SIGINT (Ctrl-C); its exit code and output. */
/** Runs the watch until `ms` pass, or `until` says so of its output so far (then Ctrl-C). */
function watchFor(ms: number, args: string[], until?: (stdout: string) => boolean): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NO_COLOR: "1" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
      if (until?.(stdout) === true) child.kill("SIGINT");
    });
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill("SIGINT"), ms);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describe.skipIf(skipWithoutRedis("fleet-status-watch"))("failbook fleet status --watch into a pipe", () => {
  let redis: RedisServer;
  let io: Redis;
  beforeAll(async () => {
    redis = await startRedis();
    io = new Redis({ port: redis.port, host: "127.0.0.1", lazyConnect: true });
    io.on("error", () => {}); // a test below kills the server
    await io.connect();
    await redisFleetStore(io, { prefix: "watched" }).sync({ v: 1, instance: "web-1", lease_ms: 60_000, budget: { calls: 5, retries: 1 } });
  });
  afterAll(async () => {
    io?.disconnect();
    await redis?.stop();
  });

  const url = () => `redis://127.0.0.1:${redis.port}`;

  it("prints a reading a second, one after the other with a blank line between, plain text, until Ctrl-C: exit 0", async () => {
    const r = await watchFor(2500, ["fleet", "status", "--redis", url(), "--prefix", "watched", "--watch"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("\x1b");
    const frames = r.stdout.trimEnd().split("\n\n");
    expect(frames.length).toBeGreaterThanOrEqual(2);
    expect(frames.length).toBeLessThanOrEqual(4);
    for (const frame of frames) {
      expect(frame).toMatch(/^fleet watched at redis:\/\/127\.0\.0\.1:\d+, store time \S+\nprocesses: 1\n {2}web-1 {2}last sync \d+ ms ago\nretry budget: 5 calls, 1 retries in progress$/);
    }
  }, 15_000);

  it("--format json: one object a line, for jq", async () => {
    const r = await watchFor(2500, ["fleet", "status", "--redis", url(), "--prefix", "watched", "--watch", "--format", "json"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines.length).toBeGreaterThanOrEqual(2);
    const stores = lines.map((line) => (JSON.parse(line) as { prefix: string; store_ms: number; retry_budget: unknown }));
    for (const s of stores) expect(s).toMatchObject({ prefix: "watched", retry_budget: { calls: 5, retries: 1 } });
    // A reading each second, by the store's own clock.
    expect(stores[1]!.store_ms - stores[0]!.store_ms).toBeGreaterThanOrEqual(900);
  }, 15_000);

  it("Redis killed and restarted mid-watch: the reading in its place says so in one line, and the watch goes on", async () => {
    // Each step waits for what the watch shows, not for a time: a loaded machine starts it late.
    let step: "up" | "killing" | "down" | "restarting" | "back" = "up";
    const r = await watchFor(12_000, ["fleet", "status", "--redis", url(), "--prefix", "watched", "--watch"], (out) => {
      if (step === "up" && out.startsWith("fleet watched")) {
        step = "killing";
        void redis.kill().then(() => (step = "down"));
      } else if (step === "down" && out.includes("cannot read")) {
        step = "restarting";
        void redis.restart().then(() => (step = "back"));
      } else if (step === "back") return /no fleet state under \{failbook:watched\}[^\n]*\n(\n|$)/.test(out.slice(out.lastIndexOf("fleet watched at ")));
      return false;
    });
    expect(step).toBe("back");
    expect(r.code, r.stderr).toBe(0);
    const frames = r.stdout.trimEnd().split("\n\n");
    expect(frames[0]).toMatch(/^fleet watched at /);
    const down = frames.filter((f) => f.startsWith("cannot read"));
    expect(down.length, r.stdout).toBeGreaterThanOrEqual(1);
    for (const f of down) expect(f).toMatch(/^cannot read the fleet from Redis at redis:\/\/127\.0\.0\.1:\d+: [^\n]+; trying again every second$/);
    // Back (an empty store: the restarted Redis kept nothing).
    expect(frames.at(-1), r.stdout).toMatch(/^fleet watched at .*\nno fleet state under \{failbook:watched\}/);
  }, 15_000);

  it("a Redis that does not answer when the watch starts is one line, exit 2", async () => {
    const r = await watchFor(10_000, ["fleet", "status", "--redis", "redis://127.0.0.1:1", "--watch"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^failbook: cannot read the fleet from Redis at redis:\/\/127\.0\.0\.1:1: .+\n$/);
  }, 15_000);
});
