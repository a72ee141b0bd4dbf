/** A registry and playbook with every policy of SPEC 18, for the explain, render and gen tests. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv from "ajv";
import { expect } from "vitest";
import { failbook, REPO, tempProject } from "./cli.js";

export const POLICIES_REGISTRY = `apiVersion: failbook/v1
kind: Registry
name: payments
revision: 1
classes:
  transient: { description: Temporary fault. }
  auth: { description: Credentials. }
  permanent: { description: Refused. }
verdicts:
  - { code: transient_timeout, class: transient, retryable: true, summary: Timed out., recovery: Retry., match: [{ kind: timeout }, { kind: attempt_timeout }] }
  - { code: ledger_slow, class: transient, retryable: true, summary: The ledger is slow., recovery: Retry., match: [{ kind: timeout, tool: ledger.charge }] }
  - { code: token_expired, class: auth, retryable: true, summary: Token expired., recovery: Refresh., match: [{ http_status: 401 }] }
  - { code: circuit_open, class: permanent, retryable: false, side_effect: none, summary: The breaker stopped the call., recovery: Use the ledger., match: [{ kind: circuit_open }] }
  - { code: declined, class: permanent, retryable: false, summary: Declined., recovery: Ask., match: [{ kind: declined }] }
  - { code: unknown_error, class: permanent, retryable: false, summary: Nothing matched., recovery: A human looks. }
fallback: unknown_error
`;

export const POLICIES_PLAYBOOK = `apiVersion: failbook/v1
kind: Playbook
name: payments
attempt_timeout_ms: 3000
tools:
  "payments.*": { attempt_timeout_ms: 2000 }
budgets: { wall_ms: 8000 }
circuit_breakers:
  payments:
    tools: "payments.*"
    failure_ratio: 0.5
    minimum_throughput: 20
    sampling_ms: 10000
    break_ms: 5000
    max_break_ms: 60000
retry_budget: { percent: 20, min_concurrency: 3 }
retry_throttling: { max_tokens: 10, token_ratio: 0.1 }
hedging: { tools: "search.*", max_attempts: 3, delay_ms: 200, non_fatal: [transient] }
verdicts:
  transient_timeout: { action: retry_with_backoff, max_retries: 3, backoff: { strategy: exponential, base_ms: 100, jitter: { min: 0.8, max: 1.2 }, min_ms: 50 } }
  ledger_slow: { action: retry_with_backoff, max_retries: 1, backoff_ms: [500] }
  token_expired: { action: refresh_credentials, then: retry }
  circuit_open: { action: fallback, tool: ledger.charge }
  declined: { action: fail }
  unknown_error: { action: escalate_to_human, queue: oncall }
`;

/** The same with rate limits (SPEC 22): a bucket with max_wait_ms over the ledger, an adaptive one over search, one over payments that fails when empty and reads its own headers. */
export const RATE_LIMITS_PLAYBOOK = POLICIES_PLAYBOOK.replace(
  "verdicts:\n",
  `rate_limits:
  ledger: { tools: "ledger.*", limit: { requests: 10, per_ms: 1000 }, max_wait_ms: 1500, from_headers: github }
  search: { tools: "search.*", adaptive: aws }
  strict: { tools: "payments.*", limit: { requests: 5, per_ms: 1000 }, when_empty: fail, from_headers: { remaining: X-Left, reset: { name: X-Reset, epoch: ms } } }
verdicts:
`,
);

export const policiesProject = (playbook = POLICIES_PLAYBOOK): string =>
  tempProject({ "failbook.yaml": "registry: registry.yaml\nplaybook: playbook.yaml\n", "registry.yaml": POLICIES_REGISTRY, "playbook.yaml": playbook });

/** The lines of `explain CODE` under "Playbook action", wrapped at no width. */
export function playbookLines(dir: string, code: string): string[] {
  const r = failbook(["explain", code], { cwd: dir });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  const lines = r.stdout.split("\n");
  const start = lines.indexOf("Playbook action");
  return lines.slice(start + 1, lines.indexOf("", start)).map((l) => l.trim());
}

/** `render --format json` in a project, checked against schemas/render.schema.json. */
export function renderedJson<T>(dir: string): T {
  const doc = JSON.parse(failbook(["render", "--format", "json"], { cwd: dir }).stdout) as object;
  const ajv = new Ajv({ allErrors: true, strict: false });
  const valid = ajv.validate(JSON.parse(readFileSync(join(REPO, "schemas/render.schema.json"), "utf8")) as object, doc);
  expect(ajv.errors ?? []).toEqual([]);
  expect(valid).toBe(true);
  return doc as T;
}
