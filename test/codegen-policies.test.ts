/**
 * `gen ts` and `gen py` type what SPEC 18 added to the playbook: the refresh_credentials
 * action, a symmetric jitter range, and the shared policies (attempt timeouts, breakers, the
 * retry budget, throttling, hedging). A consumer reads them through the generated types under
 * the strictest settings (TypeScript) and pyright --strict (Python); a wrong use is an error.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { failbook } from "./helpers/cli.js";
import { POLICIES_PLAYBOOK, policiesProject } from "./helpers/policies-project.js";
import { PYTHON, pyright, python, writeModules } from "./helpers/python.js";
import { STRICTEST, typeCheck, writeTree } from "./helpers/typescript.js";


/** The breaker renamed to a name no identifier could be, one state per tool, counting one class. */
const project = () => policiesProject(POLICIES_PLAYBOOK.replace('  payments:\n    tools: "payments.*"\n', '  "payments</script>":\n    tools: ["payments.*"]\n    per: tool\n    counts: [transient]\n'));

/** What a consumer writes: each policy read through the types, and wrong uses that must stay errors. */
const USE_TS = `import { PLAYBOOK, PROJECT, type CircuitBreakerPolicy, type Jitter, type PlaybookPolicies } from "./failbook.generated.ts";

export const refresh: "retry" | "abort" = PLAYBOOK.token_expired.then;
const backoff = PLAYBOOK.transient_timeout.backoff;
export const jitter: Jitter | undefined = backoff !== undefined && "jitter" in backoff ? backoff.jitter : undefined;
export const range: Jitter = { min: 0.8, max: 1.2, integer: true };
export const timeout: number | undefined = PROJECT.playbook.attempt_timeout_ms;
export const toolTimeout: number | undefined = PROJECT.playbook.tools?.["payments.*"]?.attempt_timeout_ms;
export const breaker: CircuitBreakerPolicy | undefined = PROJECT.playbook.circuit_breakers?.["payments</script>"];
export const per: "breaker" | "tool" | undefined = breaker?.per;
export const budget: number | undefined = PROJECT.playbook.retry_budget?.percent;
export const tokens: number | undefined = PROJECT.playbook.retry_throttling?.max_tokens;
export const hedges: number | undefined = PROJECT.playbook.hedging?.max_attempts;
export const policies: PlaybookPolicies = PROJECT.playbook;
// @ts-expect-error per is breaker or tool
export const wrongPer: CircuitBreakerPolicy = { tools: "x", per: "call" };
// @ts-expect-error retry throttling needs token_ratio
export const noRatio: PlaybookPolicies = { retry_throttling: { max_tokens: 10 } };
// @ts-expect-error the attempt timeout is a number of milliseconds
export const wrongTimeout: PlaybookPolicies = { attempt_timeout_ms: "3s" };
`;

const USE_PY = `from failbook_generated import PLAYBOOK, POLICIES, CircuitBreakerPolicy, PlaybookPolicies

action = PLAYBOOK["token_expired"]
if action["action"] == "refresh_credentials":
    then: str = action["then"]
retry = PLAYBOOK["transient_timeout"]
if retry["action"] == "retry_with_backoff" and "backoff" in retry:
    backoff = retry["backoff"]
    if "jitter" in backoff:
        jitter = backoff["jitter"]
        if isinstance(jitter, dict):
            low: float = jitter["min"]
breakers = POLICIES.get("circuit_breakers", {})
breaker: CircuitBreakerPolicy = breakers["payments</script>"]
ratio: float = breaker.get("failure_ratio", 0.1)
timeout: float = POLICIES.get("attempt_timeout_ms", 0)
wrong: PlaybookPolicies = {"retry_throttling": {"max_tokens": 10}}
`;

describe("gen ts and gen py type the policies of SPEC 18", () => {
  it("gen ts: PLAYBOOK has refresh_credentials and the jitter range, PROJECT.playbook's policies are typed, wrong uses do not compile", () => {
    const dir = project();
    const r = failbook(["gen", "ts", "--out", "failbook.generated.ts"], { cwd: dir });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const text = readFileSync(join(dir, "failbook.generated.ts"), "utf8");
    expect(text).toMatch(/readonly playbook: PlaybookPolicies/);
    const tree = writeTree({ "failbook.generated.ts": text, "use.ts": USE_TS });
    const compiled = typeCheck([join(tree, "failbook.generated.ts"), join(tree, "use.ts")], STRICTEST);
    expect(compiled.diagnostics).toEqual([]);
  });

  it.skipIf(PYTHON === null)("gen py: POLICIES and PLAYBOOK pass pyright --strict, and a retry_throttling without token_ratio does not", () => {
    const dir = project();
    const r = failbook(["gen", "py", "--out", "failbook_generated.py"], { cwd: dir });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const text = readFileSync(join(dir, "failbook_generated.py"), "utf8");
    const modules = writeModules({ failbook_generated: text, use: USE_PY });
    const values = python(["-c", "import sys, json; sys.path.insert(0, sys.argv[1]); import failbook_generated as m; print(json.dumps([m.POLICIES, m.PLAYBOOK['token_expired'], m.PLAYBOOK['transient_timeout']]))", modules]);
    expect(values.stderr).toBe("");
    const [policies, refresh, retry] = JSON.parse(values.stdout) as [Record<string, unknown>, unknown, { backoff: unknown }];
    expect(policies).toEqual({
      attempt_timeout_ms: 3000,
      tools: { "payments.*": { attempt_timeout_ms: 2000 } },
      circuit_breakers: { "payments</script>": { tools: ["payments.*"], per: "tool", counts: ["transient"], failure_ratio: 0.5, minimum_throughput: 20, sampling_ms: 10000, break_ms: 5000, max_break_ms: 60000 } },
      retry_budget: { percent: 20, min_concurrency: 3 },
      retry_throttling: { max_tokens: 10, token_ratio: 0.1 },
      hedging: { tools: "search.*", max_attempts: 3, delay_ms: 200, non_fatal: ["transient"] },
    });
    expect(refresh).toEqual({ action: "refresh_credentials", then: "retry" });
    expect(retry.backoff).toEqual({ strategy: "exponential", base_ms: 100, jitter: { min: 0.8, max: 1.2 }, min_ms: 50 });
    const checked = pyright(modules);
    // The one error is the consumer's wrong line: the module itself is clean.
    expect(checked.output).toMatch(/use\.py:17: [\s\S]*"token_ratio" is required/);
    expect(checked.errors).toBe(1);
  }, 120_000);
});
