import { BASE_PLAYBOOK, ruleTester } from "../helpers/rule-tester.js";

ruleTester("playbook-unknown-verdict", {
  valid: [{ name: "every entry names a verdict" }],
  invalid: [
    {
      name: "a misspelt entry, at its key, with a suggestion",
      playbook: BASE_PLAYBOOK + "  transient_timout: { action: fail }\n",
      findings: [{ message: "playbook entry 'transient_timout' names no verdict of the registry; fix the name, or add the verdict to registry.yaml (did you mean 'transient_timeout'?)", file: "playbook.yaml", line: 7, column: 3 }],
    },
    {
      name: "an entry for a verdict that was removed",
      playbook: BASE_PLAYBOOK + "  card_declined:\n    action: fail\n",
      findings: [{ message: /^playbook entry 'card_declined' names no verdict of the registry; fix the name, or add the verdict to registry.yaml$/, file: "playbook.yaml", line: 7, column: 3 }],
    },
  ],
});
