import { playbook, registry, ruleTester, yaml } from "../helpers/rule-tester.js";

ruleTester("class-unknown", {
  valid: [
    { name: "declared classes" },
    { name: "a throttle on a declared class", playbook: playbook("", yaml`
      throttle: { class: transient, min_failures: 2, factor: 0.5 }
    `) },
  ],
  invalid: [
    {
      name: "a misspelt class, with a suggestion",
      registry: registry(yaml`
        - code: slow
          class: transiant
          retryable: true
      `),
      findings: [{ message: "class 'transiant' of verdict 'slow' is not declared; declare it under classes: in registry.yaml, or use one of: transient, permanent, policy, unknown (did you mean 'transient'?)", line: 13, column: 12 }],
    },
    {
      name: "a class nothing resembles",
      registry: registry(yaml`- { code: slow, class: weather, retryable: true }`),
      findings: [{ message: /class 'weather' of verdict 'slow' is not declared; .*use one of: transient, permanent, policy, unknown$/, line: 12, column: 26 }],
    },
    {
      name: "the playbook's throttle class",
      playbook: playbook("", yaml`
        throttle: { class: transiant, min_failures: 2, factor: 0.5 }
      `),
      findings: [{ message: "throttle class 'transiant' is not declared in the registry", file: "playbook.yaml", line: 6, column: 20 }],
    },
  ],
});
