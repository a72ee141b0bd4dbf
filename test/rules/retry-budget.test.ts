import { playbook, registry, ruleTester, yaml } from "../helpers/rule-tester.js";

const budgets = (b: string) => `budgets: { ${b} }\n`;

ruleTester("retry-budget", {
  valid: [
    { name: "no budgets" },
    { name: "a schedule inside the budgets", playbook: playbook("transient_timeout: { action: retry_with_backoff, max_retries: 2, backoff_ms: [100, 200] }", budgets("retry_seconds: 1, wall_ms: 300")) },
    {
      name: "budgets.retries cuts the schedule before it gets long",
      playbook: playbook("transient_timeout: { action: retry_with_backoff, max_retries: 3, backoff_ms: [500, 1000, 9000] }", budgets("retries: 2, retry_seconds: 2")),
    },
    {
      name: "a non-retryable verdict never waits",
      playbook: playbook("unknown_error: { action: retry_with_backoff, max_retries: 2, backoff_ms: [60000, 60000] }", budgets("retry_seconds: 1")).replace("  unknown_error: { action: escalate_to_human, queue: oncall }\n", ""),
    },
  ],
  invalid: [
    {
      name: "a list past retry_seconds, with the numbers",
      playbook: playbook(
        yaml`
          transient_timeout:
            action: retry_with_backoff
            max_retries: 3
            backoff_ms: [1000, 2000, 4000]
        `,
        budgets("retry_seconds: 5"),
      ),
      findings: [
        {
          message: "worst-case backoff for 'transient_timeout' is 7000 ms (3 retries: 1000 + 2000 + 4000 ms, jitter at its maximum), more than budgets.retry_seconds (5 s), so the budget ends the dispatch before the schedule does; lower max_retries or the delays, or raise budgets.retry_seconds",
          file: "playbook.yaml",
          line: 9,
          column: 17,
          related: [{ file: "playbook.yaml", line: 10, column: 27 }],
        },
      ],
    },
    {
      name: "a formula with full jitter counts at its maximum, past both budgets",
      playbook: playbook(
        yaml`
          transient_timeout:
            action: retry_with_backoff
            max_retries: 3
            backoff: { strategy: exponential, base_ms: 1000, factor: 2, jitter: full }
        `,
        budgets("retry_seconds: 6, wall_ms: 5000"),
      ),
      findings: [
        {
          message: "is 7000 ms (3 retries: 1000 + 2000 + 4000 ms, jitter at its maximum), more than budgets.retry_seconds (6 s) and budgets.wall_ms (5000 ms)",
          file: "playbook.yaml",
          line: 9,
          column: 14,
          related: [
            { file: "playbook.yaml", line: 10, column: 27 },
            { file: "playbook.yaml", line: 10, column: 39 },
          ],
        },
      ],
    },
    {
      name: "a long schedule is abbreviated",
      registry: registry("- { code: flaky, class: unknown, retryable: true, summary: s, recovery: r, match: [{ kind: flaky }] }"),
      playbook: playbook("flaky: { action: retry_with_backoff, max_retries: 8, backoff: { strategy: constant, base_ms: 100 } }", budgets("wall_ms: 250")),
      findings: [{ message: "is 800 ms (8 retries: 100 + 100 + 100 + 100 + 100 + … (3 more) ms, jitter at its maximum), more than budgets.wall_ms (250 ms)", file: "playbook.yaml", line: 6, column: 65 }],
    },
  ],
});
