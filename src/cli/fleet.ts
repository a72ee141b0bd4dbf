/** `failbook fleet status` (SPEC 23): the fleet's shared state in Redis now. */
import { UsageError } from "failbook-runtime/model/errors.js";
import { formatFleetStatusText, readFleetStatus } from "../fleet/status.js";
import { parseRedisUrl, RespClient } from "../fleet/resp.js";
import { choiceFlag, type CommandRegistrar } from "./command.js";
import type { Io } from "./io.js";

const FORMATS = ["text", "json"] as const;
const TIMEOUT_MS = 5000;

interface StatusFlags {
  redis?: string;
  prefix?: string;
  format?: string;
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

Exit status: 0 shown (an empty fleet too); 2 no --redis, a URL that does not parse, or a
Redis that does not answer within 5 s or refuses the command.

Examples:
  failbook fleet status --redis redis://localhost:6379 --prefix payments
  failbook fleet status --redis rediss://:PASSWORD@cache.internal:6380/2 --format json`;

export const registerFleet: CommandRegistrar = (program, run) => {
  const fleet = program.command("fleet").description("the fleet state that scope: fleet policies share through Redis (see: failbook fleet status --help)");
  fleet
    .command("status")
    .description("show the fleet now: processes and their last sync, the budget, tokens, each rate limit's bucket and leases")
    .option("--redis <url>", "the store: redis://HOST[:PORT][/DB] (rediss:// for TLS)")
    .option("--prefix <name>", "the prefix the processes give redisFleetStore (default: default)")
    .option("--format <format>", "text or json (default: text)")
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
  let client: RespClient | undefined;
  try {
    client = await RespClient.open(target, TIMEOUT_MS);
    const report = await readFleetStatus(client, prefix);
    io.out(format === "json" ? JSON.stringify(report, null, 2) + "\n" : formatFleetStatusText(report, target.shown));
    return 0;
  } catch (e) {
    io.fail(`cannot read the fleet from Redis at ${target.shown}: ${(e as Error)?.message || (e as { code?: string })?.code || String(e)}`);
    return 2;
  } finally {
    client?.close();
  }
}
