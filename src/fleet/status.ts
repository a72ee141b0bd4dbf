/**
 * `failbook fleet status` (SPEC 23): the fleet's state in the store now, read with plain
 * commands (never the sync script): its processes and their last sync, the retry budget's
 * counts, the token counts, each fleet rate limit's bucket and leases, and each fleet breaker's
 * state, how many processes see it open, and who holds its half-open probe.
 */
import type { Reply, RespClient } from "./resp.js";

export interface FleetStatusReport {
  prefix: string;
  /** The store's clock (TIME), ms since the epoch. */
  store_ms: number;
  processes: { instance: string; last_sync_ms_ago: number }[];
  retry_budget: { calls: number; retries: number } | null;
  retry_throttling: { tokens: number } | null;
  retry_quota: { tokens: number } | null;
  rate_limits: { name: string; tokens: number; refilled_ms_ago: number; leases: { instance: string; tokens: number }[] }[];
  /** Each fleet breaker circuit (`name/tool` for a `per: tool` breaker's). */
  breakers: { name: string; state: "closed" | "open" | "half_open"; break_left_ms: number; attempts: number; failures: number; processes_open: number; probe: string | null }[];
}

const text = (r: Reply): string => (typeof r === "string" ? r : String(r));
const pairs = (r: Reply): [string, string][] => {
  const out: [string, string][] = [];
  if (Array.isArray(r)) for (let i = 0; i + 1 < r.length; i += 2) out.push([text(r[i]!), text(r[i + 1]!)]);
  return out;
};
const byName = <T>(key: (t: T) => string) => (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

export async function readFleetStatus(client: RespClient, prefix: string): Promise<FleetStatusReport> {
  const tag = `{failbook:${prefix}}`;
  const time = await client.must(["TIME"]);
  const now = Array.isArray(time) ? Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000) : Date.now();
  const processes = pairs(await client.must(["ZRANGE", `${tag}:instances`, "0", "-1", "WITHSCORES"]))
    .map(([instance, at]) => ({ instance, last_sync_ms_ago: Math.max(0, now - Number(at)) }))
    .sort(byName((p) => p.instance));
  const live = new Set(processes.map((p) => p.instance));

  let budget: FleetStatusReport["retry_budget"] = null;
  for (const [instance, value] of pairs(await client.must(["HGETALL", `${tag}:budget`]))) {
    const m = /^(\d+):(\d+)$/.exec(value);
    if (m === null || !live.has(instance)) continue;
    budget ??= { calls: 0, retries: 0 };
    budget.calls += Number(m[1]);
    budget.retries += Number(m[2]);
  }
  const tokens = async (key: string, scale: number) => {
    const value = Number(await client.must(["HGET", `${tag}:${key}`, "tokens"]));
    return Number.isFinite(value) && (await client.must(["HEXISTS", `${tag}:${key}`, "tokens"])) === 1 ? { tokens: value / scale } : null;
  };

  const scan = async (kind: string): Promise<string[]> => {
    const keys: string[] = [];
    let cursor = "0";
    do {
      const reply = await client.must(["SCAN", cursor, "MATCH", `${tag.replace(/[[\]*?\\]/g, "\\$&")}:${kind}:*`, "COUNT", "1000"]);
      if (!Array.isArray(reply)) break;
      cursor = text(reply[0]!);
      if (Array.isArray(reply[1])) keys.push(...reply[1].map(text));
    } while (cursor !== "0");
    return [...new Set(keys)].sort();
  };
  const rate_limits: FleetStatusReport["rate_limits"] = [];
  for (const key of await scan("rate")) {
    const fields = new Map(pairs(await client.must(["HGETALL", key])));
    const count = Number(fields.get("tokens"));
    const at = Number(fields.get("at"));
    if (!Number.isFinite(count) || !Number.isFinite(at)) continue;
    const leases = [...fields]
      .filter(([field]) => field.startsWith("o:") && live.has(field.slice(2)))
      .map(([field, value]) => ({ instance: field.slice(2), tokens: Number(value.split(":")[0]) }))
      .filter((l) => Number.isFinite(l.tokens))
      .sort(byName((l) => l.instance));
    rate_limits.push({ name: key.slice(`${tag}:rate:`.length), tokens: round(count), refilled_ms_ago: Math.max(0, now - at), leases });
  }
  const breakers: FleetStatusReport["breakers"] = [];
  for (const key of await scan("breaker")) {
    const fields = new Map(pairs(await client.must(["HGETALL", key])));
    const state = fields.get("state");
    const opened = Number(fields.get("opened"));
    const breakMs = Number(fields.get("break"));
    if ((state !== "closed" && state !== "open") || !Number.isFinite(opened) || !Number.isFinite(breakMs)) continue;
    const name = key.slice(`${tag}:breaker:`.length);
    const left = state === "open" ? Math.max(0, opened + breakMs - now) : 0;
    let attempts = 0;
    let failures = 0;
    let open = 0;
    for (const [field, value] of fields) {
      const m = /^(\d+):(\d+):([01])$/.exec(value);
      if (!field.startsWith("o:") || m === null || !live.has(field.slice(2))) continue;
      attempts += Number(m[1]);
      failures += Number(m[2]);
      open += Number(m[3]);
    }
    const probe = await client.must(["GET", `${tag}:probe:${name}`]);
    breakers.push({ name, state: state === "open" && left === 0 ? "half_open" : state, break_left_ms: left, attempts, failures, processes_open: open, probe: typeof probe === "string" ? probe : null });
  }
  return { prefix, store_ms: now, processes, retry_budget: budget, retry_throttling: await tokens("throttling", 1000), retry_quota: await tokens("quota", 1), rate_limits, breakers };
}

const round = (n: number): number => Math.round(n * 1000) / 1000;

export function formatFleetStatusText(report: FleetStatusReport, shownUrl: string): string {
  const lines = [`fleet ${report.prefix} at ${shownUrl}, store time ${new Date(report.store_ms).toISOString()}`];
  if (report.processes.length === 0 && report.rate_limits.length === 0 && report.breakers.length === 0 && report.retry_budget === null && report.retry_throttling === null && report.retry_quota === null) {
    lines.push(`no fleet state under {failbook:${report.prefix}}: no process of this prefix has synced within its lease (check --prefix)`);
    return lines.join("\n") + "\n";
  }
  lines.push(`processes: ${report.processes.length}`);
  for (const p of report.processes) lines.push(`  ${p.instance}  last sync ${p.last_sync_ms_ago} ms ago`);
  if (report.retry_budget !== null) lines.push(`retry budget: ${report.retry_budget.calls} calls, ${report.retry_budget.retries} retries in progress`);
  if (report.retry_throttling !== null) lines.push(`retry throttling: ${round(report.retry_throttling.tokens)} tokens`);
  if (report.retry_quota !== null) lines.push(`retry quota: ${round(report.retry_quota.tokens)} tokens`);
  for (const r of report.rate_limits) {
    const leases = r.leases.length === 0 ? "no leases" : `leases ${r.leases.map((l) => `${l.instance} ${l.tokens}`).join(", ")}`;
    lines.push(`rate limit ${r.name}: ${r.tokens} tokens in the fleet's bucket at its refill ${r.refilled_ms_ago} ms ago; ${leases}`);
  }
  for (const b of report.breakers) {
    const state = b.state === "open" ? `open, ${b.break_left_ms} ms of its break left` : b.state === "half_open" ? `half-open, probe ${b.probe === null ? "not taken yet" : `held by ${b.probe}`}` : "closed";
    lines.push(`breaker ${b.name}: ${state}; ${b.failures} failures in ${b.attempts} attempts in the fleet's window; ${b.processes_open} of ${report.processes.length} processes see it open`);
  }
  return lines.join("\n") + "\n";
}
