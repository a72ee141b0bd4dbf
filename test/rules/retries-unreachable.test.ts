import { playbook, ruleTester, yaml } from "../helpers/rule-tester.js";

const budgets = (b: string) => `budgets: { ${b} }\n`;
/** The base verdict's action (`max_retries` on line 8 of playbook.yaml), with `budgets` on line 10. */
const retries = (max: number, backoff: string, b: string) =>
  playbook(
    yaml`
      transient_timeout:
        action: retry_with_backoff
        max_retries: ${max}
        ${backoff}
    `,
    budgets(b),
  );

ruleTester("retries-unreachable", {
  valid: [
    { name: "no budgets" },
    { name: "a ceiling above max_retries: the last retry's failure exhausts first", playbook: retries(3, "backoff_ms: [100, 200, 400]", "same_verdict_ceiling: 4") },
    { name: "budgets.retries at max_retries", playbook: retries(3, "backoff_ms: [100, 200, 400]", "retries: 3") },
    { name: "a time budget the shortest backoff fits (full jitter can be 0 ms)", playbook: retries(3, "backoff: { strategy: exponential, base_ms: 1000, jitter: full }", "wall_ms: 100") },
    { name: "a time budget the whole schedule fits", playbook: retries(3, "backoff_ms: [100, 200, 400]", "retry_seconds: 1, wall_ms: 700") },
    {
      name: "a ceiling that cuts a verdict that is not retryable (retry-not-retryable says so)",
      playbook: playbook("unknown_error: { action: retry_with_backoff, max_retries: 3, backoff_ms: [1, 2, 3] }", budgets("same_verdict_ceiling: 2")).replace("  unknown_error: { action: escalate_to_human, queue: oncall }\n", ""),
    },
    { name: "the class's ceiling is what counts: transient allows 3, a ceiling of 4 lets all 3 happen", playbook: retries(5, "backoff_ms: [1, 2, 3, 4, 5]", "same_verdict_ceiling: 4") },
  ],
  invalid: [
    {
      name: "same_verdict_ceiling 3 turns the third failure into an escalation where max_retries 3 promised exhausted",
      playbook: retries(3, "backoff_ms: [100, 200, 400]", "same_verdict_ceiling: 3").replace("name: test\n", "name: test\nescalation_queue: oncall\n"),
      findings: [
        {
          message:
            "max_retries 3 for 'transient_timeout' cannot be reached: budgets.same_verdict_ceiling (3) ends the dispatch after 2 retries (the verdict's failure 3 escalates), escalated to 'oncall', not exhausted after 3 as max_retries says; lower max_retries to 2, or raise budgets.same_verdict_ceiling",
          file: "playbook.yaml",
          line: 9,
          column: 18,
          related: [{ file: "playbook.yaml", line: 11, column: 34 }],
        },
      ],
    },
    {
      name: "budgets.retries below max_retries ends it exhausted by the budget",
      playbook: retries(3, "backoff_ms: [100, 200, 400]", "retries: 1"),
      findings: [{ message: "budgets.retries (1) ends the dispatch after 1 retry (the dispatch's retries, of any verdict, run out), exhausted (budget_retries), not exhausted after 3", file: "playbook.yaml", line: 8, column: 18, related: [{ file: "playbook.yaml", line: 10, column: 21 }] }],
    },
    {
      name: "a ceiling and a retry count that agree: the ceiling, checked at the failure, ends it first",
      playbook: retries(3, "backoff_ms: [100, 200, 400]", "retries: 1, same_verdict_ceiling: 2"),
      findings: [{ message: "budgets.same_verdict_ceiling (2) ends the dispatch after 1 retry (the verdict's failure 2 escalates), escalated to 'default'", file: "playbook.yaml", line: 8, column: 18, related: [{ file: "playbook.yaml", line: 10, column: 46 }] }],
    },
    {
      name: "wall_ms against the shortest backoff: the third retry can never start",
      playbook: retries(3, "backoff_ms: [1000, 2000, 4000]", "wall_ms: 5000"),
      findings: [
        {
          message: "budgets.wall_ms (5000 ms) ends the dispatch after 2 retries (even the shortest backoff before retry 3 totals 7000 ms), exhausted (budget_wall), not exhausted after 3 as max_retries says; lower max_retries to 2, or raise budgets.wall_ms",
          file: "playbook.yaml",
          line: 8,
          column: 18,
          related: [{ file: "playbook.yaml", line: 10, column: 21 }],
        },
      ],
    },
    {
      name: "retry_seconds against a jittered formula at its least",
      playbook: retries(3, "backoff: { strategy: exponential, base_ms: 1000, factor: 2, jitter: { min: 0.5, max: 1 } }", "retry_seconds: 1"),
      findings: [{ message: "budgets.retry_seconds (1 s) ends the dispatch after 1 retry (even the shortest backoff before retry 2 totals 1500 ms)", file: "playbook.yaml", line: 8, column: 18, related: [{ file: "playbook.yaml", line: 10, column: 27 }] }],
    },
  ],
});
