import { BASE_PLAYBOOK, playbook, ruleTester } from "../helpers/rule-tester.js";

const unknownAction = (action: string) => BASE_PLAYBOOK.replace("unknown_error: { action: escalate_to_human, queue: oncall }", `unknown_error: ${action}`);

ruleTester("fallback-retried", {
  valid: [
    { name: "the fallback escalates" },
    { name: "the fallback fails", playbook: unknownAction("{ action: fail }") },
    { name: "other verdicts may retry", playbook: playbook("transient_timeout: { action: retry_with_backoff, max_retries: 1, backoff_ms: [1] }") },
    { name: "a fallback with no action is another rule's business", playbook: BASE_PLAYBOOK.replace("  unknown_error: { action: escalate_to_human, queue: oncall }\n", "") },
  ],
  invalid: [
    {
      name: "the fallback retried with backoff, noting the registry's fallback",
      playbook: unknownAction("{ action: retry_with_backoff, max_retries: 1, backoff_ms: [100] }"),
      findings: [{ message: "'unknown_error' is the fallback for errors no rule recognises, and its action retry_with_backoff repeats them blindly", file: "playbook.yaml", line: 5, column: 28, related: [{ line: 19, column: 11 }] }],
    },
    {
      name: "the fallback retried with a hint",
      playbook: unknownAction("{ action: retry_with_hint, hint: try again, max_retries: 1, backoff_ms: [100] }"),
      findings: [{ message: "its action retry_with_hint repeats them blindly", file: "playbook.yaml", line: 5, column: 28 }],
    },
  ],
});
