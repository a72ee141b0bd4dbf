import { BASE_PLAYBOOK, registry, ruleTester, yaml } from "../helpers/rule-tester.js";

/** The base playbook plus a breaker on payments.* (its name's key is on line 8). */
const WITH_BREAKER = BASE_PLAYBOOK + yaml`
  circuit_breakers:
    payments:
      tools: "payments.*"
`;
const TIMEOUT = yaml`
  - { code: transient_timeout, class: transient, retryable: true, summary: Timed out., recovery: Retry., match: [{ kind: timeout }] }
`;
const OPEN = (rule: string) => registry(TIMEOUT + `- { code: circuit_open, class: permanent, retryable: false, summary: Open., recovery: Wait., match: [${rule}] }\n`);
const FIXTURE = { "a.yaml": "apiVersion: failbook/v1\nkind: Fixture\nname: a\ncall: { id: c, tool: payments.refund }\nresponses: [{ status: ok }]\n" };
const OPEN_PLAYBOOK = WITH_BREAKER.replace("verdicts:\n", "verdicts:\n  circuit_open: { action: fail }\n");

ruleTester("breaker-unclassified", {
  valid: [
    { name: "no breaker" },
    { name: "a verdict matches circuit_open", registry: OPEN("{ kind: circuit_open }"), playbook: OPEN_PLAYBOOK },
    { name: "a verdict matches it for the guarded tool", registry: OPEN("{ kind: circuit_open, tool: 'payments.*' }"), playbook: OPEN_PLAYBOOK, fixtures: FIXTURE },
  ],
  invalid: [
    {
      name: "a breaker, and circuit_open reaches only the fallback verdict",
      playbook: WITH_BREAKER,
      findings: [{ message: "breaker 'payments' fails the attempts it stops as the adapter error circuit_open, but no verdict matches it, so an open circuit classifies to the fallback verdict 'unknown_error'", file: "playbook.yaml", line: 8, column: 3 }],
    },
    {
      name: "the only verdict for circuit_open is for another tool than the ones it guards",
      registry: OPEN("{ kind: circuit_open, tool: 'search.*' }"),
      playbook: OPEN_PLAYBOOK,
      fixtures: FIXTURE,
      findings: [{ message: "classifies to the fallback verdict 'unknown_error'", file: "playbook.yaml", line: 9, column: 3 }],
    },
  ],
});
