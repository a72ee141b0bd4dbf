/**
 * Rate limits in a storm (SPEC 22, issue 39 item 5), through `failbook storm` and `failbook
 * lint` as a user meets them: an upstream that enforces a limit answers 429 with a dialect's
 * headers past it, and its successful answers carry the quota too, which the playbook's
 * `from_headers` reads through the dispatcher; the report counts the client's paced waits
 * and refusals against the upstream's 429s; the example project's storm against its
 * unpaced baseline.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { failbook, REPO, tempProject } from "./helpers/cli.js";

type Dialect = "github" | "openai" | "anthropic" | "ietf";

const REGISTRY = `apiVersion: failbook/v1
kind: Registry
name: api
revision: 1
classes:
  throttling: { description: The API asked us to slow down. }
  pacing: { description: Our own rate limit refused the attempt before it was sent. }
  permanent: { description: Anything else. }
verdicts:
  - code: too_many_requests
    class: throttling
    retryable: true
    side_effect: none
    summary: The API's rate limit is spent until its reset.
    recovery: Wait for the reset.
    match:
      - { http_status: 429 }
  - code: paced_out
    class: pacing
    retryable: false
    side_effect: none
    summary: Our rate limit had no token within max_wait_ms.
    recovery: Try later.
    match:
      - { kind: rate_limited }
  - code: unknown_error
    class: permanent
    retryable: false
    side_effect: unknown
    summary: An error nobody recognised.
    recovery: Look at it.
fallback: unknown_error
`;

/** A playbook that fails a 429 at once; `dialect` gives it a rate limit that reads that dialect's headers (its own limit never binds). */
const playbook = (dialect?: Dialect) => `apiVersion: failbook/v1
kind: Playbook
name: ${dialect === undefined ? "unpaced" : `paced-${dialect}`}
escalation_queue: oncall
tools:
  "api.*": { idempotent: true }
${
  dialect === undefined
    ? ""
    : `rate_limits:
  api:
    tools: "api.*"
    limit: { requests: 1000, per_ms: 10000 }
    from_headers: ${dialect}
    when_empty: wait
    max_wait_ms: 2000
`
}verdicts:
  too_many_requests: { action: fail, message: the API refused }
  paced_out: { action: fail, message: no token in time }
  unknown_error: { action: escalate_to_human, queue: oncall }
`;

/** Ten calls a second against a limit of 50 each 10 s: half the calls are past it. */
const storm = (rateLimit: string, shared = "fleet") => `apiVersion: failbook/v1
kind: Storm
name: api-limit
seed: 5
duration_ms: 30000
step_ms: 1000
clients:
  count: 10
  shared: ${shared}
  arrival: { rate_per_s: 10 }
  calls:
    - { tool: api.list }
upstream:
  latency_ms: { base: 20 }
  rate_limit: ${rateLimit}
`;

function project(files: { storm: string; playbook: string; baseline?: string }): string {
  return tempProject({
    "failbook.yaml": "registry: registry.yaml\nplaybook: playbook.yaml\n",
    "registry.yaml": REGISTRY,
    "playbook.yaml": files.playbook,
    "storms/limit.yaml": files.storm,
    ...(files.baseline === undefined ? {} : { "baseline/failbook.yaml": "registry: registry.yaml\nplaybook: playbook.yaml\n", "baseline/registry.yaml": REGISTRY, "baseline/playbook.yaml": files.baseline }),
  });
}

interface RateLimitCost {
  waits: number;
  wait_ms: number;
  longest_wait_ms: number;
  refused: number;
  upstream_429: number;
}
interface Result {
  summary: { calls: number; attempts: number; succeeded: number };
  checks: { check: string; passed: boolean; actual: unknown; message: string }[];
  cost: { rate_limits: RateLimitCost; short_circuited: number; refused_retries: { breaker: number }; outcomes: { kind: string; reason: string | null; calls: number }[] };
  buckets: { attempt_errors: Record<string, number> }[];
}
interface Report {
  storms: { current: Result; baseline: Result | null; regressions: string[] }[];
}

function runJson(dir: string, ...args: string[]): Report {
  const r = failbook(["storm", "--format", "json", ...args], { cwd: dir });
  expect(r.stderr).toBe("");
  return JSON.parse(r.stdout) as Report;
}

describe("an upstream's rate limit in a storm", () => {
  it("answers 429 past its limit in each fixed window, counting every attempt that reaches it", () => {
    const report = runJson(project({ storm: storm("{ requests: 50, per_ms: 10000, headers: github }"), playbook: playbook() }));
    const r = report.storms[0].current;
    // An unpaced fleet: each call one attempt (a 429 fails at once); three windows of 50.
    expect(r.summary.attempts).toBe(r.summary.calls);
    expect(r.summary.succeeded).toBe(150);
    expect(r.cost.rate_limits.upstream_429).toBe(r.summary.calls - 150);
    expect(r.cost.rate_limits).toMatchObject({ waits: 0, refused: 0 });
    // Per bucket, as the upstream's attempt errors: none in a window's first seconds, all of them after its 50th attempt.
    const per = r.buckets.map((b) => b.attempt_errors["http 429"] ?? 0);
    expect(per[0]).toBe(0);
    expect(per[9]).toBeGreaterThan(5);
    expect(per[10]).toBe(0);
    expect(per.reduce((a, b) => a + b, 0)).toBe(r.cost.rate_limits.upstream_429);
  });

  // The paced playbook reads the dialect the upstream speaks: its successful answers' remaining
  // and reset correct the fleet's bucket through the dispatcher, so it stops at the limit and
  // sends nothing the upstream would refuse. Without the quota on successful answers it would
  // learn only from a 429 (one a window); with a dialect it cannot read, from none.
  it.each(["github", "openai", "anthropic", "ietf"] as const)("answers in the %s dialect, which from_headers reads: a paced fleet gets no 429", (dialect) => {
    const dir = project({ storm: storm(`{ requests: 50, per_ms: 10000, headers: ${dialect} }`), playbook: playbook(dialect), baseline: playbook() });
    const entry = runJson(dir, "--against", "baseline").storms[0];
    const [paced, unpaced] = [entry.current, entry.baseline!];
    expect(paced.cost.rate_limits.upstream_429).toBe(0);
    // Every attempt sent succeeds: 50 a window, and the calls that waited for the run's last reset go in the drain's window.
    expect(paced.summary.succeeded).toBe(paced.summary.attempts);
    // The calls past the limit wait for the reset (at most max_wait_ms) or are refused unsent.
    expect(paced.cost.rate_limits.waits).toBeGreaterThan(0);
    expect(paced.cost.rate_limits.longest_wait_ms).toBeLessThanOrEqual(2000);
    expect(paced.cost.rate_limits.refused).toBe(paced.summary.calls - paced.summary.attempts);
    expect(paced.summary.attempts).toBeGreaterThanOrEqual(150);
    expect(paced.summary.attempts).toBeLessThanOrEqual(200);
    expect(unpaced.cost.rate_limits.upstream_429).toBe(unpaced.summary.calls - 150);
    expect(unpaced.cost.rate_limits.upstream_429).toBeGreaterThan(100);
  });

  it("a paced fleet that reads another dialect than the upstream speaks hears nothing, and is refused as often as an unpaced one", () => {
    const dir = project({ storm: storm("{ requests: 50, per_ms: 10000, headers: openai }"), playbook: playbook("github") });
    const r = runJson(dir).storms[0].current;
    expect(r.cost.rate_limits.refused).toBe(0);
    expect(r.cost.rate_limits.upstream_429).toBe(r.summary.calls - 150);
  });

  it("with a dispatcher per client, each client learns the quota from its own answers: at most one 429 a client a window", () => {
    const dir = project({ storm: storm("{ requests: 50, per_ms: 10000, headers: github }", "client"), playbook: playbook("github") });
    const r = runJson(dir).storms[0].current;
    expect(r.cost.rate_limits.upstream_429).toBeGreaterThan(0);
    expect(r.cost.rate_limits.upstream_429).toBeLessThanOrEqual(10 * 3);
    expect(r.cost.rate_limits.refused).toBeGreaterThan(50);
  });
});

describe("the storm report counts paced waits, refusals and 429s side by side", () => {
  const dir = () => project({ storm: storm("{ requests: 50, per_ms: 10000, headers: github }"), playbook: playbook("github"), baseline: playbook() });

  it("in JSON: the waits (count, total, longest), the client's refusals and the upstream's 429s; a refusal is not a breaker's short-circuit", () => {
    const r = runJson(dir()).storms[0].current;
    const limits = r.cost.rate_limits;
    expect(Object.keys(limits)).toEqual(["waits", "wait_ms", "longest_wait_ms", "refused", "upstream_429"]);
    expect(limits.wait_ms).toBeGreaterThanOrEqual(limits.longest_wait_ms);
    expect(limits.longest_wait_ms).toBeGreaterThan(0);
    expect(r.cost.outcomes).toContainEqual(expect.objectContaining({ kind: "failed", calls: limits.refused }));
    // The dispatcher reports a refused attempt as short-circuited; the storm counts it as the rate limit's, not a breaker's.
    expect(r.cost.short_circuited).toBe(0);
    expect(r.cost.refused_retries.breaker).toBe(0);
  });

  it("in text: one line under the cost, and rows of the side by side with --against, more 429s marked", () => {
    const r = failbook(["storm", "--against", "baseline"], { cwd: dir() });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/rate limits: \d+ attempts paced \(waited [\d.]+ m?s in all, longest \d+ ms\), \d+ refused by the client's own limit; 0 answered 429 by the upstream/);
    expect(r.stdout).toMatch(/rate limits: 0 attempts paced, 0 refused by the client's own limit; \d+ answered 429 by the upstream/);
    expect(r.stdout).toMatch(/paced waits +\d+ \([\d.]+ m?s\) +0 /);
    expect(r.stdout).toMatch(/refused by own limit +\d+ +0 /);
    expect(r.stdout).toMatch(/429s from upstream +0 +\d{3} /);
    // The other way round, the unpaced playbook's 429s are a regression (exit 0: only a worse verdict fails).
    const back = failbook(["--config", "baseline", "storm", "storms/limit.yaml", "--against", "."], { cwd: dir() });
    expect(back.stdout).toMatch(/429s from upstream +\d{3} +0 +◀ regression/);
    expect(back.stdout).toMatch(/regressed: .*upstream 429s 0 -> \d{3}/);
  });

  it("in HTML: the rows in the summary table and the line under what the outage cost", () => {
    const html = failbook(["storm", "--format", "html", "--against", "baseline"], { cwd: dir() }).stdout;
    expect(html).toMatch(/<tr><th>paced waits<\/th><td>\d+ \([\d.]+ m?s\)<\/td><td>0<\/td>/);
    expect(html).toMatch(/<tr><th>429s from upstream<\/th><td>0<\/td><td>\d{3}<\/td>/);
    expect(html).toMatch(/<li>rate limits: \d+ attempts paced/);
  });

  it("expect max_upstream_429 fails naming the count and the bucket with the most", () => {
    const d = project({ storm: `${storm("{ requests: 50, per_ms: 10000, headers: github }")}expect:\n  max_upstream_429: 5\n`, playbook: playbook() });
    const r = failbook(["storm"], { cwd: d });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✗ expect max_upstream_429 5: the upstream answered \d{3} 429s, more than max_upstream_429 5 \(most at bucket \d+ \(\d+-\d+ ms\): \d+\)/);
    const paced = project({ storm: `${storm("{ requests: 50, per_ms: 10000, headers: github }")}expect:\n  max_upstream_429: 0\n`, playbook: playbook("github") });
    const ok = failbook(["storm"], { cwd: paced });
    expect(ok.stdout).toContain("✓ expect max_upstream_429 0");
    expect(ok.code).toBe(0);
  });
});

describe("failbook lint validates upstream.rate_limit with positions", () => {
  const base = storm("{ requests: 50, per_ms: 10000, headers: github }");
  it.each([
    { name: "zero requests", edit: "{ requests: 0, per_ms: 10000, headers: github }", at: "storms/limit.yaml:15:27", text: "'requests' must be >= 1, not 0" },
    { name: "negative requests", edit: "{ requests: -3, per_ms: 10000, headers: github }", at: "storms/limit.yaml:15:27", text: "'requests' must be >= 1, not -3" },
    { name: "a per_ms of 0", edit: "{ requests: 50, per_ms: 0, headers: github }", at: "storms/limit.yaml:15:39", text: "'per_ms' must be >= 1, not 0" },
    { name: "an unknown dialect", edit: "{ requests: 50, per_ms: 10000, headers: gitlab }", at: "storms/limit.yaml:15:55", text: "gitlab" },
    { name: "no per_ms", edit: "{ requests: 50 }", at: "storms/limit.yaml:15:3", text: "per_ms" },
    { name: "a misspelt key", edit: "{ requets: 50, per_ms: 10000 }", at: "storms/limit.yaml:15:17", text: "did you mean 'requests'" },
  ])("$name", ({ edit, at, text }) => {
    const dir = project({ storm: base.replace("{ requests: 50, per_ms: 10000, headers: github }", edit), playbook: playbook("github") });
    const lint = failbook(["lint", "--format", "json"], { cwd: dir });
    expect(lint.code).toBe(1);
    const findings = (JSON.parse(lint.stdout) as { findings: { rule: string; file: string; line: number; column: number; message: string }[] }).findings.filter((f) => f.rule === "schema");
    // One line each, on the rate limit's line (a misspelt key is also a missing one).
    expect(findings.every((f) => f.file === "storms/limit.yaml" && f.line === 15), lint.stdout).toBe(true);
    const found = findings.find((f) => `${f.file}:${f.line}:${f.column}` === at);
    expect(found, lint.stdout).toBeDefined();
    expect(found!.message).toContain(text);
    const run = failbook(["storm"], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${at} error`);
  });

  it("warns when the registry classifies the upstream's 429 only by its fallback", () => {
    const dir = project({ storm: base, playbook: playbook("github") });
    writeFileSync(join(dir, "registry.yaml"), REGISTRY.replace("      - { http_status: 429 }", "      - { http_status: 503 }"));
    const lint = failbook(["lint", "--format", "json"], { cwd: dir });
    const found = (JSON.parse(lint.stdout) as { findings: { rule: string; file: string; line: number; column: number; message: string }[] }).findings.find((f) => f.rule === "storm-error-unclassified");
    expect(found, lint.stdout).toBeDefined();
    expect(`${found!.file}:${found!.line}:${found!.column}`).toBe("storms/limit.yaml:15:3");
    expect(found!.message).toContain("the upstream's error 'http 429' classifies to the fallback verdict 'unknown_error'");
  });
});

describe("examples/github-rate-limit: a fleet past GitHub's limit, paced and unpaced", () => {
  const args = ["--config", "examples/github-rate-limit", "storm", "--against", "examples/github-rate-limit/baseline"];

  it("the unpaced fleet hammers 429s; the paced one stays under the limit, and its expect pins it", () => {
    const r = failbook(args, { cwd: REPO });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("✓ expect max_upstream_429 40");
    expect(r.stdout).toContain("no regression against the baseline");
    const report = JSON.parse(failbook([...args, "--format", "json"], { cwd: REPO }).stdout) as Report;
    const [paced, unpaced] = [report.storms[0].current, report.storms[0].baseline!];
    expect(paced.cost.rate_limits.upstream_429).toBeLessThanOrEqual(40);
    expect(unpaced.cost.rate_limits.upstream_429).toBeGreaterThan(10_000);
    expect(unpaced.checks).toEqual([expect.objectContaining({ check: "max_upstream_429", passed: false })]);
    expect(paced.cost.rate_limits.refused).toBeGreaterThan(10_000);
    expect(paced.cost.rate_limits.waits).toBeGreaterThan(0);
  });

  it("the same seed gives the same report, byte for byte", () => {
    const json = () => failbook([...args, "--format", "json"], { cwd: REPO }).stdout;
    const first = json();
    expect(json()).toBe(first);
    const other = failbook([...args, "--format", "json", "--seed", "2"], { cwd: REPO }).stdout;
    expect(other).not.toBe(first);
  });

  it("the README shows the command that runs it", () => {
    expect(readFileSync(join(REPO, "examples/github-rate-limit/README.md"), "utf8")).toContain(`npx failbook ${args.join(" ")}`);
  });
});
