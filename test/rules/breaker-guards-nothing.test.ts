import { BASE_PLAYBOOK, ruleTester, yaml } from "../helpers/rule-tester.js";

const breaker = (tools: string, more = "") => BASE_PLAYBOOK + more + yaml`
  circuit_breakers:
    payments:
      tools: ${tools}
`;
const calling = (tool: string) => ({ "a.yaml": `apiVersion: failbook/v1\nkind: Fixture\nname: a\ncall: { id: c, tool: ${tool} }\nresponses: [{ status: ok }]\n` });

ruleTester("breaker-guards-nothing", {
  valid: [
    { name: "no breaker" },
    { name: "a fixture calls a guarded tool", playbook: breaker('"payments.*"'), fixtures: calling("payments.refund") },
    { name: "one glob of a list guards one", playbook: breaker('["ledger.*", "payments.*"]'), fixtures: calling("payments.refund") },
    { name: "a tools: entry with the same glob", playbook: breaker('"payments.*"', 'tools:\n  "payments.*": { idempotent: true }\n') },
    { name: "a literal tool that a tools: glob covers", playbook: breaker("payments.refund", 'tools:\n  "payments.*": { idempotent: false }\n') },
  ],
  invalid: [
    {
      name: "a misspelt glob",
      playbook: breaker('"payment.*"'),
      fixtures: calling("payments.refund"),
      findings: [{ message: "breaker 'payments' guards 'payment.*', but no fixture, tools: entry, fallback or match rule of the project mentions a tool it matches", file: "playbook.yaml", line: 9, column: 12 }],
    },
    {
      name: "a project that mentions no tool at all",
      playbook: breaker('"payments.*"'),
      findings: [{ message: "so nothing shows it guarding anything; fix the glob, or add a fixture that calls a guarded tool", file: "playbook.yaml", line: 9, column: 12 }],
    },
  ],
});
