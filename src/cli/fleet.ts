/** `failbook fleet status` (SPEC 23): the fleet's shared state in Redis now. */
import { UsageError } from "failbook-runtime/model/errors.js";
import { formatFleetStatusText, readFleetStatus, type FleetStatusReport } from "../fleet/status.js";
import { parseRedisUrl, RespClient, type RedisTarget } from "../fleet/resp.js";
import { appendingScreen, realWatchClock, terminalScreen, watch, type WatchScreen } from "../fleet/watch.js";
import { choiceFlag, type CommandRegistrar } from "./command.js";
import type { Io } from "./io.js";

const FORMATS = ["text", "json"] as const;
const TIMEOUT_MS = 5000;

interface StatusFlags {
  redis?: string;
  prefix?: string;
  format?: string;
  watch?: boolean;
}

const HELP = `
Reads what the fleet's processes wrote under the keys {failbook:PREFIX}:... (the prefix given
to redisFleetStore, default "default"), with plain commands: it changes nothing. Shows each
process and its last sync by the store's clock, the retry budget's calls and retries in
progress, retry throttling's and the retry quota's token counts, and each fleet rate limit's
bucket (as of its last refill) and the lease each process holds.

Output formats:
  text  for a terminal
  json  { prefix, store_ms, processes: [{ instance, last_sync_ms_ago }],
          retry_budget: { calls, retries } | null, retry_throttling: { tokens } | null,
          retry_quota: { tokens } | null,
          rate_limits: [{ name, tokens, refilled_ms_ago, leases: [{ instance, tokens }] }] }

--watch reads the fleet again every second until Ctrl-C (exit 0). On a terminal each reading
replaces the last (the screen is cleared and redrawn). Into a pipe or a file, as kubectl get
-w does, each reading is printed after the last: text readings separated by a blank line,
--format json one object a line. A reading that fails once the watch has started (Redis
restarting) is shown as one line in its place, and the next second tries again.

Exit status: 0 shown (an empty fleet too, and --watch stopped by Ctrl-C); 2 no --redis, a
URL that does not parse, or a Redis that does not answer within 5 s or refuses the command.

Examples:
  failbook fleet status --redis redis://localhost:6379 --prefix payments
  failbook fleet status --redis rediss://:PASSWORD@cache.internal:6380/2 --format json
  failbook fleet status --redis redis://localhost:6379 --prefix payments --watch`;

export const registerFleet: CommandRegistrar = (program, run) => {
  const fleet = program.command("fleet").description("the fleet state that scope: fleet policies share through Redis (see: failbook fleet status --help)");
  fleet
    .command("status")
    .description("show the fleet now: processes and their last sync, the budget, tokens, each rate limit's bucket and leases")
    .option("--redis <url>", "the store: redis://HOST[:PORT][/DB] (rediss:// for TLS)")
    .option("--prefix <name>", "the prefix the processes give redisFleetStore (default: default)")
    .option("--format <format>", "text or json (default: text)")
    .option("--watch", "read it again every second until Ctrl-C: redrawn on a terminal, appended into a pipe")
    .addHelpText("after", HELP)
    .action(run((io, _globals, flags: StatusFlags) => status(io, flags)));
};

async function status(io: Io, flags: StatusFlags): Promise<number> {
  const format = choiceFlag("--format", flags.format, FORMATS, "text");
  if (flags.redis === undefined) throw new UsageError("fleet status needs --redis URL (redis://HOST[:PORT][/DB]), the store the fleet's processes sync through");
  const prefix = flags.prefix ?? "default";
  if (prefix === "" || /[{}\s]/.test(prefix)) throw new UsageError(`--prefix '${prefix}' must be a non-empty name without braces or spaces, as redisFleetStore takes it`);
  const target = parseRedisUrl(flags.redis);
  if (typeof target === "string") throw new UsageError(target);
  // Into a pipe, --watch --format json writes one object a line (NDJSON), for jq and the like.
  const oneLine = flags.watch === true && !io.interactive && format === "json";
  const show = (report: FleetStatusReport): string => (format === "json" ? JSON.stringify(report, null, oneLine ? undefined : 2) + "\n" : formatFleetStatusText(report, target.shown));
  let client: RespClient | undefined;
  const read = async (): Promise<string> => {
    try {
      client ??= await RespClient.open(target, TIMEOUT_MS);
      return show(await readFleetStatus(client, prefix));
    } catch (e) {
      client?.close();
      client = undefined;
      throw e;
    }
  };
  try {
    const first = await read();
    if (flags.watch !== true) {
      io.out(first);
      return 0;
    }
    await watchStatus(io, { first, read, failed: (e) => `${cannotRead(target, e)}; trying again every second\n`, separator: format === "json" ? "" : "\n" });
    return 0;
  } catch (e) {
    io.fail(cannotRead(target, e));
    return 2;
  } finally {
    client?.close();
  }
}

const cannotRead = (target: RedisTarget, e: unknown): string => `cannot read the fleet from Redis at ${target.shown}: ${(e as Error)?.message || (e as { code?: string })?.code || String(e)}`;

interface WatchFrames {
  /** The first reading, taken before the watch starts (a Redis that does not answer then is exit 2). */
  first: string;
  read(): Promise<string>;
  failed(error: unknown): string;
  /** Between two frames appended into a pipe. */
  separator: string;
}

/** `--watch`: the first reading, then one a second until Ctrl-C (or SIGTERM), redrawn on a terminal, appended elsewhere. */
async function watchStatus(io: Io, frames: WatchFrames): Promise<void> {
  const stop = new AbortController();
  const abort = (): void => stop.abort();
  process.once("SIGINT", abort);
  process.once("SIGTERM", abort);
  const screen: WatchScreen = io.interactive
    ? terminalScreen((clear, frame) => {
        io.control(clear);
        io.out(`${frame}\nevery 1 s; Ctrl-C to stop\n`);
      })
    : appendingScreen((frame) => io.out(frame), frames.separator);
  let first: string | undefined = frames.first;
  const read = (): Promise<string> => {
    if (first === undefined) return frames.read();
    const frame = first;
    first = undefined;
    return Promise.resolve(frame);
  };
  try {
    await watch({ read, screen, clock: realWatchClock, signal: stop.signal, failed: frames.failed });
  } finally {
    process.removeListener("SIGINT", abort);
    process.removeListener("SIGTERM", abort);
  }
}
