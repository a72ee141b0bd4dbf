import { playbook, ruleTester, yaml } from "../helpers/rule-tester.js";

const timeout = (action: string) => playbook(`transient_timeout: ${action}`);

ruleTester("backoff-schedule-short", {
  valid: [
    { name: "one delay per retry" },
    { name: "a longer list", playbook: timeout("{ action: retry_with_backoff, max_retries: 1, backoff_ms: [100, 200] }") },
    { name: "a formula has no length", playbook: timeout("{ action: retry_with_backoff, max_retries: 3, backoff: { strategy: constant, base_ms: 100 } }") },
  ],
  invalid: [
    {
      name: "two delays for three retries",
      playbook: timeout("{ action: retry_with_backoff, max_retries: 3, backoff_ms: [100, 200] }"),
      findings: [{ message: "backoff_ms for 'transient_timeout' lists 2 delays but max_retries is 3, so the last delay would silently repeat; add 1 more delay, or lower max_retries to 2", file: "playbook.yaml", line: 6, column: 80 }],
    },
    {
      name: "an empty list, block style",
      playbook: playbook(yaml`
        transient_timeout:
          action: retry_with_hint
          hint: smaller page
          max_retries: 1
          backoff_ms: []
      `),
      findings: [{ message: "lists 0 delays but max_retries is 1", file: "playbook.yaml", line: 10, column: 17 }],
    },
  ],
});
