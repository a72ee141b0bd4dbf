// The storm bench (SPEC 19): 1,000 clients for 10 minutes of virtual time, about a million
// calls, against an upstream with log-normal latency and 1 % errors, under the example's
// fixed playbook (backoff with full jitter, a retry quota per client).
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const STORM_CALLS = 1_000_000;

export function writeStormProject(root) {
  const dir = join(root, ".bench/storm");
  mkdirSync(join(dir, "storms"), { recursive: true });
  for (const file of ["registry.yaml", "playbook.yaml"]) cpSync(join(root, "examples/storm-retry-collapse", file), join(dir, file));
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
  count: 1000
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
