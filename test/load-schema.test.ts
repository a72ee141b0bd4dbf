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

/** Every playbook key of SPEC 18 at once: what a user may write today, whatever the runtime does with it yet. */
const POLICIES = `apiVersion: failbook/v1
kind: Playbook
name: p
attempt_timeout_ms: 3000
circuit_breakers:
  payments:
    tools: "payments.*"
    per: tool
    failure_ratio: 0.5
    minimum_throughput: 20
    sampling_ms: 30000
    sampling_attempts: 100
    break_ms: 5000
    max_break_ms: 60000
    half_open_probes: 1
    counts: [transient]
retry_budget: { percent: 20, min_concurrency: 3 }
retry_throttling: { max_tokens: 10, token_ratio: 0.1 }
hedging: { tools: ["search.*"], max_attempts: 3, delay_ms: 200, non_fatal: [transient] }
retry_after: { headers: [grpc-retry-pushback-ms], fields: [retry_delay], mode: exact, invalid: give_up, parse: float, zero: absent, order: response, clock: local }
tools:
  "payments.*": { idempotent: true, attempt_timeout_ms: 1000 }
verdicts:
  a: { action: retry_with_backoff, max_retries: 2, backoff: { strategy: exponential, base_ms: 100, jitter: { min: 0.8, max: 1.2, integer: true } } }
  b: { action: refresh_credentials, then: retry }
`;

describe("the policies of SPEC 18 in the schemas", () => {
  it("accepts every key", () => {
    expect(problems("playbook", POLICIES)).toEqual([]);
    expect(problems("playbook", POLICIES.replace("sampling_attempts: 100", "buckets: 10"))).toEqual([]);
    expect(problems("registry", REGISTRY.replace("      - kind: timeout", "      - kind: timeout\n        retry_after: present\n        not: { message_contains: abort }"))).toEqual([]);
    const fixture = "apiVersion: failbook/v1\nkind: Fixture\nname: f\nstate: { breakers: { payments: open }, throttling: { tokens: 4 } }\ncall: { id: c, tool: t }\nresponses: [{ status: ok, latency_ms: 5000 }]\n";
    expect(problems("fixture", fixture)).toEqual([]);
  });

  it.each([
    { what: "a ratio above 1", edit: ["failure_ratio: 0.5", "failure_ratio: 1.5"], message: "'failure_ratio' must be a share of attempts in (0, 1] (0.5 opens at half of them failing), not 1.5", line: 9, column: 20 },
    { what: "a ratio of 0", edit: ["failure_ratio: 0.5", "failure_ratio: 0"], message: "'failure_ratio' must be a share of attempts in (0, 1]", line: 9, column: 20 },
    { what: "a zero window", edit: ["sampling_ms: 30000", "sampling_ms: 0"], message: "'sampling_ms' must be a window of at least 1 ms (at most one day), not 0", line: 11, column: 18 },
    { what: "a negative window", edit: ["sampling_ms: 30000", "sampling_ms: -5"], message: "'sampling_ms' must be a window of at least 1 ms", line: 11, column: 18 },
    { what: "a hedge of 11 attempts", edit: ["max_attempts: 3", "max_attempts: 11"], message: "'max_attempts' must be from 1 to 10 attempts in flight at once", line: 19, column: 47 },
    { what: "a huge breaker", edit: ["minimum_throughput: 20", "minimum_throughput: 99999999999"], message: "'minimum_throughput' must be <= 1000000, not 99999999999 (a limit no real playbook needs to exceed", line: 10, column: 25 },
    { what: "a misspelt breaker key", edit: ["break_ms: 5000", "brake_ms: 5000"], message: "unknown key 'brake_ms' in 'payments'; did you mean 'break_ms'?", line: 13, column: 5 },
    { what: "a count bound on a bucketed window", edit: ["    sampling_attempts: 100\n", "    sampling_attempts: 100\n    buckets: 10\n"], message: "'sampling_attempts' does not combine with buckets", line: 12, column: 5 },
    { what: "a budget over 100 %", edit: ["percent: 20", "percent: 120"], message: "'percent' must be a percentage in (0, 100], not 120", line: 17, column: 26 },
  ] as const)("$what is a located finding", ({ edit, message, line, column }) => {
    expect(POLICIES).toContain(edit[0]);
    const found = problems("playbook", POLICIES.replace(edit[0], edit[1]));
    expect(found.map((p) => p.message).join("\n")).toContain(message);
    expect(found.find((p) => p.message.includes(message))?.at).toMatchObject({ line, column });
  });
});
