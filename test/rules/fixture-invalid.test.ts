import { BASE_PLAYBOOK, ruleTester, yaml } from "../helpers/rule-tester.js";

const HEAD = "apiVersion: failbook/v1\nkind: Fixture\n";
/** A fixture file: the header, then `name:` on line 3, then the body from line 4. */
const fixture = (name: string, body: string) => HEAD + `name: ${name}\n` + yaml`${body}`;
const ONE_CALL = yaml`
  call: { id: c1, tool: payments.refund }
  responses:
    - { status: error, error: { kind: timeout } }
    - { status: ok }
`;

ruleTester("fixture-invalid", {
  valid: [
    {
      name: "a state that starts a declared breaker and throttling",
      playbook: BASE_PLAYBOOK + "circuit_breakers:\n  payments: { tools: 'payments.*' }\nretry_throttling: { max_tokens: 10, token_ratio: 0.1 }\n",
      fixtures: { "a.yaml": fixture("a", "state: { breakers: { payments: open }, throttling: { tokens: 3 } }\n" + ONE_CALL) },
    },
    { name: "one call with responses", fixtures: { "a.yaml": fixture("a", ONE_CALL + "expect: { outcome: recovered, verdict: transient_timeout }\n") } },
    {
      name: "goldens that name known verdicts, and a null verdict",
      fixtures: {
        "a.yaml": fixture(
          "a",
          ONE_CALL +
            yaml`
              expect:
                verdict: null
                events:
                  - { type: attempt, n: 1 }
                  - { type: failure_classified, verdict: transient_timeout, attempt: 1 }
                  - { type: retry_scheduled, verdict: transient_timeout, attempt: 2 }
            `,
        ),
      },
    },
    {
      name: "steps and waves with responses",
      fixtures: {
        "s.yaml": fixture("s", yaml`
          steps:
            - call: { id: a, tool: t }
              responses: [{ status: ok }]
              compensation: { call: { id: undo_a, tool: t }, responses: [{ status: ok }] }
          expect: { steps: [{ id: a, kind: succeeded, verdict: null }] }
        `),
        "w.yaml": fixture("w", "waves:\n  - calls:\n      - { call: { id: a, tool: t }, responses: [{ status: ok }] }\n"),
      },
    },
    { name: "two fixtures in one file with different names", fixtures: { "a.yaml": fixture("a", ONE_CALL) + "---\n" + fixture("b", ONE_CALL) } },
  ],
  invalid: [
    {
      name: "a state that starts an undeclared breaker, or throttling the playbook lacks",
      playbook: BASE_PLAYBOOK + "circuit_breakers:\n  payments: { tools: 'payments.*' }\n",
      fixtures: { "a.yaml": fixture("a", "state: { breakers: { payment: open }, throttling: { tokens: 3 } }\n" + ONE_CALL) },
      findings: [
        { message: "fixture 'a' starts breaker 'payment', which the playbook does not declare under circuit_breakers (did you mean 'payments'?)", file: "fixtures/a.yaml", line: 4, column: 22 },
        { message: "fixture 'a' starts retry throttling, but the playbook has no retry_throttling", file: "fixtures/a.yaml", line: 4, column: 39 },
      ],
    },
    {
      name: "an unknown verdict in expect.verdict, with a suggestion",
      fixtures: { "a.yaml": fixture("a", ONE_CALL + "expect: { outcome: recovered, verdict: transient_timout }\n") },
      findings: [{ message: "expect.verdict 'transient_timout' of fixture 'a' names no verdict of the registry, so the golden can never hold; fix the code (did you mean 'transient_timeout'?)", file: "fixtures/a.yaml", line: 8, column: 40 }],
    },
    {
      name: "an unknown verdict in a failure_classified event",
      fixtures: {
        "a.yaml": fixture("a", ONE_CALL + "expect:\n  events:\n    - { type: attempt, n: 1 }\n    - { type: failure_classified, verdict: timeout, attempt: 1 }\n"),
      },
      findings: [{ message: "expect.events[1].verdict 'timeout' of fixture 'a'", file: "fixtures/a.yaml", line: 11, column: 44 }],
    },
    {
      name: "an unknown verdict in a step summary",
      fixtures: {
        "s.yaml": fixture("s", "steps:\n  - { call: { id: a, tool: t }, responses: [{ status: ok }] }\nexpect:\n  steps: [{ id: a, kind: failed, verdict: nope }]\n"),
      },
      findings: [{ message: "expect.steps[0].verdict 'nope'", file: "fixtures/s.yaml", line: 7, column: 43 }],
    },
    {
      name: "a call without responses, at the call key",
      fixtures: { "a.yaml": fixture("a", "call: { id: c1, tool: t }\n") },
      findings: [{ message: "fixture 'a' has a call but no responses; add responses:", file: "fixtures/a.yaml", line: 4, column: 1 }],
    },
    {
      name: "an empty responses list",
      fixtures: { "a.yaml": fixture("a", "call: { id: c1, tool: t }\nresponses: []\n") },
      findings: [{ message: "the call of fixture 'a' has an empty responses list; record at least the first attempt's response", file: "fixtures/a.yaml", line: 5, column: 12 }],
    },
    {
      name: "a step, a compensation and a wave call with empty responses",
      fixtures: {
        "s.yaml": fixture("s", yaml`
          steps:
            - call: { id: a, tool: t }
              responses: []
              compensation: { call: { id: undo_a, tool: t }, responses: [] }
        `),
        "w.yaml": fixture("w", "waves:\n  - calls:\n      - { call: { id: b, tool: t }, responses: [] }\n"),
      },
      findings: [
        { message: "step 'a' of fixture 's' has an empty responses list", file: "fixtures/s.yaml", line: 6, column: 16 },
        { message: "the compensation of step 'a' of fixture 's' has an empty responses list", file: "fixtures/s.yaml", line: 7, column: 63 },
        { message: "call 'b' of wave 1 of fixture 'w' has an empty responses list", file: "fixtures/w.yaml", line: 6, column: 48 },
      ],
    },
    {
      name: "none of call, steps or waves",
      fixtures: { "a.yaml": fixture("a", "description: nothing to run\n") },
      findings: [{ message: "fixture 'a' has no call, steps or waves, so there is nothing to dispatch; add exactly one of them", file: "fixtures/a.yaml", line: 3, column: 7 }],
    },
    {
      name: "call and steps, at the second key",
      fixtures: { "a.yaml": fixture("a", ONE_CALL + "steps:\n  - { call: { id: b, tool: t }, responses: [{ status: ok }] }\n") },
      findings: [{ message: "fixture 'a' has both call and steps; keep exactly one of call, steps or waves", file: "fixtures/a.yaml", line: 8, column: 1 }],
    },
    {
      name: "all three",
      fixtures: {
        "a.yaml": fixture("a", ONE_CALL + "steps:\n  - { call: { id: b, tool: t }, responses: [{ status: ok }] }\nwaves:\n  - calls: [{ call: { id: w, tool: t }, responses: [{ status: ok }] }]\n"),
      },
      findings: [
        { message: "has both call and steps", file: "fixtures/a.yaml", line: 8, column: 1 },
        { message: "has both call and waves", file: "fixtures/a.yaml", line: 10, column: 1 },
      ],
    },
    {
      name: "a duplicate name in another file, pointing back at the first",
      fixtures: { "a.yaml": fixture("refund", ONE_CALL), "b.yaml": fixture("refund", ONE_CALL) },
      findings: [{ message: "fixture name 'refund' is already used by another fixture", file: "fixtures/b.yaml", line: 3, column: 7, related: [{ file: "fixtures/a.yaml", line: 3, column: 7 }] }],
    },
    {
      name: "a duplicate name in the same file, in the second document",
      fixtures: { "a.yaml": fixture("refund", ONE_CALL) + "---\n" + fixture("refund", ONE_CALL) },
      findings: [{ message: "fixture name 'refund' is already used", file: "fixtures/a.yaml", line: 11, column: 7, related: [{ file: "fixtures/a.yaml", line: 3, column: 7 }] }],
    },
  ],
});
