import { describe, expect, it } from "vitest";
import { loadProject } from "../src/load/project.js";
import { lintProject } from "../src/lint/lint.js";
import { allRuleMeta } from "../src/lint/lint.js";
import { loadBaseline } from "../src/change/baseline.js";
import { checkChanges, sideOf } from "../src/change/check.js";
import { CHANGE_RULES } from "../src/change/rules/index.js";
import type { Finding } from "failbook-runtime/model/finding.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { failbook, tempProject } from "./helpers/cli.js";
import { editedProject, projectFiles, verdict, type ProjectData } from "./helpers/change-project.js";

type Edit = (p: ProjectData) => void;

/** Change findings of the current project against the baseline, both written to disk. */
async function changes(before: Edit, after: Edit): Promise<Finding[]> {
  const baseDir = tempProject(projectFiles(editedProject(before)));
  const curDir = tempProject(projectFiles(editedProject(after)));
  const { project, findings } = loadProject({ config: curDir, cwd: curDir });
  expect(findings.filter((f) => f.severity === "error")).toEqual([]);
  const current = sideOf(project, "working tree");
  if (!current) throw new Error("the current test project did not load");
  const baseline = loadBaseline(baseDir, { currentConfig: project.configFile, cwd: curDir });
  return (await checkChanges(baseline, current)).findings;
}

const none: Edit = () => {};
const declineCodes: Edit = (p) => {
  p.registry.error_fields = { decline_code: { type: "string", description: "The card network's reason." } };
  verdict(p, "conflict").match = [{ kind: "409_conflict" }, { fields: { decline_code: "duplicate_transaction" } }];
};
const quota = (p: ProjectData, over: Record<string, unknown> = {}): void => {
  p.playbook.retry_quota = { capacity: 500, cost: 5, cost_by_kind: { timeout: 10 }, ...over };
};
const breaker = (p: ProjectData, over: Record<string, unknown> = {}): void => {
  p.playbook.circuit_breakers = { payments: { tools: "payments.*", failure_ratio: 0.5, minimum_throughput: 20, break_ms: 5000, ...over } };
};
const budgets = (p: ProjectData, budget: Record<string, unknown> = {}, throttling: Record<string, unknown> = {}): void => {
  p.playbook.retry_budget = { percent: 20, min_concurrency: 3, ...budget };
  p.playbook.retry_throttling = { max_tokens: 10, token_ratio: 0.1, ...throttling };
};
const rateLimit = (p: ProjectData, over: Record<string, unknown> = {}): void => {
  p.playbook.rate_limits = { github: { tools: "github.*", limit: { requests: 5000, per_ms: 3_600_000 }, burst: 100, from_headers: "github", ...over } };
};
const reservedFuture: Edit = (p) => {
  p.registry.verdicts.push({ code: "future", class: "transient", retryable: true, status: "reserved", adr: "ADR-0003", summary: "Later.", recovery: "Later." });
};

interface Case {
  rule: string;
  what: string;
  before?: Edit;
  after: Edit;
  fires: boolean;
}

const CASES: Case[] = [
  { rule: "change/code-removed", what: "an active code removed", after: (p) => void p.registry.verdicts.splice(1, 1), fires: true },
  {
    rule: "change/code-removed",
    what: "a code removed after it was deprecated with replaced_by",
    before: (p) => Object.assign(verdict(p, "conflict"), { status: "deprecated", replaced_by: "timeout" }),
    after: (p) => void p.registry.verdicts.splice(1, 1),
    fires: false,
  },
  {
    rule: "change/code-added-without-adr",
    what: "a new code without adr",
    after: (p) => void p.registry.verdicts.push({ code: "rate_limited", class: "transient", retryable: true, match: [{ kind: "429" }] }),
    fires: true,
  },
  {
    rule: "change/code-added-without-adr",
    what: "a new code with an adr",
    after: (p) => void p.registry.verdicts.push({ code: "rate_limited", class: "transient", retryable: true, adr: "ADR-0004", match: [{ kind: "429" }] }),
    fires: false,
  },
  { rule: "change/class-added-without-adr", what: "a new class without adr", after: (p) => void (p.registry.classes.policy = { description: "Refused." }), fires: true },
  { rule: "change/class-added-without-adr", what: "a new class with an adr", after: (p) => void (p.registry.classes.policy = { description: "Refused.", adr: "ADR-0005" }), fires: false },
  { rule: "change/retryable-loosened", what: "retryable false -> true", after: (p) => void (verdict(p, "conflict").retryable = true), fires: true },
  { rule: "change/retryable-loosened", what: "retryable true -> false", after: (p) => void (verdict(p, "timeout").retryable = false), fires: false },
  { rule: "change/retryable-tightened", what: "retryable true -> false", after: (p) => void (verdict(p, "timeout").retryable = false), fires: true },
  { rule: "change/retryable-tightened", what: "retryable false -> true", after: (p) => void (verdict(p, "conflict").retryable = true), fires: false },
  { rule: "change/class-changed", what: "a class change under the same adr", after: (p) => void (verdict(p, "conflict").class = "transient"), fires: true },
  {
    rule: "change/class-changed",
    what: "a class change with a new adr",
    after: (p) => void Object.assign(verdict(p, "conflict"), { class: "transient", adr: "ADR-0006" }),
    fires: false,
  },
  {
    rule: "change/reserved-activated",
    what: "reserved -> active",
    before: reservedFuture,
    after: (p) => {
      reservedFuture(p);
      verdict(p, "future").status = "active";
    },
    fires: true,
  },
  {
    rule: "change/reserved-activated",
    what: "a reserved code that stays reserved while its summary changes",
    before: reservedFuture,
    after: (p) => {
      reservedFuture(p);
      verdict(p, "future").summary = "Soon.";
    },
    fires: false,
  },
  {
    rule: "change/action-without-golden",
    what: "a changed action no fixture covers",
    after: (p) => void (p.playbook.verdicts.conflict = { action: "escalate_to_human", queue: "payments" }),
    fires: true,
  },
  {
    rule: "change/action-without-golden",
    what: "a changed action with a covering golden (expect.verdict)",
    after: (p) => void (p.playbook.verdicts.timeout = { action: "retry_with_backoff", max_retries: 1, backoff_ms: [50] }),
    fires: false,
  },
  { rule: "change/revision-not-bumped", what: "a registry edit under the same revision", after: (p) => void (verdict(p, "timeout").summary = "Slow."), fires: true },
  {
    rule: "change/revision-not-bumped",
    what: "a registry edit with the revision raised",
    after: (p) => {
      verdict(p, "timeout").summary = "Slow.";
      p.registry.revision = 2;
    },
    fires: false,
  },
  { rule: "change/kind-removed", what: "a kind no rule recognises any more", after: (p) => void delete verdict(p, "conflict").match, fires: true },
  {
    rule: "change/kind-removed",
    what: "a kind moved to another verdict",
    after: (p) => {
      delete verdict(p, "conflict").match;
      verdict(p, "unknown_error").match = [{ kind: "409_conflict" }];
    },
    fires: false,
  },
  {
    rule: "change/field-removed",
    what: "a declared field a rule tested, removed with the rule",
    before: declineCodes,
    after: (p) => {
      declineCodes(p);
      delete p.registry.error_fields;
      verdict(p, "conflict").match = [{ kind: "409_conflict" }];
    },
    fires: true,
  },
  {
    rule: "change/field-removed",
    what: "a declared field no rule tested, removed",
    before: (p) => void (p.registry.error_fields = { decline_code: { type: "string" }, errno: { type: "integer" } }),
    after: (p) => void (p.registry.error_fields = { decline_code: { type: "string" } }),
    fires: false,
  },
  { rule: "change/quota-loosened", what: "the quota's capacity raised", before: quota, after: (p) => void quota(p, { capacity: 1000 }), fires: true },
  { rule: "change/quota-loosened", what: "the quota removed", before: quota, after: none, fires: true },
  { rule: "change/quota-loosened", what: "a kind made cheaper", before: quota, after: (p) => void quota(p, { cost_by_kind: { timeout: 2 } }), fires: true },
  { rule: "change/quota-loosened", what: "the quota tightened", before: quota, after: (p) => void quota(p, { capacity: 100, cost: 10, refund_on_recovery: "none" }), fires: false },
  { rule: "change/breaker-loosened", what: "a breaker that needs a larger share of failures to open", before: breaker, after: (p) => void breaker(p, { failure_ratio: 0.9 }), fires: true },
  { rule: "change/breaker-loosened", what: "a breaker removed", before: breaker, after: none, fires: true },
  { rule: "change/breaker-loosened", what: "a breaker with a shorter break", before: breaker, after: (p) => void breaker(p, { break_ms: 1000 }), fires: true },
  { rule: "change/breaker-loosened", what: "a breaker tightened", before: breaker, after: (p) => void breaker(p, { failure_ratio: 0.25, minimum_throughput: 10, break_ms: 10_000, max_break_ms: 60_000 }), fires: false },
  { rule: "change/budget-loosened", what: "a retry budget's percent raised", before: budgets, after: (p) => void budgets(p, { percent: 50 }), fires: true },
  { rule: "change/budget-loosened", what: "retry throttling removed", before: budgets, after: (p) => void (budgets(p), delete p.playbook.retry_throttling), fires: true },
  { rule: "change/budget-loosened", what: "throttling that refills faster", before: budgets, after: (p) => void budgets(p, {}, { token_ratio: 0.5 }), fires: true },
  { rule: "change/budget-loosened", what: "a budget and throttling tightened", before: budgets, after: (p) => void budgets(p, { percent: 10, min_concurrency: 1 }, { max_tokens: 5 }), fires: false },
  { rule: "change/rate-limit-loosened", what: "a rate limit's rate doubled", before: rateLimit, after: (p) => void rateLimit(p, { limit: { requests: 10_000, per_ms: 3_600_000 } }), fires: true },
  { rule: "change/rate-limit-loosened", what: "a rate limit removed", before: rateLimit, after: none, fires: true },
  { rule: "change/rate-limit-loosened", what: "a rate limit that no longer reads the upstream's headers", before: rateLimit, after: (p) => void (rateLimit(p), delete p.playbook.rate_limits!.github!.from_headers), fires: true },
  { rule: "change/rate-limit-loosened", what: "a rate limit tightened (a smaller burst, a longer window)", before: rateLimit, after: (p) => void rateLimit(p, { burst: 10, limit: { requests: 5000, per_ms: 7_200_000 } }), fires: false },
  { rule: "change/fleet-scope-dropped", what: "a fleet retry budget turned back to scope: process", before: (p) => void budgets(p, { scope: "fleet" }), after: (p) => void budgets(p), fires: true },
  { rule: "change/fleet-scope-dropped", what: "a fleet rate limit turned back to scope: process", before: (p) => void rateLimit(p, { scope: "fleet" }), after: (p) => void rateLimit(p, { scope: "process" }), fires: true },
  { rule: "change/fleet-scope-dropped", what: "a fleet circuit breaker turned back to scope: process", before: (p) => void (p.playbook.circuit_breakers = { up: { tools: "payments.*", scope: "fleet", quorum: 0.5 } }), after: (p) => void (p.playbook.circuit_breakers = { up: { tools: "payments.*" } }), fires: true },
  { rule: "change/fleet-scope-dropped", what: "a policy kept fleet-wide, and one made fleet-wide", before: (p) => void (budgets(p, { scope: "fleet" }), rateLimit(p)), after: (p) => void (budgets(p, { scope: "fleet" }), rateLimit(p, { scope: "fleet" })), fires: false },
  {
    rule: "change/outcome-changed",
    what: "a playbook edit that changes a fixture's outcome",
    after: (p) => void (p.playbook.verdicts.timeout = { action: "escalate_to_human", queue: "oncall" }),
    fires: true,
  },
  { rule: "change/outcome-changed", what: "a playbook edit no fixture reaches", after: (p) => void (p.playbook.verdicts.conflict.reason = "the upstream did it"), fires: false },
];

describe("change rules", () => {
  it("has a triggering case and a nearest miss for every rule", () => {
    for (const rule of CHANGE_RULES) {
      expect(CASES.filter((c) => c.rule === rule.id && c.fires), rule.id).not.toHaveLength(0);
      expect(CASES.filter((c) => c.rule === rule.id && !c.fires), rule.id).not.toHaveLength(0);
    }
  });

  it.each(CASES)("$rule: $what", async ({ rule, before, after, fires }) => {
    const found = (await changes(before ?? none, after)).filter((f) => f.rule === rule);
    expect(found).toHaveLength(fires ? 1 : 0);
    if (!fires) return;
    const meta = CHANGE_RULES.find((r) => r.id === rule);
    expect(found[0].severity).toBe(meta?.severity);
    // Positions are in the current files, never in the baseline.
    expect(found[0].file).toMatch(/^playbooks\//);
  });

  it("finds nothing when nothing changed", async () => {
    expect(await changes(none, none)).toEqual([]);
  });

  it("points a removed code at the registry and names where it stood in the baseline", async () => {
    const [f] = (await changes(none, (p) => void p.registry.verdicts.splice(1, 1))).filter((x) => x.rule === "change/code-removed");
    expect(f.message).toContain("'conflict'");
    expect(f.file).toBe("playbooks/registry.yaml");
    expect(f.related).toHaveLength(1);
    expect(f.related?.[0].file).toMatch(/playbooks\/registry\.yaml$/);
    expect(f.related?.[0].file).not.toBe("playbooks/registry.yaml");
    expect(f.related?.[0].line).toBeGreaterThan(1);
  });

  it.each([
    { setting: "warning", expected: ["warning"] },
    { setting: "off", expected: [] },
  ])("takes the severity from the config's rules: ($setting)", async ({ setting, expected }) => {
    const found = await changes(none, (p) => {
      p.registry.verdicts.splice(1, 1);
      p.config.rules = { "change/code-removed": setting };
    });
    expect(found.filter((f) => f.rule === "change/code-removed").map((f) => f.severity)).toEqual(expected);
  });
});

describe("rules: in the config", () => {
  it("lists the change rules among the rules SARIF describes", () => {
    const ids = allRuleMeta().map((r) => r.id);
    for (const rule of CHANGE_RULES) expect(ids).toContain(rule.id);
  });

  it.each([
    { id: "change/code-remove", guess: "change/code-removed" },
    { id: "code-removed", guess: "change/code-removed" },
    { id: "duplicate-codes", guess: "duplicate-code" },
  ])("rejects the unknown rule id $id at its key and suggests $guess", ({ id, guess }) => {
    const dir = tempProject(projectFiles(editedProject((p) => void (p.config.rules = { [id]: "off" }))));
    const { project, findings } = loadProject({ config: dir, cwd: dir });
    const unknown = lintProject(project, findings).filter((f) => f.message.includes(`unknown rule '${id}'`));
    expect(unknown).toHaveLength(1);
    expect(unknown[0]).toMatchObject({ rule: "schema", severity: "error", file: "failbook.yaml", path: `/rules/${id.replace(/\//g, "~1")}` });
    expect(unknown[0].message).toContain(`did you mean '${guess}'`);
    expect(unknown[0].line).toBe(project.configDoc.locate(["rules", id], "key").line);
  });

  it("a misspelt rule id is an error lint exits 1 on, located at its key, with the id it meant", () => {
    const dir = tempProject(projectFiles(editedProject((p) => void (p.config.rules = { "duplicate-codes": "off" }))));
    const r = failbook(["lint"], { cwd: dir });
    expect(r.code).toBe(1);
    const line = readFileSync(join(dir, "failbook.yaml"), "utf8").split("\n").findIndex((l) => l.includes("duplicate-codes:")) + 1;
    expect(r.stdout).toMatch(new RegExp(`^failbook\\.yaml:${line}:\\d+ error unknown rule 'duplicate-codes' under rules:; did you mean 'duplicate-code'\\?`, "m"));
  });

  it("accepts every known rule id without a warning", () => {
    const rules = Object.fromEntries(allRuleMeta().map((r) => [r.id, "warning"]));
    const dir = tempProject(projectFiles(editedProject((p) => void (p.config.rules = rules))));
    const { project, findings } = loadProject({ config: dir, cwd: dir });
    expect(lintProject(project, findings).filter((f) => f.message.includes("unknown rule"))).toEqual([]);
  });
});
