// One process of a fleet (SPEC 23's tests): a dispatcher on the built failbook-runtime whose
// scope: fleet policies sync through a real Redis, dispatching calls to a loopback HTTP
// upstream. Settings come as JSON in argv[2] (`record`: the prefixes of the event types it
// keeps, default fleet_); it prints "ready" after its first sync, starts
// on "go" (stdin), and prints one JSON summary line at the end.
import { request } from "node:http";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

const o = JSON.parse(process.argv[2]);
const runtime = await import(new URL("../../packages/runtime/dist/index.js", import.meta.url).href);
const { redisFleetStore } = await import(new URL("../../packages/runtime/dist/redis.js", import.meta.url).href);
const { registry, playbook } = JSON.parse(readFileSync(o.project, "utf8"));

let client;
if (o.client === "ioredis") {
  const { Redis } = await import("ioredis");
  client = new Redis({ port: o.redisPort, host: "127.0.0.1", lazyConnect: false, maxRetriesPerRequest: 1, retryStrategy: () => 50 });
} else {
  const { createClient } = await import("redis");
  client = createClient({ socket: { port: o.redisPort, host: "127.0.0.1", reconnectStrategy: () => 50 } });
  await client.connect();
}
client.on("error", () => {}); // the fleet reports outages itself

const events = [];
const dispatcher = runtime.createDispatcher({
  registry,
  playbook,
  fleet: { store: redisFleetStore(client, { prefix: o.prefix }), instance: o.instance },
  onEvent: (e) => (o.record ?? ["fleet_"]).some((prefix) => e.type.startsWith(prefix)) && events.push({ type: e.type, at: Date.now() }),
});
while (o.waitSync !== false && dispatcher.fleet !== undefined && dispatcher.fleet.syncs === 0) await new Promise((r) => setTimeout(r, 5));
process.stdout.write("ready\n");
const lines = createInterface({ input: process.stdin });
await new Promise((resolve) => lines.once("line", resolve));
lines.close();
process.stdin.destroy(); // the process must then exit on its own: the sync's timer is unreferenced

const agent = new (await import("node:http")).Agent({ keepAlive: true, maxSockets: 1000 });
const attempt = (call, n) =>
  new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port: o.upstreamPort, path: "/", agent, headers: { "x-attempt": String(n) } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode === 200 ? { status: "ok", value: {} } : { status: "error", error: { kind: "http", http_status: res.statusCode } }));
    });
    req.on("error", (e) => resolve({ status: "error", error: { kind: "timeout", message: e.message } }));
    req.end();
  });

const end = Date.now() + o.durationMs;
let calls = 0;
let maxMs = 0;
async function loop() {
  while (Date.now() < end) {
    const start = performance.now();
    await dispatcher.dispatch({ id: `c${calls}`, tool: "up.get", args: {} }, attempt);
    maxMs = Math.max(maxMs, performance.now() - start);
    calls++;
    if (o.gapMs > 0) await new Promise((r) => setTimeout(r, o.gapMs));
  }
}
await Promise.all(Array.from({ length: o.concurrency }, loop));
const status = { syncs: dispatcher.fleet?.syncs, failures: dispatcher.fleet?.failures, mode: dispatcher.fleet?.mode };
await dispatcher.close();
agent.destroy();
if (o.client === "ioredis") client.disconnect();
else client.destroy();
process.stdout.write(JSON.stringify({ calls, maxMs, events, status }) + "\n");
