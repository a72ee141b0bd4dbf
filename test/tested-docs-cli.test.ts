/**
 * SPEC 13, the registry as tested documentation, end to end through the CLI: examples in
 * lint, render and explain; simulate --min-coverage; a saga's trigger verdict and full-depth
 * goldens from --update, with the seed pinned; repeat: N; new fixture; explain ACTION.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { failbook, REPO, tempProject } from "./helpers/cli.js";
import { shippedCopy, withShippedRules } from "./helpers/shipped.js";
import { loadProject } from "../src/load/project.js";
import { simulateFixture } from "../src/simulate/fixture.js";
import { compareGolden } from "../src/simulate/golden.js";
import { projectRules } from "../src/simulate/project.js";
import { scaffoldFixture } from "../src/simulate/scaffold.js";

/** The five example projects that model the seed documents; each carries examples on its verdicts. */
const EXAMPLE_PROJECTS = ["orchestrator-routing", "recovery-spec", "runtime-failure-classes", "tool-envelopes", "typed-verdicts"];
const HEAD = ["apiVersion: failbook/v1", "kind: Fixture"];

interface LintJson {
  findings: { rule: string; severity: string; message: string; line: number; column: number }[];
}

describe("examples on verdicts", () => {
  it("the shipped project and every example project: every verdict has examples, and each classifies to its verdict", () => {
    for (const config of [".", ...EXAMPLE_PROJECTS.map((p) => join("examples", p))]) {
      const r = failbook(["--config", config, "lint", "--format", "json"]);
      const report = JSON.parse(r.stdout) as LintJson;
      expect(report.findings.filter((f) => f.rule === "example-misclassified" || f.rule === "verdict-untested" || f.rule === "schema"), config).toEqual([]);
    }
    for (const project of EXAMPLE_PROJECTS) expect(existsSync(join(REPO, "examples", project, "failbook.yaml")), project).toBe(true);
  });

  it("a misclassified example is an error at the example, naming the verdict it got and the winning rule's position", () => {
    const dir = shippedCopy();
    const file = join(dir, "playbooks/registry.yaml");
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.replace("- { kind: timeout, message: upstream took 30s }", "- { kind: timeout, message: upstream took 30s }\n      - { kind: 5xx, http_status: 504 }"));
    const r = failbook(["lint"], { cwd: dir });
    expect(r.code).toBe(1);
    const line = r.stdout.split("\n").find((l) => l.includes("[example-misclassified]"));
    expect(line).toMatch(/^playbooks\/registry\.yaml:\d+:9 error example 2 of 'transient_timeout' classifies as 'server_error_5xx': match rule #1 of 'server_error_5xx' \(playbooks\/registry\.yaml:\d+:9\) wins/);
  });

  it("an example that is not a valid adapter error is a schema finding at its position", () => {
    const dir = shippedCopy();
    const file = join(dir, "playbooks/registry.yaml");
    const lines = readFileSync(file, "utf8").split("\n");
    const at = lines.findIndex((l) => l.includes("{ kind: timeout, message: upstream took 30s }"));
    lines[at] = "      - { message: no kind here, http_status: 42, colour: red }";
    writeFileSync(file, lines.join("\n"));
    const r = failbook(["lint", "--format", "json"], { cwd: dir });
    expect(r.code).toBe(1);
    const schema = (JSON.parse(r.stdout) as LintJson).findings.filter((f) => f.rule === "schema");
    expect(schema.length).toBeGreaterThanOrEqual(3);
    for (const f of schema) expect(f.line).toBe(at + 1);
    expect(schema.map((f) => f.message).join("\n")).toMatch(/kind/);
    expect(schema.map((f) => f.message).join("\n")).toMatch(/colour/);
  });

  it("render (md, html, json) and explain show each example and the rule that recognises it", () => {
    const json = JSON.parse(failbook(["render", "--format", "json"]).stdout) as { codes: { code: string; examples: unknown[] }[] };
    const rate = json.codes.find((c) => c.code === "rate_limited");
    expect(rate?.examples).toEqual([
      { error: { kind: "429_rate_limited", http_status: 429, retry_after_ms: 2000 }, verdict: "rate_limited", rule: 1 },
      { error: { kind: "http_error", http_status: 429, headers: { "retry-after": "2" } }, verdict: "rate_limited", rule: 2 },
    ]);
    expect(failbook(["render", "--format", "md"]).stdout).toContain("- kind http_error, http_status 429, headers { retry-after: 2 } — classifies here by match rule #2");
    expect(failbook(["render", "--format", "html"]).stdout).toContain('<h4>Examples</h4><ul class="examples"><li>kind 429_rate_limited, http_status 429, retry_after_ms 2000 — classifies here by match rule #1</li>');
    const explain = failbook(["explain", "unknown_error"]).stdout;
    expect(explain).toContain('Examples\n  kind socket_hang_up, message "the adapter saw an error no rule names"\n    classifies here by the fallback (no rule holds)');
  });

  it("HTML escapes what an example carries", () => {
    const dir = shippedCopy();
    const file = join(dir, "playbooks/registry.yaml");
    writeFileSync(file, readFileSync(file, "utf8").replace("message: upstream took 30s }", 'message: "<script>alert(1)</script>" }'));
    const html = failbook(["render", "--format", "html"], { cwd: dir }).stdout;
    expect(html).not.toContain("<script>alert(1)");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  });

  it("gen ts emits the examples as a typed table that compiles", () => {
    const generated = readFileSync(join(REPO, "examples/adapter/failbook.generated.ts"), "utf8");
    expect(generated).toContain("export const EXAMPLES: readonly VerdictExample[] = JSON.parse(`[");
    expect(generated).toContain('{"verdict":"rate_limited","error":{"kind":"http_error","http_status":429,"headers":{"retry-after":"2"}}}');
    expect(failbook(["gen", "ts", "--check"]).code).toBe(0);
  });
});

describe("simulate --min-coverage", () => {
  it("passes on the shipped project and on every example project at its own coverage, and reports the figure", () => {
    for (const config of [".", ...EXAMPLE_PROJECTS.map((p) => join("examples", p))]) {
      const r = failbook(["--config", config, "simulate", "--format", "json", "--min-coverage", "0"]);
      expect(r.code, `${config}: ${r.stderr}`).toBe(0);
      const cov = (JSON.parse(r.stdout) as { coverage: { verdict_coverage: { active: number; exercised: number; percent: number } } }).coverage.verdict_coverage;
      expect(cov.active).toBeGreaterThan(0);
      expect(cov.percent).toBe(Math.floor((cov.exercised / cov.active) * 1000) / 10);
    }
    const shipped = failbook(["simulate", "--min-coverage", "100"]);
    expect(shipped.code).toBe(0);
    expect(shipped.stdout).toContain("verdict coverage: 12 of 12 active verdicts (100.0%) exercised by a passing fixture");
  });

  it("exits 1 below the threshold, naming the verdicts no passing fixture exercises", () => {
    const dir = withShippedRules([...HEAD, "name: a", "call: { id: c1, tool: t }", "responses: [{ status: error, error: { kind: timeout } }, { status: ok, value: 1 }]", "expect: { outcome: recovered }", ""]);
    const r = failbook(["simulate", "--min-coverage", "50"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("verdict coverage: 1 of 12 active verdicts (8.3%) exercised by a passing fixture");
    expect(r.stderr).toBe("failbook: verdict coverage 8.3% (1 of 12 active verdicts) is below --min-coverage 50; add fixtures with goldens for write_committed, network_unreachable, rate_limited, server_error_5xx, idempotency_conflict and 6 more (failbook new fixture --verdict CODE)\n");
    expect(failbook(["simulate", "--min-coverage", "8"], { cwd: dir }).code).toBe(0);
  });

  it("a fixture whose golden fails does not count", () => {
    const dir = withShippedRules([...HEAD, "name: a", "call: { id: c1, tool: t }", "responses: [{ status: error, error: { kind: timeout } }, { status: ok, value: 1 }]", "expect: { outcome: failed }", ""]);
    const r = failbook(["simulate", "--min-coverage", "1", "--format", "json"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).coverage.verdict_coverage).toMatchObject({ active: 12, exercised: 0, percent: 0 });
  });

  it.each([["101"], ["-1"], ["abc"], ["50%"]])("--min-coverage %s exits 2 with one line", (value) => {
    const r = failbook(["simulate", `--min-coverage=${value}`]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(`failbook: --min-coverage takes a percentage from 0 to 100, not '${value}'\n`);
  });
});

const SAGA = [
  ...HEAD,
  "name: saga",
  "compensate_on_failure: true",
  "steps:",
  "  - call: { id: charge, tool: payments.charge }",
  "    responses: [{ status: ok, value: 1 }]",
  "    compensation:",
  "      call: { id: refund, tool: payments.refund }",
  "      responses: [{ status: error, error: { kind: timeout } }, { status: ok, value: 1 }]",
  "  - call: { id: ship, tool: logistics.ship }",
  "    responses: [{ status: error, error: { kind: policy_denied } }]",
  "",
];

describe("sagas and --update", () => {
  it("the saga's verdict is the failed step's; --update records steps and compensations in full, which then gate", () => {
    const dir = withShippedRules(SAGA);
    expect(failbook(["simulate", "--update"], { cwd: dir }).code).toBe(0);
    const text = readFileSync(join(dir, "f.yaml"), "utf8");
    expect(text).toContain(
      [
        "expect:",
        "  outcome: compensated",
        "  verdict: policy_denied",
        "  attempts: 4",
        "  retried: 1",
        "  steps:",
        "    - { id: charge, kind: succeeded, verdict: null, attempts: 1, retried: 0, elapsed_ms: 0, reason: null, queue: null }",
        "    - { id: ship, kind: escalated, verdict: policy_denied, attempts: 1, retried: 0, elapsed_ms: 0, reason: null, queue: policy_review }",
        "  compensations:",
        "    - { id: refund, kind: recovered, verdict: transient_timeout, attempts: 2, retried: 1, elapsed_ms: 200, reason: null, queue: null }",
      ].join("\n"),
    );
    expect(failbook(["simulate"], { cwd: dir }).code).toBe(0);
    // A nested field now gates: a hand edit to a compensation is a mismatch at its position.
    writeFileSync(join(dir, "f.yaml"), text.replace("verdict: transient_timeout, attempts: 2", "verdict: transient_timeout, attempts: 3"));
    const r = failbook(["simulate"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/f\.yaml:\d+:\d+ expect\.compensations\[0\]\.attempts: expected 3, got 2/);
  });

  it("--update --seed N pins seed: N in a fixture that names none, so the golden holds without the flag", () => {
    // network_unreachable retries with full jitter: the delay depends on the seed.
    const lines = [...HEAD, "name: jitter", "call: { id: c1, tool: t }", "responses: [{ status: error, error: { kind: connection_refused } }, { status: ok, value: 1 }]", "expect: { outcome: recovered, elapsed_ms: 0 }", ""];
    const dir = withShippedRules(lines);
    const at0 = JSON.parse(failbook(["simulate", "--format", "json"], { cwd: dir }).stdout).results[0].outcome.elapsed_ms as number;
    const at7 = JSON.parse(failbook(["simulate", "--format", "json", "--seed", "7"], { cwd: dir }).stdout).results[0].outcome.elapsed_ms as number;
    expect(at7).not.toBe(at0);
    expect(failbook(["simulate", "--update", "--seed", "7"], { cwd: dir }).code).toBe(0);
    const text = readFileSync(join(dir, "f.yaml"), "utf8");
    expect(text).toContain(`seed: 7\nexpect:\n  outcome: recovered\n  elapsed_ms: ${at7}\n`);
    expect(failbook(["simulate"], { cwd: dir }).code).toBe(0);
    // A fixture that names its seed keeps it; with seed 0 nothing is pinned.
    const plain = withShippedRules(lines);
    expect(failbook(["simulate", "--update"], { cwd: plain }).code).toBe(0);
    expect(readFileSync(join(plain, "f.yaml"), "utf8")).not.toContain("seed:");
  });
});

describe("repeat: N", () => {
  it("stands for the same response N times in a row", () => {
    const dir = withShippedRules([
      ...HEAD,
      "name: flaky",
      "call: { id: c1, tool: t }",
      "responses:",
      "  - { status: error, error: { kind: timeout }, latency_ms: 10, repeat: 2 }",
      "  - { status: ok, value: 1 }",
      "expect: { outcome: recovered, attempts: 3, retried: 2, elapsed_ms: 820 }",
      "",
    ]);
    const r = failbook(["simulate"], { cwd: dir });
    expect(r.stdout).toContain("✓ matches its golden");
    expect(r.code).toBe(0);
  });

  it("counts repeats when a fixture runs out of responses, and a repeat of 0 is a schema error", () => {
    const dir = withShippedRules([...HEAD, "name: flaky", "call: { id: c1, tool: t }", "responses:", "  - { status: error, error: { kind: timeout }, repeat: 2 }", ""]);
    const r = failbook(["simulate"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("ran out of responses: attempt 3 of c1 (t) has no entry in responses (2 recorded)");
    writeFileSync(join(dir, "f.yaml"), [...HEAD, "name: flaky", "call: { id: c1, tool: t }", "responses:", "  - { status: error, error: { kind: timeout }, repeat: 0 }", ""].join("\n"));
    const bad = failbook(["lint"], { cwd: dir });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/f\.yaml:6:\d+ error .*repeat.* \[schema\]/);
  });
});

describe("failbook new fixture", () => {
  it("carries the yaml-language-server modeline init writes, to the fixture schema init's fixtures point at", () => {
    const dir = mkdtempSync(join(tmpdir(), "failbook-new-modeline-"));
    expect(failbook(["init", dir]).code).toBe(0);
    expect(failbook(["new", "fixture", "--verdict", "rate_limited"], { cwd: dir }).code).toBe(0);
    const first = (file: string) => readFileSync(join(dir, "playbooks/fixtures", file), "utf8").split("\n")[0];
    expect(first("rate-limited.yaml")).toMatch(/^# yaml-language-server: \$schema=\S+\/fixture\.schema\.json$/);
    expect(first("rate-limited.yaml")).toBe(first("refund-with-conflict.yaml"));
  });

  it("writes a fixture from the verdict's first example, dispatches it and records its golden; simulate passes", () => {
    const dir = shippedCopy();
    const r = failbook(["new", "fixture", "--verdict", "rate_limited", "--tool", "payments.refund"], { cwd: dir });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      "wrote playbooks/fixtures/rate-limited.yaml: fixture 'rate-limited', its failure from the verdict's example 1; rate_limited -> retry_with_backoff ends recovered after 2 attempts\nnext: failbook simulate playbooks/fixtures/rate-limited.yaml\n",
    );
    const text = readFileSync(join(dir, "playbooks/fixtures/rate-limited.yaml"), "utf8");
    expect(text).toContain("call: { id: call_rate_limited, tool: payments.refund }\nresponses:\n  - { status: error, error: { kind: 429_rate_limited, http_status: 429, retry_after_ms: 2000 } }\n  - { status: ok, value: {} }\nexpect:\n  outcome: recovered\n  verdict: rate_limited\n  attempts: 2\n  retried: 1\n");
    const sim = failbook(["simulate", "playbooks/fixtures/rate-limited.yaml"], { cwd: dir });
    expect(sim.code).toBe(0);
    expect(sim.stdout).toContain("1 fixture: 1 passed");
  });

  it("without examples, builds the failure from the first match rule (tool from its glob), and --out and --name place it", () => {
    const dir = tempProject({
      "failbook.yaml": "registry: r.yaml\nplaybook: p.yaml\nfixtures: [fixtures]\n",
      "r.yaml": [
        "apiVersion: failbook/v1",
        "kind: Registry",
        "name: t",
        "revision: 1",
        "classes: { transient: { description: x }, unknown: { description: y } }",
        "verdicts:",
        "  - { code: card_declined, class: transient, retryable: false, match: [{ http_status: 4xx, provider_code: card_declined, tool: payments.*, headers: { stripe-should-retry: \"*\" } }] }",
        "  - { code: other, class: unknown, retryable: false }",
        "fallback: other",
        "",
      ].join("\n"),
      "p.yaml": "apiVersion: failbook/v1\nkind: Playbook\nname: p\nverdicts:\n  card_declined: { action: escalate_to_human, queue: billing }\n  other: { action: fail }\n",
      "fixtures/.keep": "",
    });
    const r = failbook(["new", "fixture", "--verdict", "card_declined", "--name", "declined", "--out", "fixtures/d.yaml"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("its failure from the verdict's match rule #1; card_declined -> escalate_to_human ends escalated after 1 attempt");
    const text = readFileSync(join(dir, "fixtures/d.yaml"), "utf8");
    // The rule names no kind: the error takes one from the rule's own fields, and the call is named after the verdict.
    expect(text).toContain("name: declined\ncall: { id: call_card_declined, tool: payments.call }\n");
    expect(text).toContain("error: { kind: card_declined, http_status: 400, provider_code: card_declined, headers: { stripe-should-retry: \"1\" } }");
    expect(failbook(["simulate", "fixtures/d.yaml"], { cwd: dir }).stdout).toMatch(/attempt 1 +error card_declined 400\n/);
    expect(text).toContain("expect:\n  outcome: escalated\n  verdict: card_declined\n  attempts: 1\n  retried: 0\n  queue: billing\n");
    expect(failbook(["simulate"], { cwd: dir }).code).toBe(0);
  });

  it("an unknown code exits 2 with one line and a suggestion; nothing is written", () => {
    const dir = shippedCopy();
    const r = failbook(["new", "fixture", "--verdict", "rate_limted"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("failbook: unknown verdict 'rate_limted': the registry has no such code; did you mean rate_limited?\n");
    expect(existsSync(join(dir, "playbooks/fixtures/rate-limted.yaml"))).toBe(false);
  });

  it("an existing output file exits 2 with one line and is never overwritten; a name in use likewise", () => {
    const dir = shippedCopy();
    const target = join(dir, "playbooks/fixtures/mine.yaml");
    writeFileSync(target, "# mine\n");
    const r = failbook(["new", "fixture", "--verdict", "transient_timeout", "--out", "playbooks/fixtures/mine.yaml", "--name", "fresh"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("failbook: playbooks/fixtures/mine.yaml already exists; nothing was written (new fixture never overwrites: choose another --out or --name)\n");
    expect(readFileSync(target, "utf8")).toBe("# mine\n");
    const taken = failbook(["new", "fixture", "--verdict", "transient_timeout", "--name", "refund-with-conflict"], { cwd: dir });
    expect(taken.code).toBe(2);
    expect(taken.stderr).toBe("failbook: a fixture named 'refund-with-conflict' already exists in this project; nothing was written (choose another with --name)\n");
  });

  it("a verdict nothing can classify to exits 2 and says to add an example", () => {
    const r = failbook(["new", "fixture", "--verdict", "approval_denied"], { cwd: shippedCopy() });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("failbook: cannot build a failure that classifies to 'approval_denied': it has no examples and no match rule an error can be built for; add an example to the verdict (examples: [{ kind: ... }])\n");
  });

  it.each([
    { rule: "{ http_status: 503 }", kind: "http_503" },
    { rule: "{ http_status: 5xx }", kind: "http_500" },
    { rule: "{ provider_code: quota_hit }", kind: "quota_hit" },
    { rule: '{ headers: { x-flag: "on" } }', kind: "flagged" },
    { rule: "{ cause: { provider_code: econnreset } }", kind: "flagged", cause: "econnreset" },
  ])("a rule without a kind, $rule, gives the error kind $kind from its own fields, and the call an id from the verdict", async ({ rule, kind, cause }) => {
    const dir = tempProject({
      "failbook.yaml": "registry: r.yaml\nplaybook: p.yaml\n",
      "r.yaml": `apiVersion: failbook/v1\nkind: Registry\nname: t\nrevision: 1\nclasses: { c: { description: x } }\nverdicts:\n  - { code: flagged, class: c, retryable: false, match: [${rule}] }\n  - { code: other, class: c, retryable: false }\nfallback: other\n`,
      "p.yaml": "apiVersion: failbook/v1\nkind: Playbook\nname: p\nverdicts:\n  flagged: { action: fail }\n  other: { action: fail }\n",
    });
    const rules = projectRules(loadProject({ config: dir }).project)!;
    const { fixture } = await scaffoldFixture(rules, rules.registry.verdicts[0]!, { name: "f" });
    const error = fixture.responses?.[0]?.error;
    expect(error?.kind).toBe(kind);
    if (cause) expect(error?.cause?.kind).toBe(cause);
    expect(fixture.call?.id).toBe("call_flagged");
    expect(fixture.expect?.verdict).toBe("flagged");
  });

  it("scaffolds a fixture whose failure classifies to the verdict, for every active verdict of every example project", async () => {
    for (const project of EXAMPLE_PROJECTS) {
      const { project: loaded } = loadProject({ config: join(REPO, "examples", project) });
      const rules = projectRules(loaded);
      if (!rules) throw new Error(`${project} did not load`);
      const active = rules.registry.verdicts.filter((v) => (v.status ?? "active") === "active");
      for (const verdict of active) {
        const { fixture } = await scaffoldFixture(rules, verdict, { name: `scaffold-${verdict.code}` });
        expect(fixture.expect?.verdict, `${project} ${verdict.code}`).toBe(verdict.code);
        const run = await simulateFixture(rules, fixture);
        if (!run.ok) throw new Error(run.error.message);
        expect(compareGolden(fixture.expect ?? {}, run.outcome, run.events)).toEqual([]);
      }
    }
  });

  it("on every example project, through the CLI", () => {
    for (const project of EXAMPLE_PROJECTS) {
      const dir = tempProject({});
      const config = join(REPO, "examples", project);
      const out = join(dir, "scaffold.yaml");
      const r = failbook(["--config", config, "new", "fixture", "--verdict", readFirstCode(config), "--name", "scaffold", "--out", out], { cwd: dir });
      expect(r.code, `${project}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toContain(`note: ${out} is outside the config's fixtures`);
      const sim = failbook(["--config", config, "simulate", out], { cwd: dir });
      expect(sim.code, `${project}: ${sim.stdout}`).toBe(0);
      expect(sim.stdout).toContain("1 fixture: 1 passed");
    }
  });
});

function readFirstCode(config: string): string {
  const codes = (JSON.parse(failbook(["--config", config, "render", "--format", "json"]).stdout) as { codes: { code: string; status: string }[] }).codes;
  return codes.filter((c) => c.status === "active")[0].code;
}

describe("failbook explain ACTION", () => {
  it("prints the action's parameters, dispatch and outcomes, and the verdicts that use it", () => {
    const r = failbook(["explain", "retry_with_backoff"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^retry_with_backoff {2}\(playbook action\)\n/);
    expect(r.stdout).toContain("Parameters\n  max_retries  required:");
    expect(r.stdout).toContain("Outcomes\n  - recovered: a later attempt succeeded;");
    expect(r.stdout).toContain("In this playbook\n  network_unreachable, transient_timeout, rate_limited, server_error_5xx\n");
  });

  it("needs no project, and its text is the action reference of docs/actions.md", () => {
    const dir = tempProject({});
    const readme = readFileSync(join(REPO, "docs/actions.md"), "utf8");
    for (const action of ["retry_with_backoff", "retry_with_hint", "refresh_evidence", "restore_checkpoint", "escalate_to_human", "issue_reversal", "deprecate_tool_call", "fallback", "fail", "dead_letter"]) {
      const r = failbook(["explain", action], { cwd: dir });
      expect(r.code, action).toBe(0);
      expect(r.stdout).not.toContain("In this playbook");
      const summary = r.stdout.split("\n")[1];
      expect(readme).toContain(`#### \`${action}\`\n\n${summary}\n`);
    }
  });

  it("runs on every example project", () => {
    for (const project of EXAMPLE_PROJECTS) {
      const r = failbook(["--config", join("examples", project), "explain", "fail"]);
      expect(r.code, project).toBe(0);
      expect(r.stdout).toContain("In this playbook\n");
    }
  });

  it("a code with an action's name is explained as the code", () => {
    const dir = tempProject({
      "failbook.yaml": "registry: r.yaml\nplaybook: p.yaml\n",
      "r.yaml": "apiVersion: failbook/v1\nkind: Registry\nname: t\nrevision: 1\nclasses: { unknown: { description: y } }\nverdicts:\n  - { code: fallback, class: unknown, retryable: false, summary: Nothing matched. }\nfallback: fallback\n",
      "p.yaml": "apiVersion: failbook/v1\nkind: Playbook\nname: p\nverdicts:\n  fallback: { action: fail }\n",
    });
    const r = failbook(["explain", "fallback"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^fallback {2}\(active\)\nNothing matched\./);
  });
});
