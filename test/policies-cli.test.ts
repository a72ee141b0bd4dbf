/**
 * SPEC 18 through the CLI, as a user sees it: a breaker opening on a virtual clock in a
 * waves fixture (its goldens recorded and checked), a fixture starting from an open breaker,
 * an attempt timeout driven by a response's latency_ms, and lint's word on a breaker whose
 * circuit_open nobody classified.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { failbook, tempProject } from "./helpers/cli.js";

const REGISTRY = `apiVersion: failbook/v1
kind: Registry
name: payments
revision: 1
classes:
  transient: { description: Temporary fault. }
  permanent: { description: Refused. }
verdicts:
  - { code: transient_timeout, class: transient, retryable: true, summary: Timed out., recovery: Retry., match: [{ kind: timeout }, { kind: attempt_timeout }] }
  - { code: circuit_open, class: permanent, retryable: false, side_effect: none, summary: The breaker stopped the call., recovery: Use the ledger., match: [{ kind: circuit_open }] }
  - { code: unknown_error, class: permanent, retryable: false, summary: Nothing matched., recovery: A human looks. }
fallback: unknown_error
`;
const PLAYBOOK = `apiVersion: failbook/v1
kind: Playbook
name: payments
attempt_timeout_ms: 3000
circuit_breakers:
  payments:
    tools: "payments.*"
    failure_ratio: 0.5
    minimum_throughput: 4
    sampling_ms: 10000
    break_ms: 5000
verdicts:
  transient_timeout: { action: retry_with_backoff, max_retries: 1, backoff_ms: [0] }
  circuit_open: { action: fallback, tool: ledger.charge }
  unknown_error: { action: escalate_to_human, queue: oncall }
`;
const FIXTURES = `apiVersion: failbook/v1
kind: Fixture
name: payments-breaker-opens
waves:
  - calls:
      - call: { id: a, tool: payments.charge }
        responses: [{ status: error, error: { kind: timeout }, latency_ms: 100 }, { status: error, error: { kind: timeout }, latency_ms: 100 }]
      - call: { id: b, tool: payments.charge }
        responses: [{ status: error, error: { kind: timeout }, latency_ms: 100 }, { status: ok, latency_ms: 5000 }]
      - call: { id: c, tool: payments.charge }
        responses: [{ status: ok }]
        fallback_responses: [{ status: ok, latency_ms: 20 }]
---
apiVersion: failbook/v1
kind: Fixture
name: payments-start-open
state: { breakers: { payments: open } }
call: { id: d, tool: payments.charge }
responses: [{ status: ok }]
fallback_responses: [{ status: ok, latency_ms: 20 }]
`;

const project = (playbook = PLAYBOOK, registry = REGISTRY) =>
  tempProject({ "failbook.yaml": "registry: registry.yaml\nplaybook: playbook.yaml\nfixtures: [fixtures]\n", "registry.yaml": registry, "playbook.yaml": playbook, "fixtures/breaker.yaml": FIXTURES });

interface Result {
  fixture: string;
  outcome: { kind: string; attempts: number; calls?: { id: string; kind: string }[] };
  events: { t: number; type: string; call?: string; [key: string]: unknown }[];
}

describe("failbook simulate with the policies of SPEC 18", () => {
  it("shows a breaker opening on the virtual clock: the attempt that times out is its fourth failure, and the next call is short-circuited to its fallback", () => {
    const dir = project();
    const r = failbook(["simulate", "--format", "json"], { cwd: dir });
    expect(r.stderr).toBe("");
    const [waves, open] = (JSON.parse(r.stdout) as { results: Result[] }).results;
    const b = waves.events.filter((e) => e.call === "b");
    // latency_ms 5000 under attempt_timeout_ms 3000: the attempt ends at 3000 as attempt_timeout.
    expect(b.find((e) => e.type === "attempt" && e.n === 2)).toMatchObject({ t: 3300, status: "error", error_kind: "attempt_timeout", latency_ms: 3000 });
    expect(b.find((e) => e.type === "breaker_opened")).toEqual({ t: 3300, type: "breaker_opened", call: "b", breaker: "payments", failures: 4, attempts: 4, break_ms: 5000 });
    expect(waves.events.filter((e) => e.call === "c").map((e) => e.type)).toEqual(["attempt", "failure_classified", "fallback_started", "attempt"]);
    expect(waves.events.find((e) => e.call === "c")).toMatchObject({ error_kind: "circuit_open", short_circuited: true, latency_ms: 0 });
    expect(waves.outcome.calls?.map((c) => `${c.id}:${c.kind}`)).toEqual(["a:exhausted", "b:exhausted", "c:recovered"]);
    // Five attempts reached an upstream: the short-circuited one is not among them.
    expect(waves.outcome.attempts).toBe(5);
    expect(open.outcome).toMatchObject({ kind: "recovered", attempts: 1 });

    const text = failbook(["simulate"], { cwd: dir }).stdout;
    expect(text).toContain("3300ms  b  breaker      payments opened: 4 of 4 attempts failed; open for 5000ms");
    expect(text).toContain("3300ms  c  attempt 1    error circuit_open, not sent (short-circuited)");
  });

  it("records goldens with the new events and checks them", () => {
    const dir = project();
    expect(failbook(["simulate", "--update"], { cwd: dir }).code).toBe(0);
    expect(readFileSync(join(dir, "fixtures/breaker.yaml"), "utf8")).toContain("- { id: c, kind: recovered, verdict: circuit_open, attempts: 1");
    const again = failbook(["simulate"], { cwd: dir });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("2 fixtures: 2 passed, 0 failed");
    // The same goldens under a breaker that needs a fifth attempt: call c is sent, and the check fails.
    const later = tempProject({
      "failbook.yaml": "registry: registry.yaml\nplaybook: playbook.yaml\nfixtures: [fixtures]\n",
      "registry.yaml": REGISTRY,
      "playbook.yaml": PLAYBOOK.replace("minimum_throughput: 4", "minimum_throughput: 5"),
      "fixtures/breaker.yaml": readFileSync(join(dir, "fixtures/breaker.yaml"), "utf8"),
    });
    const changed = failbook(["simulate"], { cwd: later });
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain("1 passed, 1 failed");
  });
});

describe("failbook lint on breakers", () => {
  it("a breaker whose circuit_open reaches only the fallback verdict is an error at the breaker", () => {
    const registry = REGISTRY.replace(/  - \{ code: circuit_open.*\n/, "");
    const playbook = PLAYBOOK.replace("  circuit_open: { action: fallback, tool: ledger.charge }\n", "");
    const r = failbook(["lint", "--format", "json"], { cwd: project(playbook, registry) });
    expect(r.code).toBe(1);
    const findings = (JSON.parse(r.stdout) as { findings: { rule: string; file: string; line: number; column: number; message: string }[] }).findings.filter((f) => f.rule === "breaker-unclassified");
    expect(findings).toEqual([expect.objectContaining({ file: "playbook.yaml", line: 6, column: 3, message: expect.stringContaining("breaker 'payments' fails the attempts it stops as the adapter error circuit_open") })]);
  });
});

describe("failbook simulate with refresh_credentials", () => {
  const registry = REGISTRY.replace("verdicts:\n", "verdicts:\n  - { code: token_expired, class: permanent, retryable: true, summary: The token expired., recovery: Refresh it., match: [{ http_status: 401 }] }\n");
  const playbook = PLAYBOOK.replace("verdicts:\n", "verdicts:\n  token_expired: { action: refresh_credentials, then: retry }\n");
  const fixtures = `apiVersion: failbook/v1
kind: Fixture
name: token-refreshed
call: { id: e, tool: crm.read }
responses: [{ status: error, error: { kind: http, http_status: 401 } }, { status: ok }]
expect: { outcome: recovered, verdict: token_expired, attempts: 2 }
---
apiVersion: failbook/v1
kind: Fixture
name: token-still-refused
call: { id: f, tool: crm.read }
responses: [{ status: error, error: { kind: http, http_status: 401 } }, { status: error, error: { kind: http, http_status: 401 } }]
expect: { outcome: deprecated, attempts: 2 }
`;
  const dir = () => tempProject({ "failbook.yaml": "registry: registry.yaml\nplaybook: playbook.yaml\nfixtures: [fixtures]\n", "registry.yaml": registry, "playbook.yaml": playbook, "fixtures/auth.yaml": fixtures });

  it("refreshes the credentials between the failed attempt and the one retry; a second refusal deprecates the call", () => {
    const r = failbook(["simulate", "--format", "json"], { cwd: dir() });
    expect(r.stderr).toBe("");
    const [refreshed, refused] = (JSON.parse(r.stdout) as { results: (Result & { passed: boolean })[] }).results;
    expect(refreshed.passed).toBe(true);
    expect(refreshed.events.map((e) => e.type)).toEqual(["attempt", "failure_classified", "credentials_refreshed", "attempt"]);
    expect(refused.passed).toBe(true);
    expect(refused.outcome).toMatchObject({ kind: "deprecated", reason: "post-refresh retry still failing", replan: true });
    expect(r.code).toBe(0);
  });
});
