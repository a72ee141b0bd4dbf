import { registry, ruleTester, yaml } from "../helpers/rule-tester.js";

ruleTester("docs-missing", {
  valid: [{ name: "summary and recovery on every verdict" }],
  invalid: [
    {
      name: "neither, at the verdict",
      registry: registry(yaml`
        - code: slow
          class: transient
          retryable: true
      `),
      findings: [{ message: "verdict 'slow' has no summary and no recovery; add summary: (one line: what happened) and recovery: (what to do about it)", line: 12, column: 5 }],
    },
    {
      name: "no recovery",
      registry: registry("- { code: slow, class: transient, retryable: true, summary: Slow. }"),
      findings: [{ message: "verdict 'slow' has no recovery; add recovery:", line: 12, column: 5 }],
    },
    {
      name: "a blank summary, at the summary",
      registry: registry(yaml`
        - code: slow
          class: transient
          retryable: true
          summary: "  "
          recovery: Wait.
      `),
      findings: [{ message: "verdict 'slow' has no summary; add summary:", line: 15, column: 14 }],
    },
  ],
});
