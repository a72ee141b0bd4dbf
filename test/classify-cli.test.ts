/** `failbook classify`: verdict, the rule that matched (with its position) or the fallback, and the action. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
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
      action: { action: "retry_with_backoff", max_retries: 3 },
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
});
