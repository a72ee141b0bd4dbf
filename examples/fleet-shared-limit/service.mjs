// One process of the geocoding service (README.md): a dispatcher of the built failbook-runtime
// whose scope: fleet policies sync through Redis with node-redis, calling the geocoding API.
// run.mjs forks eight of these and sends each its settings over IPC; a process answers
// "ready" after its first sync with the fleet, calls the API from "go" to "stop", and sends
// back what its calls came to.
import { Agent, request } from "node:http";
import { createClient } from "redis";

const runtime = new URL("../../packages/runtime/dist/", import.meta.url);
const { createDispatcher } = await import(new URL("index.js", runtime).href);
const { redisFleetStore } = await import(new URL("redis.js", runtime).href);

const settings = await new Promise((resolve) => process.once("message", resolve));
const { registry, playbook, redisUrl, prefix, instance, apiPort, concurrency } = settings;

const redis = createClient({ url: redisUrl, socket: { reconnectStrategy: () => 100 } });
redis.on("error", () => {}); // the dispatcher reports an outage of the store itself (fleet_store_unavailable)
await redis.connect();

const dispatcher = createDispatcher({
  registry,
  playbook,
  fleet: { store: redisFleetStore(redis, { prefix }), instance },
  onEvent: (e) => e.type.startsWith("fleet_") && process.send({ event: e }),
});
// With scope: fleet the process waits for its first sync, so it starts with the fleet's state.
while (dispatcher.fleet !== undefined && dispatcher.fleet.syncs === 0) await new Promise((r) => setTimeout(r, 5));

const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
/** One attempt: GET /geocode on the API; a 429's retry-after goes to the verdict with the error. */
const geocode = (call) =>
  new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port: apiPort, path: `/geocode?q=${encodeURIComponent(call.args.address)}`, agent }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () =>
        resolve(res.statusCode === 200 ? { status: "ok", value: JSON.parse(body) } : { status: "error", error: { kind: "http_error", http_status: res.statusCode, headers: res.headers } }),
      );
    });
    req.on("error", (e) => resolve({ status: "error", error: { kind: "timeout", message: e.message } }));
    req.end();
  });

const outcomes = {};
let running = false;
let calls = 0;
async function caller() {
  while (running) {
    const { outcome } = await dispatcher.dispatch({ id: `${instance}-${calls}`, tool: "geo.lookup", args: { address: `${calls++} Main St` } }, geocode);
    const key = outcome.verdict === null || outcome.kind === "succeeded" ? outcome.kind : `${outcome.kind} ${outcome.verdict}`;
    outcomes[key] = (outcomes[key] ?? 0) + 1;
    // A call the open breaker refused ended at once, without I/O: this caller's user waits a
    // little before asking again (and the fleet's sync, a timer, runs meanwhile).
    if (outcome.verdict === "geo_circuit_open") await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

let callers = [];
process.on("message", async (message) => {
  if (message === "go") {
    running = true;
    callers = Array.from({ length: concurrency }, caller);
  } else if (message === "stop") {
    running = false;
    await Promise.all(callers);
    await dispatcher.close(); // a last sync takes this process out of the fleet's totals
    agent.destroy();
    await redis.quit();
    process.send({ outcomes }, () => process.disconnect());
  }
});
process.send("ready");
