import { playbook, ruleTester } from "../helpers/rule-tester.js";

const base = playbook(`transient_timeout: { action: retry_with_backoff, max_retries: 2, backoff_ms: [100, 200] }`) + "retry_budget: { scope: fleet }\n";

ruleTester("fleet-sync-too-slow", {
  valid: [
    { name: "the defaults", playbook: base + "fleet: {}\n" },
    { name: "a lease of twice the sync", playbook: base + "fleet: { sync_ms: 500, lease_ms: 1000 }\n" },
    { name: "a fleet rate limit over 4 × sync_ms", playbook: base + "fleet: { sync_ms: 250 }\nrate_limits:\n  gh: { tools: \"gh.*\", limit: { requests: 10, per_ms: 1000 }, scope: fleet }\n" },
    { name: "a fleet breaker whose window is 4 × sync_ms", playbook: base + "fleet: { sync_ms: 250 }\ncircuit_breakers:\n  up: { tools: \"gh.*\", sampling_ms: 1000, scope: fleet }\n" },
    { name: "a process breaker with a short window", playbook: base + "fleet: { sync_ms: 250 }\ncircuit_breakers:\n  up: { tools: \"gh.*\", sampling_ms: 100 }\n" },
    { name: "a process rate limit under it", playbook: base + "fleet: { sync_ms: 250 }\nrate_limits:\n  gh: { tools: \"gh.*\", limit: { requests: 1, per_ms: 100 } }\n" },
  ],
  invalid: [
    {
      name: "a lease under twice the sync",
      playbook: base + "fleet: { sync_ms: 400, lease_ms: 500 }\n",
      findings: [{ message: "fleet lease_ms 500 is under twice sync_ms 400: one sync that answers late (its timeout is sync_ms) counts the store down; make lease_ms at least 800 or sync more often", file: "playbook.yaml", line: 8, column: 34 }],
    },
    {
      name: "the default lease and a slow sync",
      playbook: base + "fleet: { sync_ms: 600 }\n",
      findings: [{ message: "fleet lease_ms 1000 is under twice sync_ms 600: one sync that answers late (its timeout is sync_ms) counts the store down; make lease_ms at least 1200 or sync more often", file: "playbook.yaml", line: 8, column: 19 }],
    },
    {
      name: "a fleet rate limit whose per_ms is under 4 × sync_ms",
      playbook: base + "fleet: { sync_ms: 250 }\nrate_limits:\n  gh: { tools: \"gh.*\", limit: { requests: 1, per_ms: 500 }, scope: fleet }\n",
      findings: [{ message: "rate limit gh has scope: fleet and per_ms 500, under 4 × fleet sync_ms 250: its leases would follow the window a quarter of it late; make per_ms at least 1000 (the same rate over a longer window) or sync more often", file: "playbook.yaml", line: 10, column: 54 }],
    },
    {
      name: "a fleet breaker whose sampling_ms is under 4 × sync_ms",
      playbook: base + "fleet: { sync_ms: 250 }\ncircuit_breakers:\n  up: { tools: \"gh.*\", sampling_ms: 900, scope: fleet }\n",
      findings: [{ message: "circuit breaker up has scope: fleet and sampling_ms 900, under 4 × fleet sync_ms 250: the fleet's summed window would be mostly other processes' counts a sync old; make sampling_ms at least 1000 or sync more often", file: "playbook.yaml", line: 10, column: 37 }],
    },
  ],
});
