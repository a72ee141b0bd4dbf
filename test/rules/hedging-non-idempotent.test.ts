import { describe, expect, it } from "vitest";
import { globsOverlap } from "../../src/lint/rules/hedging-non-idempotent.js";
import { BASE_PLAYBOOK, ruleTester } from "../helpers/rule-tester.js";

const hedged = (tools: string, entries: string) => `${BASE_PLAYBOOK}hedging: { tools: ${tools}, max_attempts: 3, delay_ms: 200 }\ntools:\n${entries}`;

ruleTester("hedging-non-idempotent", {
  valid: [
    { name: "no hedging" },
    { name: "hedged tools declared idempotent", playbook: hedged('"search.*"', '  "search.*": { idempotent: true }\n  payments.charge: { idempotent: false }\n') },
    { name: "a non-idempotent tool the glob does not reach", playbook: hedged('["search.*", "geo.lookup"]', "  geo.route: { idempotent: false }\n") },
  ],
  invalid: [
    {
      name: "the glob reaches a literal tool declared idempotent: false",
      playbook: hedged('"payments.*"', "  payments.charge: { idempotent: false }\n"),
      findings: [{ message: "hedging tools 'payments.*' reach 'payments.charge', which the playbook's tools: declares idempotent: false", file: "playbook.yaml", line: 7, column: 19, related: [{ file: "playbook.yaml", line: 9, column: 3 }] }],
    },
    {
      name: "one glob of a list overlaps a tools: glob",
      playbook: hedged('["search.*", "*.charge"]', '  "payments.*": { idempotent: false }\n'),
      findings: [{ message: "hedging tools '*.charge' reach 'payments.*'", file: "playbook.yaml", line: 7, column: 32, related: [{ file: "playbook.yaml", line: 9, column: 3 }] }],
    },
  ],
});

describe("globsOverlap: some tool name matches both globs", () => {
  it.each([
    ["search.*", "search.web", true],
    ["*", "payments.*", true],
    ["*.charge", "payments.*", true],
    ["payments.?efund", "payments.refund", true],
    ["search.*", "payments.*", false],
    ["a*b", "c*", false],
    ["*x", "*y", false],
    ["??", "abc", false],
  ])("%s and %s: %s", (a, b, overlap) => {
    expect([globsOverlap(a, b), globsOverlap(b, a)]).toEqual([overlap, overlap]);
  });
});
