import { BASE_PLAYBOOK, ruleTester, yaml } from "../helpers/rule-tester.js";

const saga = (compensationCall: string) => ({
  "saga.yaml": yaml`
    apiVersion: failbook/v1
    kind: Fixture
    name: booking
    steps:
      - call: { id: reserve, tool: hotel.reserve }
        responses: [{ status: ok }]
        compensation:
          call: ${compensationCall}
          responses: [{ status: ok }]
      - call: { id: charge, tool: payments.charge }
        responses: [{ status: error, error: { kind: timeout } }]
  `,
});
const TOOLS = "tools:\n  legacy.*: { idempotent: false }\n  hotel.*: { idempotent: true }\n";

ruleTester("compensation-not-idempotent", {
  valid: [
    { name: "an idempotent compensation", fixtures: saga("{ id: release, tool: hotel.release }") },
    { name: "declared idempotent", fixtures: saga("{ id: release, tool: hotel.release, idempotent: true }"), playbook: BASE_PLAYBOOK + TOOLS },
    {
      name: "a non-idempotent step that is not a compensation",
      fixtures: { "one.yaml": "apiVersion: failbook/v1\nkind: Fixture\nname: one\nsteps:\n  - call: { id: c, tool: legacy.pay, idempotent: false }\n    responses: [{ status: ok }]\n" },
      playbook: BASE_PLAYBOOK + TOOLS,
    },
  ],
  invalid: [
    {
      name: "a compensation call declared idempotent: false, at the flag",
      fixtures: saga("{ id: release, tool: hotel.release, idempotent: false }"),
      findings: [{ message: "compensation call 'release' of fixture 'booking' is declared idempotent: false; a compensation undoes a step and must be safe to repeat", file: "fixtures/saga.yaml", line: 8, column: 61 }],
    },
    {
      name: "a compensation to a tool the playbook declares non-idempotent, at the tool, noting the declaration",
      fixtures: saga("{ id: release, tool: legacy.release }"),
      playbook: BASE_PLAYBOOK + TOOLS,
      findings: [
        {
          message: "compensation call 'release' of fixture 'booking' goes to legacy.release, which the playbook's tools: declares idempotent: false",
          file: "fixtures/saga.yaml",
          line: 8,
          column: 34,
          related: [{ file: "playbook.yaml", line: 8, column: 3 }],
        },
      ],
    },
  ],
});
