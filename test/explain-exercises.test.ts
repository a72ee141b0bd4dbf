import { describe, expect, it } from "vitest";
import { loadProject } from "../src/load/project.js";
import { fixturesExercising } from "../src/render/exercises.js";
import { tempProject } from "./helpers/cli.js";

const REGISTRY = `apiVersion: failbook/v1
kind: Registry
name: r
revision: 1
classes: { transient: {}, unknown: {} }
verdicts:
  - { code: primary_down, class: transient, retryable: false, match: [{ kind: down }] }
  - { code: backup_timeout, class: transient, retryable: true, match: [{ kind: timeout, tool: "backup.*" }] }
  - { code: timeout, class: transient, retryable: true, match: [{ kind: timeout }] }
  - { code: empty, class: transient, retryable: true, match: [{ kind: empty_response }] }
  - { code: unknown_error, class: unknown, retryable: false }
fallback: unknown_error
`;

const PLAYBOOK = `apiVersion: failbook/v1
kind: Playbook
name: p
empty_response_is_failure: true
verdicts:
  primary_down: { action: fallback, tool: backup.charge }
  backup_timeout: { action: retry_with_backoff, max_retries: 1, backoff_ms: [10] }
  timeout: { action: retry_with_backoff, max_retries: 1, backoff_ms: [10] }
  empty: { action: fail }
  unknown_error: { action: escalate_to_human, queue: triage }
`;

const FIXTURES = `apiVersion: failbook/v1
kind: Fixture
name: fallback-then-timeout
call: { id: c1, tool: pay.charge }
responses:
  - status: error
    error: { kind: down }
fallback_responses:
  - status: error
    error: { kind: timeout }
---
apiVersion: failbook/v1
kind: Fixture
name: saga
steps:
  - call: { id: s1, tool: pay.charge }
    responses:
      - status: ok
    compensation:
      call: { id: s1c, tool: pay.refund }
      responses:
        - status: error
          error: { kind: timeout }
  - call: { id: s2, tool: ship.create }
    responses:
      - status: error
expect:
  outcome: failed
  steps:
    - { id: s1, kind: succeeded }
    - { id: s2, kind: escalated, verdict: unknown_error }
---
apiVersion: failbook/v1
kind: Fixture
name: waves
parallelism: 2
waves:
  - calls:
      - call: { id: w1, tool: a.b }
        responses:
          - status: error
            error: { kind: timeout }
`;

describe("fixtures that exercise a code", () => {
  const dir = tempProject({ "failbook.yaml": "registry: r.yaml\nplaybook: p.yaml\nfixtures: [f.yaml]\n", "r.yaml": REGISTRY, "p.yaml": PLAYBOOK, "f.yaml": FIXTURES });
  const { project } = loadProject({ cwd: dir });
  const exercising = (code: string) => fixturesExercising(code, project.registry!.value, project.playbook!.value, project.fixtures).map((e) => `${e.file}:${e.line} ${e.fixture} ${e.via} ${e.at}`);
  const line = (needle: string, from = 0) => FIXTURES.split("\n").findIndex((l, i) => i >= from && l.includes(needle)) + 1;

  it.each([
    { code: "primary_down", expected: [`f.yaml:${line("kind: down")} fallback-then-timeout failure responses[0]`] },
    // A fallback response answers the fallback action's tool, so a tool-specific rule wins.
    { code: "backup_timeout", expected: [`f.yaml:${line("kind: timeout")} fallback-then-timeout failure fallback_responses[0]`] },
    {
      code: "timeout",
      expected: [
        `f.yaml:${line("kind: timeout", line("name: saga"))} saga failure steps[0].compensation.responses[0]`,
        `f.yaml:${line("kind: timeout", line("name: waves"))} waves failure waves[0].calls[0].responses[0]`,
      ],
    },
    // An ok response with no value fails when the playbook says so.
    { code: "empty", expected: [`f.yaml:${line("- status: ok")} saga failure steps[0].responses[0]`] },
    {
      code: "unknown_error",
      expected: [
        `f.yaml:${line("- status: error", line("id: s2"))} saga failure steps[1].responses[0]`,
        `f.yaml:${line("verdict: unknown_error")} saga golden expect.steps[1].verdict`,
      ],
    },
  ])("finds every place that exercises $code, by file:line", ({ code, expected }) => {
    expect(exercising(code)).toEqual(expected);
  });
});
