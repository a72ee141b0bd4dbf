/**
 * `gen ts` and `gen py` type the playbook's rate limits (SPEC 22): PROJECT.playbook (TS) and
 * POLICIES (Python) carry them typed by RateLimitPolicy, read under the strictest TypeScript
 * settings and pyright --strict; a wrong use (an unknown dialect, when_empty outside wait and
 * fail) is an error. `gen ts --help` and `gen py --help` name the types.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { failbook } from "./helpers/cli.js";
import { RATE_LIMITS_PLAYBOOK, policiesProject } from "./helpers/policies-project.js";
import { PYTHON, pyright, python, writeModules } from "./helpers/python.js";
import { STRICTEST, typeCheck, writeTree } from "./helpers/typescript.js";

const USE_TS = `import { PROJECT, type PlaybookPolicies, type RateLimitDialect, type RateLimitHeaders, type RateLimitPolicy } from "./failbook.generated.ts";

export const ledger: RateLimitPolicy | undefined = PROJECT.playbook.rate_limits?.["ledger"];
export const wait: number | undefined = ledger?.max_wait_ms;
export const requests: number | undefined = ledger?.limit?.requests;
export const empty: "wait" | "fail" | undefined = PROJECT.playbook.rate_limits?.["strict"]?.when_empty;
export const adaptive: "aws" | undefined = PROJECT.playbook.rate_limits?.["search"]?.adaptive;
const from = PROJECT.playbook.rate_limits?.["strict"]?.from_headers;
export const remaining: string | undefined = typeof from === "object" ? from.remaining : undefined;
export const dialect: RateLimitDialect = "anthropic";
export const own: RateLimitHeaders = { remaining: "x-left", reset: { name: "x-reset", duration: true } };
export const policies: PlaybookPolicies = PROJECT.playbook;
// @ts-expect-error no such dialect
export const wrongDialect: RateLimitPolicy = { tools: "x", limit: { requests: 1, per_ms: 1 }, from_headers: "gitlab" };
// @ts-expect-error when_empty is wait or fail
export const wrongEmpty: PlaybookPolicies = { rate_limits: { x: { tools: "x", adaptive: "aws", when_empty: "drop" } } };
`;

const USE_PY = `from failbook_generated import POLICIES, RateLimitHeaders, RateLimitPolicy

limits = POLICIES.get("rate_limits", {})
ledger: RateLimitPolicy = limits["ledger"]
wait: int = ledger.get("max_wait_ms", 0)
if "limit" in ledger:
    requests: int = ledger["limit"]["requests"]
own: RateLimitHeaders = {"remaining": "x-left", "reset": {"name": "x-reset", "epoch": "ms"}}
wrong: RateLimitPolicy = {"tools": "x", "when_empty": "drop"}
`;

describe("gen ts and gen py type the rate limits of SPEC 22", () => {
  it("gen ts: PROJECT.playbook.rate_limits is typed by RateLimitPolicy, wrong uses do not compile", () => {
    const dir = policiesProject(RATE_LIMITS_PLAYBOOK);
    const r = failbook(["gen", "ts", "--out", "failbook.generated.ts"], { cwd: dir });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const text = readFileSync(join(dir, "failbook.generated.ts"), "utf8");
    expect(text).toContain("export interface RateLimitPolicy {");
    const tree = writeTree({ "failbook.generated.ts": text, "use.ts": USE_TS });
    expect(typeCheck([join(tree, "failbook.generated.ts"), join(tree, "use.ts")], STRICTEST).diagnostics).toEqual([]);
  });

  it("gen ts --help and gen py --help name the rate-limit types", () => {
    const ts = failbook(["gen", "ts", "--help"]).stdout;
    const py = failbook(["gen", "py", "--help"]).stdout;
    for (const name of ["RateLimitPolicy", "RateLimitDialect", "RateLimitHeaders"]) {
      expect(ts).toContain(name);
      expect(py).toContain(name);
    }
    expect(py).toContain("POLICIES, PlaybookPolicies");
  });

  it.skipIf(PYTHON === null)("gen py: POLICIES holds the rate limits, typed; pyright --strict passes the module and flags a wrong when_empty", () => {
    const dir = policiesProject(RATE_LIMITS_PLAYBOOK);
    const r = failbook(["gen", "py", "--out", "failbook_generated.py"], { cwd: dir });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const modules = writeModules({ failbook_generated: readFileSync(join(dir, "failbook_generated.py"), "utf8"), use: USE_PY });
    const values = python(["-c", "import sys, json; sys.path.insert(0, sys.argv[1]); import failbook_generated as m; print(json.dumps(m.POLICIES['rate_limits']))", modules]);
    expect(values.stderr).toBe("");
    expect(JSON.parse(values.stdout)).toEqual({
      ledger: { tools: "ledger.*", limit: { requests: 10, per_ms: 1000 }, max_wait_ms: 1500, from_headers: "github" },
      search: { tools: "search.*", adaptive: "aws" },
      strict: { tools: "payments.*", limit: { requests: 5, per_ms: 1000 }, when_empty: "fail", from_headers: { remaining: "X-Left", reset: { name: "X-Reset", epoch: "ms" } } },
    });
    const checked = pyright(modules);
    // The one error is the consumer's wrong line: the module itself is clean.
    expect(checked.output).toMatch(/use\.py:9: [\s\S]*Literal\['drop'\]/);
    expect(checked.errors).toBe(1);
  }, 120_000);
});
