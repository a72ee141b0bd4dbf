import { describe, expect, it } from "vitest";
import { validateDocument, type DocumentKind } from "../src/load/schema.js";
import { parseYaml } from "../src/load/yaml.js";

const REGISTRY = `apiVersion: failbook/v1
kind: Registry
name: r
revision: 1
classes: { transient: { description: t } }
verdicts:
  - code: a
    class: transient
    retryable: true
    match:
      - kind: timeout
fallback: a
`;
const PLAYBOOK = `apiVersion: failbook/v1
kind: Playbook
name: p
verdicts:
  a: { action: retry_with_backoff, max_retries: 2, backoff_ms: [1, 2] }
`;

function problems(kind: DocumentKind, text: string) {
  const doc = parseYaml("x.yaml", text).documents[0];
  return validateDocument(kind, doc).map((p) => ({ message: p.message, at: doc.locate(p.path, p.target) }));
}

describe("schema findings read like a person wrote them", () => {
  it("accepts the valid documents", () => {
    expect(problems("registry", REGISTRY)).toEqual([]);
    expect(problems("playbook", PLAYBOOK)).toEqual([]);
  });

  it.each([
    { what: "a wrong type", kind: "registry", edit: ["retryable: true", "retryable: maybe"], message: "'retryable' must be true or false, not 'maybe'", line: 9, column: 16 },
    { what: "a misspelt key", kind: "registry", edit: ["      - kind: timeout", "      - knd: timeout"], message: "unknown key 'knd' in match rule 1 of 'a'; did you mean 'kind'?", line: 11, column: 9 },
    { what: "a missing key", kind: "registry", edit: ["    retryable: true\n", ""], message: "verdict 'a' is missing 'retryable'", line: 7, column: 5 },
    { what: "a bad enum value", kind: "registry", edit: ["    retryable: true", "    retryable: true\n    side_effect: commited"], message: "'side_effect' must be one of none, unknown, committed, not 'commited'; did you mean 'committed'?", line: 10, column: 18 },
    { what: "a bad item in a list", kind: "registry", edit: ["kind: timeout", "kind: [timeout, 3]"], message: "'kind' must be a string or a list of strings; item 2 is 3", line: 11, column: 25 },
    { what: "a bad status matcher", kind: "registry", edit: ["kind: timeout", "http_status: 5XX"], message: "'http_status' must be a status (503), a class (\"5xx\"), a range (\"500-599\"), or a list of them, not '5XX'", line: 11, column: 22 },
    { what: "a string for an integer", kind: "playbook", edit: ["max_retries: 2", "max_retries: three"], message: "'max_retries' must be an integer, not 'three'", line: 5, column: 49 },
    { what: "a parameter of another action", kind: "playbook", edit: ["backoff_ms: [1, 2]", "backoff_ms: [1, 2], queue: q"], message: "'queue' is not a parameter of action retry_with_backoff (it takes max_retries, and backoff_ms or backoff)", line: 5, column: 72 },
    { what: "an unknown action", kind: "playbook", edit: ["retry_with_backoff", "retry_with_backof"], message: "'action' must be one of retry_with_backoff,", line: 5, column: 16 },
    { what: "the wrong apiVersion", kind: "playbook", edit: ["failbook/v1", "failbook/v2"], message: "'apiVersion' must be 'failbook/v1', not 'failbook/v2'", line: 1, column: 13 },
  ] as const)("$what", ({ kind, edit, message, line, column }) => {
    const base = kind === "registry" ? REGISTRY : PLAYBOOK;
    expect(base).toContain(edit[0]);
    const found = problems(kind, base.replace(edit[0], edit[1]));
    expect(found.map((p) => p.message).join("\n")).toContain(message);
    const match = found.find((p) => p.message.includes(message));
    expect(match?.at).toMatchObject({ line, column });
  });
});
