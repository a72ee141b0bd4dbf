import { playbook, ruleTester } from "../helpers/rule-tester.js";

const base = playbook(`transient_timeout: { action: retry_with_backoff, max_retries: 2, backoff_ms: [100, 200] }`);

ruleTester("fleet-without-sync", {
  valid: [
    { name: "a fleet budget with a fleet: block", playbook: base + "retry_budget: { percent: 20, scope: fleet }\nfleet: { sync_ms: 250, lease_ms: 1000 }\n" },
    { name: "a process budget without one", playbook: base + "retry_budget: { percent: 20, scope: process }\n" },
    { name: "a budget of no scope", playbook: base + "retry_budget: { percent: 20 }\n" },
    { name: "fleet throttling and quota with a fleet: block", playbook: base + "retry_throttling: { max_tokens: 10, token_ratio: 0.1, scope: fleet }\nretry_quota: { capacity: 100, scope: fleet }\nfleet: {}\n" },
  ],
  invalid: [
    {
      name: "a fleet budget and no fleet: block",
      playbook: base + "retry_budget: { percent: 20, scope: fleet }\n",
      findings: [{ message: "retry_budget has scope: fleet but the playbook has no fleet: block to say how its processes sync; add fleet: { sync_ms: 250, lease_ms: 1000 } or set scope: process", file: "playbook.yaml", line: 7, column: 37 }],
    },
    {
      name: "fleet throttling and a fleet quota and no fleet: block",
      playbook: base + "retry_throttling: { max_tokens: 10, token_ratio: 0.1, scope: fleet }\nretry_quota: { capacity: 100, scope: fleet }\nrate_limits:\n  gh: { tools: \"gh.*\", limit: { requests: 10, per_ms: 1000 }, scope: fleet }\n",
      findings: [
        { message: "retry_throttling has scope: fleet but the playbook has no fleet: block to say how its processes sync; add fleet: { sync_ms: 250, lease_ms: 1000 } or set scope: process", file: "playbook.yaml", line: 7, column: 62 },
        { message: "retry_quota has scope: fleet but the playbook has no fleet: block to say how its processes sync; add fleet: { sync_ms: 250, lease_ms: 1000 } or set scope: process", file: "playbook.yaml", line: 8, column: 38 },
        { message: "rate limit gh has scope: fleet but the playbook has no fleet: block to say how its processes sync; add fleet: { sync_ms: 250, lease_ms: 1000 } or set scope: process", file: "playbook.yaml", line: 10, column: 70 },
      ],
    },
    {
      name: "a fleet breaker and no fleet: block",
      playbook: base + "circuit_breakers:\n  up: { tools: \"gh.*\", scope: fleet, quorum: 0.5 }\n",
      findings: [{ message: "circuit breaker up has scope: fleet but the playbook has no fleet: block to say how its processes sync; add fleet: { sync_ms: 250, lease_ms: 1000 } or set scope: process", file: "playbook.yaml", line: 8, column: 31 }],
    },
  ],
});
