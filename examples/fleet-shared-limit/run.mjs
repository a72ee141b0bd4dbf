// The geocoding service's fleet against a geocoding API that enforces its key's limit
// (README.md). Starts the API on a loopback port (100 requests a second, in fixed windows of a
// second from the start; past it, 429 with retry-after), forks the service's processes
// (service.mjs), lets them call the API for a few seconds, and prints what the API saw each
// second against its limit and the fleet's stated bound.
//
//   node examples/fleet-shared-limit/run.mjs --redis redis://127.0.0.1:6380 [--processes 8]
//     [--seconds 4] [--concurrency 4] [--scope fleet|process] [--outage FROM-TO]
//     [--prefix geocoder] [--json]
//
// --outage 2-4: the API answers 503 from the start of second 2 to the end of second 4, and the
// geo breaker opens for the whole fleet (scope: fleet), and one process probes when its break ends.
import { fork } from "node:child_process";
import { createServer } from "node:http";
import { parseArgs } from "node:util";

const API_LIMIT = { requests: 100, per_ms: 1000 };

let flags;
try {
  ({ values: flags } = parseArgs({
    options: {
      redis: { type: "string" },
      processes: { type: "string", default: "8" },
      seconds: { type: "string", default: "4" },
      concurrency: { type: "string", default: "4" },
      scope: { type: "string", default: "fleet" },
      outage: { type: "string" },
      prefix: { type: "string", default: "geocoder" },
      json: { type: "boolean", default: false },
    },
  }));
} catch (e) {
  fail(`${e.message} (see the top of run.mjs for its flags)`);
}
const processes = count("--processes", flags.processes, 64);
const seconds = count("--seconds", flags.seconds, 600);
const concurrency = count("--concurrency", flags.concurrency, 100);
if (flags.redis === undefined) fail("--redis is required: the Redis the processes share, e.g. --redis redis://127.0.0.1:6380");
if (!["fleet", "process"].includes(flags.scope)) fail(`--scope is fleet or process, not '${flags.scope}'`);
const outage = flags.outage === undefined ? undefined : /^(\d+)-(\d+)$/.exec(flags.outage)?.slice(1).map(Number);
if (outage !== undefined && !(outage.length === 2 && outage[0] >= 1 && outage[0] <= outage[1])) fail(`--outage takes FROM-TO, the seconds the API answers 503 (e.g. 2-4), not '${flags.outage}'`);

// The project as the playbook says it (scope: fleet), or with every policy's scope: process, to compare.
const { loadProject } = await import(new URL("../../dist/index.js", import.meta.url).href);
const { project } = loadProject({ config: new URL("failbook.yaml", import.meta.url).pathname });
const registry = project.registry.value;
const playbook = structuredClone(project.playbook.value);
for (const policy of [...Object.values(playbook.rate_limits ?? {}), ...Object.values(playbook.circuit_breakers ?? {})]) policy.scope = flags.scope;
const { limit, burst = limit.requests } = playbook.rate_limits.geo;
// docs/fleet.md: in any window of per_ms, one bucket's burst + requests, plus the leases out and
// what the fleet takes beyond them before the next sync charges it, plus one token a process.
const bound = Math.floor(burst + limit.requests + (3 * limit.requests * playbook.fleet.sync_ms) / limit.per_ms + processes);

// The geocoding API: counts every request that reaches it, each second from the start.
let start = 0;
const times = [];
const windows = [];
const api = createServer((req, res) => {
  const now = Date.now();
  times.push(now);
  const index = Math.floor((now - start) / API_LIMIT.per_ms);
  const w = (windows[index] ??= { sent: 0, ok: 0, throttled: 0, unavailable: 0 });
  w.sent++;
  if (outage !== undefined && index + 1 >= outage[0] && index + 1 <= outage[1]) {
    w.unavailable++;
    res.writeHead(503, { "content-type": "application/json" }).end('{"error":"unavailable"}');
    return;
  }
  if (w.ok >= API_LIMIT.requests) {
    w.throttled++;
    const retryAfter = Math.ceil((start + (index + 1) * API_LIMIT.per_ms - now) / 1000);
    res.writeHead(429, { "retry-after": String(retryAfter), "content-type": "application/json" }).end('{"error":"rate limit exceeded"}');
    return;
  }
  w.ok++;
  setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end('{"lat":52.52,"lon":13.405}'), 2);
});
await new Promise((resolve) => api.listen(0, "127.0.0.1", resolve));

const events = [];
const children = Array.from({ length: processes }, (_, i) => {
  const child = fork(new URL("service.mjs", import.meta.url), { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const instance = `geocoder-${i + 1}`;
  const ready = new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${instance} exited with ${code} before it was ready`)));
    child.on("message", (m) => m === "ready" && resolve());
  });
  const summary = new Promise((resolve) => child.on("message", (m) => m?.outcomes !== undefined && resolve(m.outcomes)));
  child.on("message", (m) => m?.event !== undefined && events.push({ instance, ...m.event }));
  child.send({ registry, playbook, redisUrl: flags.redis, prefix: flags.prefix, instance, apiPort: api.address().port, concurrency });
  return { child, ready, summary };
});
try {
  await Promise.race([Promise.all(children.map((c) => c.ready)), new Promise((_, reject) => setTimeout(() => reject(new Error("the processes did not sync with the store within 10 s")), 10_000).unref())]);
} catch (e) {
  for (const c of children) c.child.kill();
  api.close();
  fail(`${e.message} (is Redis answering at ${flags.redis}?)`);
}

start = Date.now();
for (const c of children) c.child.send("go");
await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
for (const c of children) c.child.send("stop");
const outcomes = {};
for (const summary of await Promise.all(children.map((c) => c.summary))) for (const [k, n] of Object.entries(summary)) outcomes[k] = (outcomes[k] ?? 0) + n;
api.close();

const full = Array.from({ length: seconds }, (_, i) => windows[i] ?? { sent: 0, ok: 0, throttled: 0, unavailable: 0 });
const result = { processes, scope: flags.scope, seconds, api_limit: API_LIMIT.requests, bound, busiest: busiestWindow(times, API_LIMIT.per_ms), windows: full, outcomes, events };
if (flags.json) process.stdout.write(JSON.stringify(result) + "\n");
else process.stdout.write(report(result));

function report(r) {
  const lines = [
    `${r.processes} processes, scope: ${r.scope}, ${r.seconds} s; rate limit geo ${limit.requests} a second (burst ${burst}); the API allows ${r.api_limit} a second`,
    "second  sent   ok  429  503",
    ...r.windows.map((w, i) => `${String(i + 1).padStart(6)}  ${[w.sent, w.ok, w.throttled, w.unavailable].map((n) => String(n).padStart(4)).join(" ")}`),
    `busiest second (any ${API_LIMIT.per_ms} ms): ${r.busiest} requests; the API's limit ${r.api_limit}, the fleet's stated bound ${r.bound} (docs/fleet.md)`,
    `calls: ${Object.entries(r.outcomes).sort().map(([k, n]) => `${n} ${k}`).join(", ")}`,
  ];
  for (const e of r.events) lines.push(`${e.instance}: ${e.type}`);
  return lines.join("\n") + "\n";
}

/** The most requests in any window of `ms`. */
function busiestWindow(sorted, ms) {
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[j] >= ms) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

function count(flag, text, max) {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > max) fail(`${flag} takes a whole number from 1 to ${max}, not '${text}'`);
  return n;
}

function fail(message) {
  process.stderr.write(`run.mjs: ${message}\n`);
  process.exit(2);
}
