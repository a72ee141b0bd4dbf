import { registry, ruleTester, yaml } from "../helpers/rule-tester.js";

const deprecated = (replacedBy: string, more = "") =>
  registry(
    yaml`
      - code: old_timeout
        class: transient
        retryable: true
        status: deprecated
    ` +
      (replacedBy ? `  replaced_by: ${replacedBy}\n` : "") +
      more,
  );

ruleTester("deprecated-replacement", {
  valid: [
    { name: "replaced by an active verdict", registry: deprecated("unknown_error") },
    { name: "replaced_by on an active verdict is not this rule's business", registry: registry("- { code: a, class: transient, retryable: true, replaced_by: nowhere }") },
  ],
  invalid: [
    {
      name: "no replaced_by, at the status",
      registry: deprecated(""),
      findings: [{ message: "deprecated verdict 'old_timeout' names no replacement; add replaced_by:", line: 15, column: 13 }],
    },
    {
      name: "a replacement that does not exist, with a suggestion",
      registry: deprecated("unknown_eror"),
      findings: [{ message: "replaced_by 'unknown_eror' of 'old_timeout' names no verdict; point it at an active verdict (did you mean 'unknown_error'?)", line: 16, column: 18 }],
    },
    {
      name: "itself",
      registry: deprecated("old_timeout"),
      findings: [{ message: "replaced_by 'old_timeout' of 'old_timeout' is deprecated, not active; point it at an active verdict", line: 16, column: 18, related: [{ line: 15, column: 13 }] }],
    },
    {
      name: "a chain through another deprecated verdict names its active end",
      registry: deprecated("older_timeout", "- { code: older_timeout, class: transient, retryable: true, status: deprecated, replaced_by: unknown_error }\n"),
      findings: [{ message: "replaced_by 'older_timeout' of 'old_timeout' is deprecated, not active; point it at 'unknown_error', the active end of the chain", line: 16, column: 18, related: [{ line: 17, column: 71 }] }],
    },
    {
      name: "a reserved replacement",
      registry: deprecated("later", "- { code: later, class: transient, retryable: true, status: reserved }\n"),
      findings: [{ message: "replaced_by 'later' of 'old_timeout' is reserved, not active", line: 16, column: 18 }],
    },
  ],
});
