import { playbook, ruleTester } from "../helpers/rule-tester.js";

const jitter = (value: string) => playbook(`transient_timeout: { action: retry_with_backoff, max_retries: 2, backoff: { strategy: exponential, base_ms: 100, jitter: ${value} } }`);

ruleTester("jitter-range-inverted", {
  valid: [
    { name: "gRPC's 0.8 to 1.2", playbook: jitter("{ min: 0.8, max: 1.2 }") },
    { name: "a range of one value", playbook: jitter("{ min: 1, max: 1, integer: true }") },
    { name: "a named jitter", playbook: jitter("full") },
  ],
  invalid: [
    {
      name: "min above max",
      playbook: jitter("{ min: 1.2, max: 0.8 }"),
      findings: [{ message: "the jitter of 'transient_timeout' multiplies the delay by a draw from min 1.2 to max 0.8, but min is above max; swap them", file: "playbook.yaml", line: 6, column: 131 }],
    },
  ],
});
