/**
 * SPEC 12 through the CLI: headers, declared error fields and causes in `classify`; the
 * Retry-After policy and the retry quota in `explain` and the worst case; declared fields in
 * `render` and in the generated bindings.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import Ajv from "ajv";
import { failbook, REPO, tempProject } from "./helpers/cli.js";

const REGISTRY = `apiVersion: failbook/v1
kind: Registry
name: payments
revision: 1
classes:
  transient: { description: Worth another try. }
  throttling: { description: Slow down. }
  permanent: { description: Will not work. }
error_fields:
  decline_code: { type: string, description: The card network's reason. }
  errno: { type: integer }
verdicts:
  - code: server_says_no_retry
    class: permanent
    retryable: false
    summary: The server said not to retry.
    recovery: Follow the playbook.
    match:
      - headers: { X-Should-Retry: "false" }
    examples:
      - { kind: api_error, http_status: 500, headers: { x-should-retry: "false" } }
  - code: card_declined
    class: permanent
    retryable: false
    summary: The card was declined.
    recovery: Follow the playbook.
    match:
      - fields: { decline_code: [insufficient_funds, do_not_honor] }
    examples:
      - { kind: card_error, http_status: 402, fields: { decline_code: insufficient_funds } }
  - code: socket_reset
    class: transient
    retryable: true
    side_effect: none
    summary: The connection dropped before the request was sent.
    recovery: Follow the playbook.
    match:
      - cause: { kind: ECONNRESET }
    examples:
      - { kind: fetch_failed, cause: { kind: ECONNRESET, fields: { errno: -104 } } }
  - code: throttled
    class: throttling
    retryable: true
    side_effect: none
    summary: Too many requests.
    recovery: Follow the playbook.
    match:
      - http_status: 429
    examples:
      - { kind: api_error, http_status: 429, headers: { retry-after-ms: "1500" } }
  - code: unknown_error
    class: permanent
    retryable: false
    summary: Nothing matched.
    recovery: Follow the playbook.
    examples:
      - { kind: api_error, http_status: 400 }
fallback: unknown_error
`;

const PLAYBOOK = `apiVersion: failbook/v1
kind: Playbook
name: payments
retry_after: { headers: [retry-after-ms, retry-after], max_ms: 20000, above_max: give_up }
backoff_index: per_call
retry_quota: { capacity: 20, cost: 5, cost_by_class: { throttling: 10 } }
on_unknown_side_effect: { queue: oncall }
verdicts:
  server_says_no_retry: { action: fail }
  card_declined: { action: escalate_to_human, queue: billing }
  socket_reset: { action: retry_with_backoff, max_retries: 3, backoff: { strategy: exponential, base_ms: 100, jitter: 0.25 } }
  throttled: { action: retry_with_backoff, max_retries: 5, backoff: { strategy: constant, base_ms: 1000 }, retry_after: { mode: replace, max_ms: 60000, above_max: cap } }
  unknown_error: { action: escalate_to_human, queue: triage }
`;

const OUTAGE = `apiVersion: failbook/v1
kind: Fixture
name: outage-drains-the-shared-quota
waves:
  - calls:
      - call: { id: a, tool: charge }
        responses:
          - { status: error, error: { kind: api_error, http_status: 429 } }
          - { status: error, error: { kind: api_error, http_status: 429 } }
          - { status: error, error: { kind: api_error, http_status: 429 } }
          - { status: ok }
      - call: { id: b, tool: charge }
        responses:
          - { status: error, error: { kind: api_error, http_status: 429 } }
          - { status: ok }
  - calls:
      - call: { id: c, tool: charge }
        responses:
          - { status: ok }
      - call: { id: d, tool: charge }
        responses:
          - { status: error, error: { kind: api_error, http_status: 429 } }
          - { status: ok }
`;

const project = (fixtures: Record<string, string> = {}) =>
  tempProject({ "failbook.yaml": "registry: registry.yaml\nplaybook: playbook.yaml\nfixtures: [fixtures]\n", "registry.yaml": REGISTRY, "playbook.yaml": PLAYBOOK, "fixtures/.keep": "", ...fixtures });

describe("classify: headers, declared fields and causes (SPEC 12)", () => {
  const dir = project();

  it("the project itself lints clean", () => {
    const r = failbook(["lint"], { cwd: dir });
    expect(r.stdout).toBe("no problems found\n");
    expect(r.code).toBe(0);
  });
  const classify = (error: object, ...more: string[]) => failbook(["classify", "--error", JSON.stringify(error), ...more], { cwd: dir });

  it.each([
    [{ kind: "api_error", http_status: 500, headers: { "x-should-retry": "false" } }, "server_says_no_retry"],
    [{ kind: "api_error", headers: { "X-SHOULD-RETRY": "true" } }, "unknown_error"],
    [{ kind: "card_error", fields: { decline_code: "do_not_honor" } }, "card_declined"],
    [{ kind: "card_error", fields: { decline_code: "expired_card" } }, "unknown_error"],
    [{ kind: "sdk_error", cause: { kind: "wrapper", cause: { kind: "ECONNRESET" } } }, "socket_reset"],
    [{ kind: "ECONNRESET" }, "unknown_error"],
  ])("%j is %s", (error, verdict) => {
    const r = classify(error, "--format", "json");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).verdict).toBe(verdict);
  });

  it("warns, on stderr, about a field the registry does not declare and about a mistyped one, and still classifies", () => {
    const r = classify({ kind: "card_error", fields: { declineCode: "do_not_honor", errno: "ECONNRESET" } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^verdict\s+unknown_error /m);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^failbook: warning: --error field "fields\.declineCode" is not declared in the registry's error_fields, so classify ignores it; declare it under error_fields \(registry\.yaml:9:1\) or drop it$/);
    expect(lines[1]).toContain('field "fields.errno" is "ECONNRESET", but the registry declares errno as integer');
  });

  it("shows the Retry-After hint a retried verdict's error carries, as the policy in force reads it", () => {
    const r = classify({ kind: "rate_limited", http_status: 429, headers: { "Retry-After": "7" } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^hint\s+the server asks for 7000 ms\s+\(retry-after-ms, then retry-after, then the error's retry_after_ms; the hint replaces the backoff; at most 1 min, above it wait the maximum\)$/m);
    const unreadable = classify({ kind: "rate_limited", http_status: 429, headers: { "retry-after": "soon" } }, "--format", "json");
    expect(JSON.parse(unreadable.stdout).retry_after).toMatchObject({ hint_ms: null, unreadable: [{ header: "retry-after", value: "soon" }] });
  });

  it("says when the hint makes the dispatch give up: above max_ms with above_max: give_up it ends exhausted, not retried", () => {
    const reset = (seconds: string) => ({ kind: "sdk_error", cause: { kind: "ECONNRESET" }, headers: { "retry-after": seconds } });
    const r = classify(reset("45"));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^verdict\s+socket_reset /m);
    expect(r.stdout).toMatch(/^hint\s+the server asks for 45000 ms, above max_ms with above_max: give_up, so the dispatch ends exhausted \(retry_after_too_long\) instead of retrying\s+\(.*at most 20 s, above it give up\)$/m);
    expect(JSON.parse(classify(reset("45"), "--format", "json").stdout).retry_after).toMatchObject({ hint_ms: 45000, gives_up: true });
    const within = classify(reset("7"));
    expect(within.stdout).toMatch(/^hint\s+the server asks for 7000 ms\s+\(/m);
    expect(JSON.parse(classify(reset("7"), "--format", "json").stdout).retry_after).toMatchObject({ hint_ms: 7000, gives_up: false });
  });

  it.each([
    [{ kind: "x", headers: { "retry-after": 5 } }, `--error field "headers.retry-after": 'retry-after' must be a string, not 5`],
    [{ kind: "x", headers: ["retry-after"] }, "--error: 'headers' must be a mapping, not a list"],
    [{ kind: "x", fields: { errno: { nested: 1 } } }, `--error field "fields.errno": 'errno' must be a string, a number or true or false, not a mapping`],
    [{ kind: "x", cause: { message: "no kind" } }, `--error: 'cause' is missing 'kind'`],
    [{ kind: "x", cause: { kind: "y", surprise: 1 } }, `--error field "cause.surprise": unknown key 'surprise' in 'cause'`],
    [{ kind: "x", http_status: 1000 }, "--error: 'http_status' must be <= 999, not 1000"],
  ])("%j is one clear line and exit 2", (error, message) => {
    const r = classify(error);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(message);
  });

  it("refuses a cause chain deeper than 8 errors", () => {
    let error: Record<string, unknown> = { kind: "k" };
    for (let i = 0; i < 8; i++) error = { kind: "k", cause: error };
    const r = classify(error);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("nests deeper than 8 errors");
  });
});

describe("explain and the worst case show Retry-After and the quota (SPEC 12)", () => {
  const dir = project();

  it("a retried verdict: the policy in force (the action's own), the per-call index and the quota", () => {
    const r = failbook(["explain", "throttled"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("retries capped by the retry quota (a full bucket)");
    expect(r.stdout).toContain("at most 3 attempts");
    expect(r.stdout).toContain("a server's Retry-After hint can stretch each wait to 1 min (a longer hint is capped)");
    expect(r.stdout).toContain("each retry takes 10 tokens of a shared quota of 20, enough for 2 retries when nothing refills it");
    expect(r.stdout).toContain("retry after (this action's own): retry-after-ms, then retry-after, then the error's retry_after_ms; the hint replaces the backoff; at most 1 min, above it wait the maximum");
    expect(r.stdout).toContain("backoff index: per call");
    expect(r.stdout).toContain("retry quota: 20 tokens shared by every call; a retry costs 5, 10 for class throttling; gives back 1 on a first-try success and the last retry's cost on recovery");
  });

  it("the playbook's own policy applies where the action sets none", () => {
    const r = failbook(["explain", "socket_reset"], { cwd: dir });
    expect(r.stdout).toContain("retry after: retry-after-ms, then retry-after, then the error's retry_after_ms; the longer of hint and backoff; at most 20 s, above it give up");
    expect(r.stdout).toContain("a server's Retry-After hint can stretch each wait to 20 s (a longer hint gives up)");
    expect(r.stdout).toContain("enough for 4 retries");
  });

  it("budgets.retries_per_call caps the worst case, and ms_headers are read as milliseconds", () => {
    const playbook = PLAYBOOK.replace("backoff_index: per_call", "backoff_index: per_call\nbudgets: { retries_per_call: 1 }").replace(
      "retry_after: { headers: [retry-after-ms, retry-after],",
      "retry_after: { headers: [x-amz-retry-after, retry-after], ms_headers: [x-amz-retry-after],",
    );
    const r = failbook(["explain", "socket_reset"], { cwd: project({ "playbook.yaml": playbook }) });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("at most 2 attempts");
    expect(r.stdout).toContain("retries capped by budgets.retries_per_call");
    expect(r.stdout).toContain("retry after: x-amz-retry-after (ms), then retry-after, then the error's retry_after_ms");
  });

  it("render json carries the error fields, the policies and the bounds; markdown and HTML list the fields", () => {
    const json = JSON.parse(failbook(["render", "--format", "json"], { cwd: dir }).stdout);
    const validate = new Ajv.default({ allErrors: true, strict: true, strictTypes: false }).compile(JSON.parse(readFileSync(join(REPO, "schemas/render.schema.json"), "utf8")) as object);
    expect(validate(json), JSON.stringify(validate.errors)).toBe(true);
    expect(json.error_fields).toEqual([
      { name: "decline_code", type: "string", description: "The card network's reason." },
      { name: "errno", type: "integer", description: null },
    ]);
    expect(json.playbook).toMatchObject({ backoff_index: "per_call", retry_quota: { capacity: 20 }, retry_after: { max_ms: 20000, above_max: "give_up" } });
    const throttled = json.codes.find((c: { code: string }) => c.code === "throttled");
    expect(throttled.worst_case).toMatchObject({ retries: 2, limited_by: "retry_quota", quota: { capacity: 20, cost: 10, retries: 2 }, retry_after: { honored: true, max_wait_ms: 60000, mode: "replace", above_max: "cap" } });
    const md = failbook(["render", "--format", "md"], { cwd: dir }).stdout;
    expect(md).toContain("## Error fields");
    expect(md).toContain("| `decline_code` | string | The card network's reason. |");
    const html = failbook(["render", "--format", "html"], { cwd: dir }).stdout;
    expect(html).toContain("<h2>Error fields</h2>");
    expect(html).toContain("<dt><code>errno</code> <span class=\"muted\">integer</span></dt>");
  });

  it("gen ts types AdapterError.fields by the declared fields and lists them in ERROR_FIELDS", () => {
    const r = failbook(["gen", "ts", "--out", "bindings.ts"], { cwd: dir });
    expect(r.code).toBe(0);
    const text = readFileSync(join(dir, "bindings.ts"), "utf8");
    expect(text).toContain("export type ErrorFields = {");
    expect(text).toMatch(/readonly decline_code\?: string \| undefined;/);
    expect(text).toMatch(/readonly errno\?: number \| undefined;/);
    expect(text).toContain('export const ERROR_FIELDS = [\n  "decline_code",\n  "errno",\n] as const;');
    expect(text).toContain("readonly fields?: ErrorFields | undefined;");
  });
});

describe("one retry quota shared by the calls of a waves fixture (SPEC 12)", () => {
  it("an outage drains it: later calls' retries are refused, and a first-try success gives back only its refund", () => {
    const dir = project({ "fixtures/outage.yaml": OUTAGE });
    const r = failbook(["simulate", "--format", "json"], { cwd: dir });
    const result = JSON.parse(r.stdout).results[0];
    const calls = result.outcome.calls.map((c: { id: string; kind: string; reason: string | null }) => [c.id, c.kind, c.reason]);
    expect(calls).toEqual([
      ["a", "exhausted", "retry_quota"],
      ["b", "exhausted", "retry_quota"],
      ["c", "succeeded", null],
      ["d", "exhausted", "retry_quota"],
    ]);
    const drained = result.events.filter((e: { type: string }) => e.type === "retry_quota_exhausted").map((e: { tokens: number; cost: number }) => [e.cost, e.tokens]);
    expect(drained).toEqual([[10, 0], [10, 0], [10, 1]]);
    const text = failbook(["simulate"], { cwd: dir }).stdout;
    expect(text).toContain("retry quota exhausted: the retry costs 10, 1 token left");
  });

  it("quota: { tokens } starts a fixture from a drained bucket", () => {
    const drained = OUTAGE.replace("waves:", "quota: { tokens: 0 }\nwaves:");
    const dir = project({ "fixtures/outage.yaml": drained });
    const result = JSON.parse(failbook(["simulate", "--format", "json"], { cwd: dir }).stdout).results[0];
    expect(result.outcome.calls[0]).toMatchObject({ id: "a", kind: "exhausted", reason: "retry_quota", attempts: 1 });
  });
});

describe("mistakes in the SPEC 12 keys are located findings, never a crash", () => {
  it.each([
    ["a header rule with a non-string value", "registry.yaml", REGISTRY.replace('X-Should-Retry: "false"', "X-Should-Retry: false"), "X-Should-Retry: false", "false"],
    ["a field of the wrong declared type", "registry.yaml", REGISTRY.replace("decline_code: [insufficient_funds, do_not_honor]", "decline_code: [insufficient_funds, 42]"), "42]", "42"],
    ["a field no one declared", "registry.yaml", REGISTRY.replace("decline_code: [insufficient_funds, do_not_honor]", "declineCode: do_not_honor"), "declineCode", "declineCode"],
    ["an unknown error field type", "registry.yaml", REGISTRY.replace("errno: { type: integer }", "errno: { type: int }"), "type: int", "int"],
    ["a quota with zero capacity", "playbook.yaml", PLAYBOOK.replace("capacity: 20", "capacity: 0"), "capacity: 0", "0"],
    ["a quota with a negative cost", "playbook.yaml", PLAYBOOK.replace("throttling: 10", "throttling: -1"), "throttling: -1", "-1"],
    ["a retry_after with an unknown above_max", "playbook.yaml", PLAYBOOK.replace("above_max: give_up", "above_max: wait"), "above_max: wait", "wait"],
    ["jitter above 1", "playbook.yaml", PLAYBOOK.replace("jitter: 0.25", "jitter: 1.5"), "jitter: 1.5", "1.5"],
    ["a message_matches that can backtrack exponentially", "registry.yaml", REGISTRY.replace("      - http_status: 429", "      - message_matches: '^(a+)+$'"), "message_matches", "'"],
  ])("%s", (_what, file, text, snippet, value) => {
    // The finding stands at the offending value: on the line holding `snippet`, where `value` starts.
    const lines = text.split("\n");
    const line = lines.findIndex((l) => l.includes(snippet)) + 1;
    const where = `${file}:${line}:${lines[line - 1].indexOf(value, lines[line - 1].indexOf(snippet)) + 1}`;
    const dir = project({ [file]: text });
    const r = failbook(["lint", "--format", "json"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const errors = JSON.parse(r.stdout).findings.filter((f: { severity: string }) => f.severity === "error");
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.map((f: { file: string; line: number; column: number }) => `${f.file}:${f.line}:${f.column}`)).toContain(where);
  });

  it("a retry-after that is neither a number nor a date counts as absent, with an event saying so", () => {
    const fixture = `apiVersion: failbook/v1
kind: Fixture
name: unreadable-hint
call: { id: c1, tool: charge }
responses:
  - { status: error, error: { kind: api_error, http_status: 429, headers: { Retry-After: soon } } }
  - { status: ok }
`;
    const dir = project({ "fixtures/hint.yaml": fixture });
    const result = JSON.parse(failbook(["simulate", "--format", "json"], { cwd: dir }).stdout).results[0];
    expect(result.outcome.kind).toBe("recovered");
    expect(result.events.find((e: { type: string }) => e.type === "retry_after_unreadable")).toEqual({ type: "retry_after_unreadable", t: 0, header: "retry-after", value: "soon" });
    expect(result.outcome.elapsed_ms).toBe(1000);
  });
});
