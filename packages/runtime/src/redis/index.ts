/**
 * failbook-runtime/redis (SPEC 23): a fleet store on the Redis client the service already
 * has. node-redis 4 and 5 and ioredis (and iovalkey, its fork) are told apart by shape; the
 * runtime depends on none of them. Each sync is one `EVALSHA` of the sync script (an `EVAL`
 * when the server answers NOSCRIPT: it caches the script again), on keys under one hash tag,
 * `{failbook:PREFIX}:...`, so Redis Cluster keeps a project's keys in one slot.
 */
import type { FleetBreakerTotals, FleetReport, FleetStore, FleetTotals } from "../engine/fleet/store.js";
import { SYNC_KEYS, SYNC_SCRIPT } from "./script.js";

export type { FleetStore, FleetReport, FleetTotals } from "../engine/fleet/store.js";

/** node-redis 4 and 5: every command through `sendCommand(args)`. */
export interface NodeRedisLike {
  sendCommand(args: string[]): Promise<unknown>;
}

/** ioredis 5, iovalkey: a method a command. */
export interface IoRedisLike {
  evalsha(sha: string, numKeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  time(): Promise<unknown>;
}

export type RedisClientLike = NodeRedisLike | IoRedisLike;

export interface RedisFleetStoreOptions {
  /** The project's name in the store: keys are `{failbook:PREFIX}:...` (default "default"). */
  prefix?: string | undefined;
}

/** A fleet store on a connected Redis client (Redis 6.2 or later, Valkey). */
export function redisFleetStore(client: RedisClientLike, options: RedisFleetStoreOptions = {}): FleetStore {
  const prefix = options.prefix ?? "default";
  if (typeof prefix !== "string" || prefix === "" || /[{}\s]/.test(prefix)) {
    throw new TypeError(`redisFleetStore: prefix ${JSON.stringify(prefix)} must be a non-empty name without braces or spaces (it goes inside the keys' hash tag {failbook:PREFIX})`);
  }
  const run = commandsOf(client);
  const tag = `{failbook:${prefix}}`;
  const base = SYNC_KEYS.map((name) => `${tag}:${name}`);
  const sha = sha1Hex(SYNC_SCRIPT);
  let warned = false;
  return {
    async sync(report: FleetReport): Promise<FleetTotals> {
      const arg = JSON.stringify(report);
      const keys = [...base, ...(report.rates ?? []).map((r) => `${tag}:rate:${r.name}`), ...(report.breakers ?? []).flatMap((b) => [`${tag}:breaker:${b.name}`, `${tag}:probe:${b.name}`])];
      let reply: unknown;
      try {
        reply = await run.evalsha(await sha, keys, arg);
      } catch (e) {
        if (!String((e as Error)?.message ?? e).startsWith("NOSCRIPT")) throw e;
        // The server lost its script cache (a restart, SCRIPT FLUSH): EVAL runs it and caches it again.
        reply = await run.eval(SYNC_SCRIPT, keys, arg);
      }
      const totals = totalsOf(reply);
      if (totals.ignored > 0 && !warned) {
        warned = true;
        (globalThis as { process?: { emitWarning?(message: string): void } }).process?.emitWarning?.(
          `failbook: ${totals.ignored} value(s) of the wrong shape under {failbook:${prefix}} were ignored (another project's or a tampered state?)`,
        );
      }
      return totals;
    },
    async time(): Promise<number> {
      const reply = await run.time();
      if (!Array.isArray(reply) || reply.length < 2) throw new Error(`redisFleetStore: TIME answered ${JSON.stringify(reply)}`);
      return Number(reply[0]) * 1000 + Math.floor(Number(reply[1]) / 1000);
    },
  };
}

interface Commands {
  evalsha(sha: string, keys: string[], arg: string): Promise<unknown>;
  eval(script: string, keys: string[], arg: string): Promise<unknown>;
  time(): Promise<unknown>;
}

/** Tells the clients apart by shape: ioredis has lowercase `evalsha` (its `sendCommand` takes a Command object), node-redis `sendCommand(args)`. */
function commandsOf(client: RedisClientLike): Commands {
  const c = client as Partial<IoRedisLike & NodeRedisLike> | null;
  if (c !== null && typeof c === "object" && typeof c.evalsha === "function" && typeof c.eval === "function" && typeof c.time === "function") {
    const io = c as IoRedisLike;
    return {
      evalsha: (sha, keys, arg) => io.evalsha(sha, keys.length, ...keys, arg),
      eval: (script, keys, arg) => io.eval(script, keys.length, ...keys, arg),
      time: () => io.time(),
    };
  }
  if (c !== null && typeof c === "object" && typeof c.sendCommand === "function") {
    const node = c as NodeRedisLike;
    return {
      evalsha: (sha, keys, arg) => node.sendCommand(["EVALSHA", sha, String(keys.length), ...keys, arg]),
      eval: (script, keys, arg) => node.sendCommand(["EVAL", script, String(keys.length), ...keys, arg]),
      time: () => node.sendCommand(["TIME"]),
    };
  }
  throw new TypeError("redisFleetStore: the client is neither node-redis (sendCommand) nor ioredis/iovalkey (evalsha, eval, time); pass a connected client of one of them");
}

function totalsOf(reply: unknown): FleetTotals & { ignored: number } {
  const text = typeof reply === "string" ? reply : reply instanceof Uint8Array ? new TextDecoder().decode(reply) : undefined;
  const parsed = text === undefined ? undefined : (JSON.parse(text) as Partial<FleetTotals> & { ignored?: number; budget?: unknown });
  if (parsed === undefined || typeof parsed.now_ms !== "number" || typeof parsed.instances !== "number") {
    throw new Error(`redisFleetStore: the sync script answered ${JSON.stringify(text ?? typeof reply)}`);
  }
  // cjson encodes an empty table as {}: a budget is an object with both counts, or absent.
  const totals: FleetTotals & { ignored: number } = { now_ms: parsed.now_ms, instances: parsed.instances, ignored: typeof parsed.ignored === "number" ? parsed.ignored : 0 };
  const budget = parsed.budget as { calls?: unknown; retries?: unknown } | undefined;
  if (budget !== undefined && typeof budget.calls === "number" && typeof budget.retries === "number") totals.budget = { calls: budget.calls, retries: budget.retries };
  for (const key of ["throttling", "quota"] as const) {
    const count = (parsed as Record<string, { tokens?: unknown } | undefined>)[key]?.tokens;
    if (typeof count === "number") totals[key] = { tokens: count };
  }
  const rates = (parsed as { rates?: unknown }).rates;
  if (Array.isArray(rates)) {
    totals.rates = rates.map((r: { name?: unknown; grant?: unknown; tokens?: unknown } | null) => ({
      name: typeof r?.name === "string" ? r.name : "",
      grant: typeof r?.grant === "number" ? r.grant : -1,
      tokens: typeof r?.tokens === "number" ? r.tokens : 0,
    }));
  }
  const breakers = (parsed as { breakers?: unknown }).breakers;
  // The breaker part checks each answer's shape; a malformed one is ignored there.
  if (Array.isArray(breakers)) totals.breakers = breakers as FleetBreakerTotals[];
  return totals;
}

/** The script's SHA-1, as Redis names it (Web Crypto: no dependency, no `node:` import). */
async function sha1Hex(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest("SHA-1", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
