/**
 * The examples under examples/ model the five seed documents. Each must keep linting clean
 * and keep simulating exactly as its goldens record, so an example can never rot.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { failbook, REPO } from "./helpers/cli.js";

const EXAMPLES = join(REPO, "examples");

/** Every examples/<name>/ that holds a failbook project (examples/adapter holds code, not one). */
const projects = readdirSync(EXAMPLES, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(EXAMPLES, d.name, "failbook.yaml")))
  .map((d) => d.name)
  .sort();

interface LintJson {
  findings: { rule: string; severity: string; file: string; message: string }[];
  errors: number;
  warnings: number;
}

interface SimulateJson {
  results: { fixture: string; passed: boolean | null; diff: unknown }[];
  passed: number;
  failed: number;
}

function lint(project: string, ...flags: string[]): { code: number; report: LintJson } {
  const r = failbook(["--config", join("examples", project), "lint", "--format", "json", ...flags]);
  return { code: r.code, report: JSON.parse(r.stdout) as LintJson };
}

function simulate(project: string): { code: number; stdout: string; report: SimulateJson } {
  const r = failbook(["--config", join("examples", project), "simulate", "--format", "json"]);
  return { code: r.code, stdout: r.stdout, report: JSON.parse(r.stdout) as SimulateJson };
}

describe("examples", () => {
  it("finds the five seed examples", () => {
    expect(projects).toEqual(expect.arrayContaining(["orchestrator-routing", "recovery-spec", "runtime-failure-classes", "tool-envelopes", "typed-verdicts"]));
  });

  describe.each(projects)("%s", (project) => {
    it("lints with no errors", () => {
      const { code, report } = lint(project);
      expect(report.findings.filter((f) => f.severity === "error")).toEqual([]);
      expect(code).toBe(0);
    });

    it("simulates every fixture to its golden", () => {
      const { code, report } = simulate(project);
      const failing = report.results.filter((r) => r.passed !== true).map((r) => ({ fixture: r.fixture, passed: r.passed, diff: r.diff }));
      // A fixture without expect (passed: null) would demonstrate nothing.
      expect(failing).toEqual([]);
      expect(report.results.length).toBeGreaterThan(0);
      expect(code).toBe(0);
    });

    it("has a README that says which seed or which SDK it models", () => {
      const readme = readFileSync(join(EXAMPLES, project, "README.md"), "utf8");
      expect(readme).toMatch(/seed 00[0-4]|Models \*\*the (AWS|OpenAI) SDK/);
    });
  });

  describe("typed-verdicts/as-written", () => {
    const project = "typed-verdicts/as-written";

    it("reports the document's fallback contradiction as fallback-retried, and nothing worse", () => {
      const { code, report } = lint(project);
      const finding = report.findings.find((f) => f.rule === "fallback-retried");
      expect(finding).toMatchObject({ severity: "warning", file: "examples/typed-verdicts/as-written/playbook.yaml" });
      expect(finding?.message).toContain("server_error_5xx");
      expect(report.errors).toBe(0);
      expect(code).toBe(0);
    });

    it("fails a build that treats warnings as failures", () => {
      expect(lint(project, "--fail-on", "warning").code).toBe(1);
    });

    it("retries an unknown error, as its golden records", () => {
      const { code, report } = simulate(project);
      expect(report.results.map((r) => [r.fixture, r.passed])).toEqual([["unknown-kind-is-retried", true]]);
      expect(code).toBe(0);
    });
  });

  it("payments-breaker: the breaker opens at the sixth timed-out attempt of a waves run and the next charge goes to the ledger unsent; an open start does the same; a slow search is won by its hedge", () => {
    const { report } = simulate("payments-breaker");
    type Run = { fixture: string; outcome: { kind: string; calls?: { id: string; kind: string }[] }; events: { type: string; call?: string; short_circuited?: boolean; error_kind?: string; breaker?: string }[] };
    const results = report.results as unknown as Run[];
    const waves = results.find((r) => r.fixture === "timeouts-open-the-breaker-and-the-ledger-takes-over")!;
    expect(waves.events.filter((e) => e.type === "attempt" && e.error_kind === "attempt_timeout")).toHaveLength(6);
    expect(waves.events.filter((e) => e.type === "breaker_opened")).toEqual([expect.objectContaining({ breaker: "payments", call: "charge-2" })]);
    expect(waves.events.find((e) => e.call === "charge-3" && e.type === "attempt")).toMatchObject({ short_circuited: true });
    expect(waves.outcome.calls?.find((c) => c.id === "charge-3")).toMatchObject({ kind: "recovered" });
    const open = results.find((r) => r.fixture === "open-breaker-queues-the-charge-in-the-ledger")!;
    expect(open.events.map((e) => e.type)).toEqual(["attempt", "failure_classified", "fallback_started", "attempt"]);
    expect(open.outcome.kind).toBe("recovered");
    const hedged = results.find((r) => r.fixture === "a-slow-search-is-won-by-its-hedge")!;
    expect(hedged.outcome.kind).toBe("succeeded");
    expect(hedged.events.filter((e) => e.type === "hedge_cancelled")).toHaveLength(1);
  });

  it("tool-envelopes: the secrets in a fixture's error never reach the simulate output", () => {
    const fixture = readFileSync(join(EXAMPLES, "tool-envelopes/fixtures/escalations.yaml"), "utf8");
    const secrets = ["dXNlcjpodW50ZXIy", "dpl_tok_Q7hZr2Kp9WmX4vTb8LcN1sYe"];
    for (const secret of secrets) expect(fixture).toContain(secret);
    const json = simulate("tool-envelopes").stdout;
    const text = failbook(["--config", "examples/tool-envelopes", "simulate"]).stdout;
    for (const secret of secrets) {
      expect(json).not.toContain(secret);
      expect(text).not.toContain(secret);
    }
    expect(json).toContain("[REDACTED]");
  });
});
