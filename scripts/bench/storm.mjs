// The storm bench (SPEC 19): 1,000 clients for 10 minutes of virtual time, about a million
// calls, against an upstream with log-normal latency and 1 % errors, under the example's
// fixed playbook (backoff with full jitter, a retry quota per client). With `store: true`
// (SPEC 23) the quota is the fleet's, scope: fleet, and each client syncs it through the
// simulated fleet store every 250 ms (clients.shared: store): 2.4 million syncs besides.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const STORM_CALLS = 1_000_000;

export function writeStormProject(root, { store = false } = {}) {
  const dir = join(root, store ? ".bench/storm-store" : ".bench/storm");
  mkdirSync(join(dir, "storms"), { recursive: true });
  for (const file of ["registry.yaml", "playbook.yaml"]) cpSync(join(root, "examples/storm-retry-collapse", file), join(dir, file));
  if (store) {
    const playbook = readFileSync(join(dir, "playbook.yaml"), "utf8");
    writeFileSync(join(dir, "playbook.yaml"), playbook.replace("retry_quota:\n", "fleet: { sync_ms: 250, lease_ms: 1000 }\nretry_quota:\n  scope: fleet\n"));
  }
  writeFileSync(join(dir, "failbook.yaml"), "registry: registry.yaml\nplaybook: playbook.yaml\nstorms: storms/\n");
  writeFileSync(
    join(dir, "storms/million.yaml"),
    `apiVersion: failbook/v1
kind: Storm
name: million-calls
seed: 1
duration_ms: 600000
step_ms: 1000
clients:
  count: 1000${store ? "\n  shared: store\n  store: { latency_ms: 2 }" : ""}
  arrival: { rate_per_s: ${(STORM_CALLS / 600).toFixed(3)} }
  calls:
    - { tool: inventory.reserve }
upstream:
  latency_ms: { median: 40, p99: 400 }
  errors:
    - { ratio: 0.01, error: { kind: http, http_status: 503 } }
`,
  );
  return dir;
}
