/** `failbook classify`: verdict, the rule that matched (with its position) or the fallback, and the action. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { VirtualClock } from "failbook-runtime/engine/clock.js";
import { createDispatcher } from "failbook-runtime/engine/dispatch.js";
import { loadProject } from "../src/load/project.js";
import type { AdapterError } from "failbook-runtime/model/fixture.js";
import { failbook, REPO } from "./helpers/cli.js";

const REGISTRY = readFileSync(join(REPO, "playbooks/registry.yaml"), "utf8").split("\n");
/** 1-based line and column of the first line of the registry matching `re` (after `from`). */
function at(re: RegExp, from?: RegExp): string {
  const start = from ? REGISTRY.findIndex((l) => from.test(l)) : 0;
  const i = REGISTRY.findIndex((l, n) => n >= start && re.test(l));
  return `playbooks/registry.yaml:${i + 1}:${REGISTRY[i].search(/\S/) + 3}`;
}

describe("failbook classify", () => {
  it.each([
    ['{"kind":"409_conflict","provider_code":"idempotency_key_in_use","message":"idempotency_key already processed"}', undefined, "idempotency_conflict", at(/- kind: 409_conflict/), "deprecate_tool_call"],
    ['{"kind":"timeout"}', undefined, "transient_timeout", at(/- kind: timeout/), "retry_with_backoff"],
    ['{"kind":"timeout","side_effect_state":"committed"}', undefined, "write_committed", at(/- side_effect_state: committed/), "deprecate_tool_call"],
    ['{"kind":"403_forbidden","provider_code":"insufficient_scope"}', "github.create_issue", "permission_denied", at(/- kind: 403_forbidden/, /code: permission_denied/), "escalate_to_human"],
  ])("%s -> the rule that matched, with its position", (error, tool, verdict, position, action) => {
    const r = failbook(["classify", "--error", error, ...(tool ? ["--tool", tool] : [])]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^verdict\\s+${verdict} `, "m"));
    expect(r.stdout).toMatch(new RegExp(`^matched\\s+${position.replace(/\./g, "\\.")} `, "m"));
    expect(r.stdout).toMatch(new RegExp(`^action\\s+${action}`, "m"));
  });

  it.each(['{"kind":"something_new"}', "null"])("%s gets the registry's fallback", (error) => {
    const r = failbook(["classify", "--error", error]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^verdict\s+unknown_error /m);
    expect(r.stdout).toMatch(/^matched\s+no rule matched; the registry's fallback applies playbooks\/registry\.yaml:\d+:\d+/m);
    expect(r.stdout).toMatch(/^action\s+escalate_to_human \{ queue: triage \}/m);
  });

  it("--format json names the verdict, the rule's position and the action", () => {
    const r = failbook(["classify", "--error", '{"kind":"429_rate_limited"}', "--format", "json"]);
    expect(r.code).toBe(0);
    const [file, line, column] = at(/- kind: 429_rate_limited/).split(":");
    expect(JSON.parse(r.stdout)).toMatchObject({
      verdict: "rate_limited",
      fallback: false,
      rule: { index: 0, file, line: Number(line), column: Number(column) },
      class: "transient",
      retryable: true,
      action: { action: "retry_with_backoff", max_retries: 2 },
    });
  });

  it.each([
    ["{kind", "--error is not valid JSON (at character 2)"],
    ["[1, 2]", "--error must be a JSON object (an adapter error), not a list"],
    ['{"message":"x"}', "--error: the adapter error is missing 'kind'"],
    ['{"kind":"x","http_status":"500"}', "--error: 'http_status' must be an integer, not '500'"],
    ['{"kind":"x","retry_after_ms":-5}', "--error: 'retry_after_ms' must be >= 0, not -5"],
    ['{"kind":"x","side_effect":"none"}', "--error: unknown key 'side_effect' in the adapter error; did you mean 'side_effect_state'? For example --error '{"],
    ['{"kind":"x","status":500}', "--error: unknown key 'status' in the adapter error; did you mean 'http_status'? For example --error '{"],
  ])("%s is one clear line and exit 2", (error, message) => {
    const r = failbook(["classify", "--error", error]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(message);
    // One mark between clauses, never two ("?; for example").
    expect(r.stderr).not.toMatch(/[?.;:,] ?[?.;:,]/);
  });

  it("without --error it says so (exit 2)", () => {
    const r = failbook(["classify"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--error");
  });

  // The shipped playbook marks legacy_payment_rail.* idempotent: false and escalates an
  // unknown side effect to oncall; each row is checked against the dispatcher itself.
  it.each([
    ["a timeout from an idempotent tool", { kind: "timeout" }, "search.query", true],
    ["a timeout from a non-idempotent tool", { kind: "timeout" }, "legacy_payment_rail.charge", false],
    ["a refused connection from a non-idempotent tool", { kind: "connection_refused" }, "legacy_payment_rail.charge", false],
    ["a Retry-After beyond the retry_seconds budget", { kind: "429_rate_limited", headers: { "retry-after": "4000" } }, "search.query", false],
  ])("%s: classify answers what the dispatcher does", async (_name, error: AdapterError, tool, retries) => {
    const cli = JSON.parse(failbook(["classify", "--error", JSON.stringify(error), "--tool", tool, "--format", "json"]).stdout);
    const { project } = loadProject({ cwd: REPO });
    const dispatcher = createDispatcher({ registry: project.registry!.value, playbook: project.playbook!.value, clock: new VirtualClock(), random: () => 1 });
    const { outcome, events } = await dispatcher.dispatch({ id: "call_1", tool }, (_call, n) => (n === 1 ? { status: "error", error } : { status: "ok" }));
    const retry = events.find((e) => e.type === "retry_scheduled");
    expect(retry !== undefined).toBe(retries);
    expect(cli.dispatch.retries).toBe(retries);
    if (retry?.type === "retry_scheduled") {
      expect(cli.retryable).toBe(true);
      expect(cli.dispatch.delay_ms).toBe(retry.delay_ms);
    } else {
      expect(cli.retryable).toBe(outcome.envelope.error!.retryable);
      expect(cli.dispatch.reason).toBe(outcome.reason);
      expect(cli.dispatch.outcome).toBe(outcome.exhausted ? "exhausted" : outcome.kind);
      expect(cli.dispatch.queue).toBe(outcome.exhausted ? null : outcome.queue);
    }
  });

  it("a tool the playbook marks idempotent: false is not offered a retry", () => {
    const r = failbook(["classify", "--error", '{"kind":"timeout"}', "--tool", "legacy_payment_rail.charge"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^verdict\s+transient_timeout\s+\(class transient, retryable but not from this tool, side effect unknown\)$/m);
    expect(r.stdout).toMatch(/^dispatch\s+no retry: legacy_payment_rail\.charge is not idempotent \(the playbook's tools:\), so the dispatch ends escalated to oncall, reason side_effect_unknown$/m);
    const idempotent = failbook(["classify", "--error", '{"kind":"timeout"}', "--tool", "search.query"]);
    expect(idempotent.stdout).toMatch(/^verdict\s+transient_timeout\s+\(class transient, retryable, side effect unknown\)$/m);
    expect(idempotent.stdout).toMatch(/^dispatch\s+retries it after up to 200 ms/m);
  });
});
