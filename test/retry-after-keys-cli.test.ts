/**
 * SPEC 18 end to end, through `failbook simulate`: a project modelling Azure's throttling
 * (a 429 is retried only when it carries a valid hint: `retry_after: present`; its backoff
 * is c/2 + floor(r·(c/2 + 1)): an integer jitter), gRPC's pushback (`mode: exact`, a negative
 * pushback gives up: `invalid: give_up`) and exact decimal seconds. The delays are pinned by
 * the fixtures' seeds.
 */
import { describe, expect, it } from "vitest";
import { failbook, tempProject } from "./helpers/cli.js";

const REGISTRY = `apiVersion: failbook/v1
kind: Registry
name: hints
revision: 1
classes: { throttling: { description: Slow down. }, transient: { description: Try again. }, client: { description: Fix it. } }
error_fields: { pushback_ms: { type: number } }
verdicts:
  - { code: throttled, class: throttling, retryable: true, summary: Throttled with a hint., recovery: Wait it out., match: [{ http_status: 429, retry_after: present }] }
  - { code: throttled_no_hint, class: client, retryable: false, summary: A 429 with no hint., recovery: Surface it., match: [{ http_status: 429 }] }
  - { code: pushback, class: transient, retryable: true, summary: gRPC asked to wait., recovery: Wait exactly., match: [{ kind: unavailable }] }
  - { code: network, class: transient, retryable: true, summary: A network failure., recovery: Retry., match: [{ kind: network, not: { cause: { kind: AbortError } } }] }
  - { code: other, class: client, retryable: false, summary: Anything else., recovery: Look. }
fallback: other
`;

const PLAYBOOK = `apiVersion: failbook/v1
kind: Playbook
name: hints
verdicts:
  throttled:
    action: retry_with_backoff
    max_retries: 3
    backoff: { strategy: exponential, base_ms: 800, cap_ms: 64000, jitter: { min: 0.5, max: 1, integer: true } }
    retry_after: { headers: [retry-after-ms, x-ms-retry-after-ms, retry-after], parse: number }
  throttled_no_hint: { action: fail }
  pushback:
    action: retry_with_backoff
    max_retries: 3
    backoff_ms: [1000, 1000, 1000]
    retry_after: { headers: [grpc-retry-pushback-ms], fields: [pushback_ms], mode: exact, invalid: give_up }
  network:
    action: retry_with_backoff
    max_retries: 3
    backoff: { strategy: exponential, base_ms: 800, cap_ms: 64000, jitter: { min: 0.5, max: 1, integer: true } }
  other: { action: fail }
`;

const fixture = (name: string, seed: number, responses: string, expect: string) => `apiVersion: failbook/v1
kind: Fixture
name: ${name}
seed: ${seed}
call: { id: c, tool: azure.blob }
responses:
${responses}
expect:
${expect}
`;

const FIXTURES = {
  "throttled.yaml": fixture(
    "a-429-with-a-decimal-hint-waits-it-exactly",
    1,
    "  - { status: error, error: { kind: http, http_status: 429, headers: { retry-after: '2.03' } } }\n  - { status: ok }",
    "  outcome: recovered\n  verdict: throttled\n  delays_ms: [2030]",
  ),
  "no-hint.yaml": fixture("a-429-without-a-hint-is-not-retried", 1, "  - { status: error, error: { kind: http, http_status: 429, headers: { retry-after: soon } } }", "  outcome: failed\n  verdict: throttled_no_hint"),
  "jitter.yaml": fixture(
    "integer-jitter-draws-whole-milliseconds",
    7,
    "  - { status: error, error: { kind: network } }\n  - { status: error, error: { kind: network } }\n  - { status: error, error: { kind: network } }\n  - { status: ok }",
    "  outcome: recovered\n  verdict: network\n  delays_ms: [DELAYS]",
  ),
  "abort.yaml": fixture("an-abort-underneath-is-not-retried", 1, "  - { status: error, error: { kind: network, cause: { kind: socket, cause: { kind: AbortError } } } }", "  outcome: failed\n  verdict: other"),
  "pushback.yaml": fixture(
    "grpc-pushback-is-waited-exactly-and-a-negative-one-gives-up",
    1,
    "  - { status: error, error: { kind: unavailable, headers: { grpc-retry-pushback-ms: '20' } } }\n  - { status: error, error: { kind: unavailable, fields: { pushback_ms: 5 } } }\n  - { status: error, error: { kind: unavailable, headers: { grpc-retry-pushback-ms: '-1' } } }\n  - { status: ok }",
    "  outcome: exhausted\n  reason: retry_after_invalid\n  attempts: 3\n  delays_ms: [20, 5]",
  ),
};

/** Azure's exponentialRetryPolicy: c = min(cap, base·2^n), then c/2 + floor(r·(c/2 + 1)). */
const azureDelay = (n: number, r: number) => {
  const c = Math.min(64000, 800 * 2 ** n);
  return c / 2 + Math.floor(r * (Math.floor(c / 2) + 1));
};

function project(jitterDelays: number[]) {
  return tempProject({
    "failbook.yaml": "registry: registry.yaml\nplaybook: playbook.yaml\nfixtures: [fixtures]\n",
    "registry.yaml": REGISTRY,
    "playbook.yaml": PLAYBOOK,
    ...Object.fromEntries(Object.entries(FIXTURES).map(([file, text]) => [`fixtures/${file}`, text.replace("DELAYS", jitterDelays.join(", "))])),
  });
}

describe("failbook simulate with the retry_after keys of SPEC 18", () => {
  it("runs every fixture to its golden: present, not:, exact decimals, exact pushback, give_up, integer jitter", async () => {
    // The seeded draws the dispatcher's jitter takes, through Azure's own formula.
    const { seededRandom } = await import("failbook-runtime/engine/random.js");
    const random = seededRandom(7);
    const expected = [0, 1, 2].map((n) => azureDelay(n, random()));
    const dir = project(expected);
    const r = failbook(["simulate", "--format", "json"], { cwd: dir });
    expect(r.stderr).toBe("");
    const results = (JSON.parse(r.stdout) as { results: { fixture: string; passed?: boolean; ok?: boolean; events: { type: string; delay_ms?: number }[] }[] }).results;
    const delays = (name: string) => results.find((x) => x.fixture === name)!.events.flatMap((e) => (e.type === "retry_scheduled" ? [e.delay_ms] : []));
    expect(delays("integer-jitter-draws-whole-milliseconds")).toEqual(expected);
    expect(delays("a-429-with-a-decimal-hint-waits-it-exactly")).toEqual([2030]);
    expect(r.code).toBe(0);
  });

  it("a golden pinned to other jitter delays fails, with exit 1", () => {
    const r = failbook(["simulate"], { cwd: project([400, 800, 1600]) });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/integer-jitter-draws-whole-milliseconds/);
  });

  it("lint finds a retry_after field the registry does not declare, located", () => {
    const dir = tempProject({
      "failbook.yaml": "registry: registry.yaml\nplaybook: playbook.yaml\n",
      "registry.yaml": REGISTRY,
      "playbook.yaml": PLAYBOOK.replace("fields: [pushback_ms]", "fields: [pushback_msx]"),
    });
    const r = failbook(["lint"], { cwd: dir });
    expect(r.stdout).toMatch(/playbook\.yaml:\d+:\d+.*retry_after field 'pushback_msx' is not declared in the registry's error_fields.*did you mean 'pushback_ms'/);
    expect(r.code).toBe(1);
  });

  it("new fixture scaffolds a verdict whose rule needs a hint from a header only the playbook lists", () => {
    // x-ms-retry-after-ms is no default hint header: the scaffold must classify with the playbook's retry_after.
    const registry = REGISTRY.replace(
      "match: [{ http_status: 429, retry_after: present }] }",
      'match: [{ http_status: 429, retry_after: present }], examples: [{ kind: http, http_status: 429, headers: { x-ms-retry-after-ms: "250" } }] }',
    );
    const dir = tempProject({ "failbook.yaml": "registry: registry.yaml\nplaybook: playbook.yaml\nfixtures: [fixtures]\n", "registry.yaml": registry, "playbook.yaml": PLAYBOOK, "fixtures/.keep": "" });
    const r = failbook(["new", "fixture", "--verdict", "throttled"], { cwd: dir });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(failbook(["simulate"], { cwd: dir }).code).toBe(0);
  });

  it("an empty not: is a located finding", () => {
    const dir = tempProject({
      "failbook.yaml": "registry: registry.yaml\nplaybook: playbook.yaml\n",
      "registry.yaml": REGISTRY.replace("not: { cause: { kind: AbortError } }", "not: {}"),
      "playbook.yaml": PLAYBOOK,
    });
    const r = failbook(["lint"], { cwd: dir });
    expect(r.stdout).toMatch(/registry\.yaml:\d+:\d+.*'not' must have at least 1 key/);
    expect(r.code).toBe(1);
  });
});
