/**
 * SPEC 18's hedging through the CLI, as a user sees it: fixtures simulated on the virtual
 * clock where each response's latency_ms decides which hedge answers first, a non-fatal
 * failure that sends the next hedge at once, a fatal one that cancels the rest, a call that
 * is not idempotent and is never hedged, retry throttling that stops the hedges; the worst
 * case `explain` shows; and lint's word on a hedged tool declared idempotent: false.
 */
import { describe, expect, it } from "vitest";
import { failbook, tempProject } from "./helpers/cli.js";

const REGISTRY = `apiVersion: failbook/v1
kind: Registry
name: search
revision: 1
classes:
  transient: { description: Temporary fault. }
  permanent: { description: Refused. }
verdicts:
  - { code: search_timeout, class: transient, retryable: true, summary: Timed out., recovery: Retry., match: [{ kind: timeout }] }
  - { code: query_invalid, class: permanent, retryable: false, summary: The query is malformed., recovery: Fix the query., match: [{ kind: invalid }] }
  - { code: unknown_error, class: permanent, retryable: false, summary: Nothing matched., recovery: A human looks. }
fallback: unknown_error
`;
const PLAYBOOK = `apiVersion: failbook/v1
kind: Playbook
name: search
retry_throttling: { max_tokens: 10, token_ratio: 0.1 }
hedging:
  tools: "search.*"
  max_attempts: 3
  delay_ms: 200
  non_fatal: [transient]
verdicts:
  search_timeout: { action: retry_with_backoff, max_retries: 2, backoff_ms: [100, 200] }
  query_invalid: { action: fail }
  unknown_error: { action: escalate_to_human, queue: oncall }
`;
const fixture = (name: string, responses: string, more = "", call = "{ id: q, tool: search.web }") =>
  `apiVersion: failbook/v1\nkind: Fixture\nname: ${name}\n${more}call: ${call}\nresponses: [${responses}]\n`;
const ok = (ms: number) => `{ status: ok, value: { hits: 3 }, latency_ms: ${ms} }`;
const error = (kind: string, ms: number) => `{ status: error, error: { kind: ${kind} }, latency_ms: ${ms} }`;
const FIXTURES = [
  fixture("latency-decides", `${ok(900)}, ${ok(100)}, ${ok(10)}`),
  fixture("non-fatal-at-once", `${error("timeout", 50)}, ${ok(30)}`),
  fixture("fatal-cancels", `${ok(900)}, ${error("invalid", 50)}`),
  fixture("not-idempotent", ok(900), "", "{ id: w, tool: search.index, idempotent: false }"),
  fixture("throttled", `${error("timeout", 50)}, ${ok(30)}`, "state: { throttling: { tokens: 6 } }\n"),
].join("---\n");

const project = (playbook = PLAYBOOK) =>
  tempProject({ "failbook.yaml": "registry: registry.yaml\nplaybook: playbook.yaml\nfixtures: [fixtures]\n", "registry.yaml": REGISTRY, "playbook.yaml": playbook, "fixtures/search.yaml": FIXTURES });

interface Result {
  fixture: string;
  outcome: { kind: string; attempts: number; retried: number; elapsed_ms: number; reason: string | null; verdict: string | null };
  events: { t: number; type: string; [key: string]: unknown }[];
}

describe("failbook simulate with hedging", () => {
  const dir = project();
  const r = failbook(["simulate", "--format", "json"], { cwd: dir });
  const results = Object.fromEntries((JSON.parse(r.stdout) as { results: Result[] }).results.map((x) => [x.fixture, x]));

  it("each delay_ms without an answer sends the next hedge; the first to answer wins and the others are cancelled", () => {
    expect(r.stderr).toBe("");
    const { outcome, events } = results["latency-decides"];
    // Sent at 0 and 200: the second answers at 300, before the first (900); the third, due at 400, is never sent.
    expect(outcome).toMatchObject({ kind: "succeeded", attempts: 2, retried: 0, elapsed_ms: 300 });
    expect(events).toEqual([
      { t: 300, type: "attempt", n: 2, status: "ok", idempotency_key: expect.any(String), latency_ms: 100, hedge: true },
      { t: 300, type: "hedge_cancelled", attempt: 1 },
    ]);
  });

  it("a failure in non_fatal sends the next hedge at once", () => {
    const { outcome, events } = results["non-fatal-at-once"];
    expect(outcome).toMatchObject({ kind: "recovered", attempts: 2, retried: 0, elapsed_ms: 80 });
    expect(events.map((e) => [e.t, e.type])).toEqual([
      [50, "attempt"],
      [50, "failure_classified"],
      [80, "attempt"],
    ]);
  });

  it("any other failure cancels the hedges in flight and goes to its verdict's action", () => {
    expect(results["fatal-cancels"].outcome).toMatchObject({ kind: "failed", verdict: "query_invalid", attempts: 2, elapsed_ms: 250 });
    expect(results["fatal-cancels"].events.at(-1)).toEqual({ t: 250, type: "hedge_cancelled", attempt: 1 });
  });

  it("a call that is not idempotent is never hedged", () => {
    expect(results["not-idempotent"].outcome).toMatchObject({ kind: "succeeded", attempts: 1, elapsed_ms: 900 });
  });

  it("retry throttling at or below half stops the hedges: the failure ends exhausted, reason retry_throttled", () => {
    expect(results.throttled.outcome).toMatchObject({ kind: "exhausted", reason: "retry_throttled", attempts: 1, elapsed_ms: 50 });
    expect(results.throttled.events.at(-1)).toMatchObject({ type: "retry_throttled", verdict: "search_timeout", tokens: 5, threshold: 5 });
  });

  it("the text report marks the hedges and the cancels", () => {
    const text = failbook(["simulate"], { cwd: dir }).stdout;
    expect(text).toContain("300ms  attempt 2    ok (100ms), a hedge");
    expect(text).toContain("300ms  hedge        attempt 1 cancelled");
  });
});

describe("failbook explain and lint with hedging", () => {
  it("the worst case of a hedged verdict counts its hedges", () => {
    const r = failbook(["explain", "search_timeout"], { cwd: project() });
    expect(r.stdout).toContain("at most 3 attempts");
    expect(r.stdout).toContain("a hedged call (search.*) sends up to 3 attempts (at most 3 in flight) and never retries");
  });

  it("a hedged glob that reaches a tool declared idempotent: false is an error at the glob", () => {
    const r = failbook(["lint", "--format", "json"], { cwd: project(`${PLAYBOOK}tools:\n  search.index: { idempotent: false }\n`) });
    expect(r.code).toBe(1);
    const findings = (JSON.parse(r.stdout) as { findings: { rule: string; file: string; line: number; column: number; message: string }[] }).findings.filter((f) => f.rule === "hedging-non-idempotent");
    expect(findings).toEqual([expect.objectContaining({ file: "playbook.yaml", line: 6, column: 10, message: expect.stringContaining("hedging tools 'search.*' reach 'search.index'") })]);
  });
});
