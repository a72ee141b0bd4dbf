import { playbook, ruleTester } from "../helpers/rule-tester.js";

const timeout = (retries: number) => playbook(`transient_timeout: { action: retry_with_backoff, max_retries: ${retries}, backoff_ms: [1, 2, 3, 4] }`);

ruleTester("class-retry-ceiling", {
  valid: [
    { name: "at the class's ceiling", playbook: timeout(3) },
    { name: "below it", playbook: timeout(1) },
  ],
  invalid: [
    {
      name: "above the class's max_retries, noting the class",
      playbook: timeout(4),
      findings: [
        {
          message: "max_retries 4 for 'transient_timeout' is above the ceiling of its class 'transient' (max_retries 3), so the runtime stops at 3; lower it to 3",
          file: "playbook.yaml",
          line: 6,
          column: 65,
          related: [{ line: 6, column: 60 }],
        },
      ],
    },
  ],
});
