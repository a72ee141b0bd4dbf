import { BASE_PLAYBOOK, ruleTester, yaml } from "../helpers/rule-tester.js";

/** The base playbook retries transient_timeout twice (3 attempts a call); a breaker below it, minimum_throughput on line 10. */
const breaker = (more: string) => BASE_PLAYBOOK + yaml`
  circuit_breakers:
    payments:
      tools: "payments.*"
` + more;

ruleTester("breaker-tripped-by-one-call", {
  valid: [
    { name: "no breaker" },
    { name: "more attempts than one call makes", playbook: breaker("    minimum_throughput: 4\n") },
    { name: "the default minimum_throughput (100)", playbook: breaker("") },
    { name: "the retried verdict's class is not counted", playbook: breaker("    minimum_throughput: 2\n    counts: [permanent]\n") },
  ],
  invalid: [
    {
      name: "one call's three attempts reach minimum_throughput 3",
      playbook: breaker("    minimum_throughput: 3\n"),
      findings: [
        {
          message: "breaker 'payments' may open after 3 counted attempts, but one call failing with 'transient_timeout' makes up to 3 attempts under its retry limits, so a single failing call opens the breaker for every caller; raise minimum_throughput above 3",
          file: "playbook.yaml",
          line: 10,
          column: 25,
          related: [{ file: "playbook.yaml", line: 6, column: 65 }],
        },
      ],
    },
    {
      name: "counted by class",
      playbook: breaker("    minimum_throughput: 1\n    counts: [transient]\n"),
      findings: [{ message: "makes up to 3 attempts", file: "playbook.yaml", line: 10, column: 25, related: [{ file: "playbook.yaml", line: 6, column: 65 }] }],
    },
  ],
});
