import { BASE_REGISTRY, registry, ruleTester, yaml } from "../helpers/rule-tester.js";

const withFallback = (code: string, verdict = "") => registry(verdict).replace("fallback: unknown_error", `fallback: ${code}`);

ruleTester("fallback-undefined", {
  valid: [{ name: "an active fallback" }, { name: "explicitly active", registry: BASE_REGISTRY.replace("class: unknown, retryable: false,", "class: unknown, retryable: false, status: active,") }],
  invalid: [
    {
      name: "a misspelt fallback, with a suggestion",
      registry: withFallback("unknown_eror"),
      findings: [{ message: "fallback 'unknown_eror' names no verdict; every error no rule recognises classifies as the fallback, so point it at an active verdict (usually one of class unknown that escalates) (did you mean 'unknown_error'?)", line: 12, column: 11 }],
    },
    {
      name: "an empty fallback",
      registry: withFallback("''"),
      findings: [{ message: "fallback '' names no verdict", line: 12, column: 11 }],
    },
    {
      name: "a deprecated fallback, noting its status",
      registry: withFallback("old_unknown", yaml`
        - code: old_unknown
          class: unknown
          retryable: false
          status: deprecated
          replaced_by: unknown_error
      `),
      findings: [{ message: "fallback 'old_unknown' is deprecated, but unrecognised errors classify as it; point fallback at an active verdict, or make 'old_unknown' active", line: 17, column: 11, related: [{ line: 15, column: 13 }] }],
    },
    {
      name: "a reserved fallback",
      registry: withFallback("later", "- { code: later, class: unknown, retryable: false, status: reserved }"),
      findings: [{ message: "fallback 'later' is reserved", line: 13, column: 11 }],
    },
  ],
});
