/**
 * SPEC 18: "everything above is shown by explain and the worst case, rendered in render".
 * Through the CLI: explain says which breaker guards a code's tools and what an open one
 * does, the attempt timeout in force, the retry budget and throttling, a symmetric jitter in
 * words, refresh_credentials; the worst case adds attempts × timeout; render has a Policies
 * section in Markdown and HTML, and its JSON carries them under the published schema.
 */
import { describe, expect, it } from "vitest";
import { failbook } from "./helpers/cli.js";
import { playbookLines, POLICIES_PLAYBOOK, policiesProject, renderedJson } from "./helpers/policies-project.js";


const project = () => policiesProject();

describe("explain shows the policies of SPEC 18", () => {
  const dir = project();

  it("a retried verdict: the jitter range in words, the worst case with attempt timeouts, the budget, throttling, the timeout, the breaker", () => {
    const lines = playbookLines(dir, "transient_timeout");
    expect(lines[0]).toBe("retry_with_backoff: 3 retries; exponential from 100 ms ×2, jitter ×0.8 to ×1.2 (the delay times a uniform draw from 0.8 to 1.2)");
    // 4 attempts × 3 s (the longest timeout: the verdict names no tool) + 120 + 240 + 480 ms.
    expect(lines[1]).toContain("at most 12.8 s in all (4 attempts × 3 s attempt timeout + 840 ms backoff), more than budgets.wall_ms (8 s), which ends the dispatch first");
    expect(lines).toContain("retry budget: a retry only while the retries in progress are fewer than max(3, 20 % of the calls in progress); else the dispatch ends exhausted, reason retry_budget");
    expect(lines).toContain("retry throttling: 10 tokens shared by every call; a failed attempt of a retryable verdict takes 1, a success gives back 0.1; retries and hedges only while more than 5 remain, else the dispatch ends exhausted, reason retry_throttled");
    expect(lines).toContain("attempt timeout: 2 s for payments.*; 3 s for any other tool; an attempt that has not answered by then ends as the adapter error attempt_timeout (side effect unknown), classified like any other");
    const breaker = lines.find((l) => l.startsWith("breaker payments: "));
    expect(breaker).toBe(
      "breaker payments: a failure with this code counts toward opening it; guards payments.* (one state for all its tools); opens when, within the last 10 s, at least 20 attempts were counted and at least 50 % of them failed (a failure counts when its verdict is retryable or it is an attempt timeout; every success counts); stays open for 5 s, doubled at each reopening up to 1 min, then lets 1 probe through: all succeed and it closes, one fails and it opens again; while open, an attempt is not sent: it fails at once as the adapter error circuit_open, which classifies to circuit_open (fallback: to tool ledger.charge)",
    );
  });

  it("the worst case takes the timeout of the tool a verdict's rules name", () => {
    // ledger.charge has no tools: entry: the playbook's 3 s; 2 attempts + 500 ms.
    expect(playbookLines(dir, "ledger_slow")[1]).toContain("at most 6.5 s in all (2 attempts × 3 s attempt timeout + 500 ms backoff)");
  });

  it("the circuit_open verdict says an open breaker's attempts classify as it; a verdict the breaker does not count says so", () => {
    expect(playbookLines(dir, "circuit_open").find((l) => l.startsWith("breaker payments: "))).toMatch(/^breaker payments: an attempt it stops classifies as this code; /);
    expect(playbookLines(dir, "declined").find((l) => l.startsWith("breaker payments: "))).toMatch(/^breaker payments: a failure with this code does not count toward it; /);
    // Not a retry: no budget or throttling line.
    expect(playbookLines(dir, "declined").some((l) => l.startsWith("retry budget") || l.startsWith("retry throttling"))).toBe(false);
  });

  it("refresh_credentials: the effect, the event, the retry's context", () => {
    const lines = playbookLines(dir, "token_expired");
    expect(lines[0]).toBe("refresh_credentials: then retry");
    // A 401 can come from a hedged search.* call: a race of 3, refreshed, then another race of 3.
    expect(lines[1]).toBe(
      "worst case: at most 6 attempts; at most 18 s in all (6 attempts × 3 s attempt timeout), more than budgets.wall_ms (8 s), which ends the dispatch first; a hedged call (search.*) sends up to 6 attempts (at most 3 in flight) and never retries",
    );
    expect(lines[2]).toBe('refresh credentials: effects.refreshCredentials(call) runs (event credentials_refreshed), then one immediate attempt whose context says refreshed: "credentials"; if it fails too, the call is deprecated with replan');
  });

  it("a playbook without the policies prints none of these lines", () => {
    const plain = policiesProject(POLICIES_PLAYBOOK.replace(/^attempt_timeout_ms[\s\S]*?^verdicts:/m, "verdicts:"));
    const lines = playbookLines(plain, "transient_timeout");
    expect(lines.filter((l) => /^(attempt timeout|breaker|retry budget|retry throttling):/.test(l) || l.includes("in all ("))).toEqual([]);
  });
});

describe("render shows the policies of SPEC 18", () => {
  const dir = project();

  it("markdown: a Policies section with the timeouts, budget, throttling, hedging and a section per breaker", () => {
    const md = failbook(["render", "--format", "md"], { cwd: dir }).stdout;
    const policies = md.slice(md.indexOf("## Policies"), md.indexOf("## Reference"));
    expect(policies).toContain("**Attempt timeout:** 2 s for payments.\\*; 3 s for any other tool;");
    expect(policies).toContain("**Retry budget:** a retry only while the retries in progress are fewer than max(3, 20 % of the calls in progress)");
    expect(policies).toContain("**Retry throttling:** 10 tokens shared by every call;");
    expect(policies).toContain("**Hedging:** an idempotent call to search.\\* sends up to 3 attempts in flight, one more every 200 ms without an answer; the first success wins and the rest are cancelled; a failure of transient sends the next at once");
    expect(policies).toContain("### Breaker `payments`\n\n- guards payments.\\* (one state for all its tools); opens when, within the last 10 s, at least 20 attempts were counted and at least 50 % of them failed");
    expect(policies).toContain("- while open, an attempt is not sent: it fails at once as the adapter error circuit_open, which classifies to circuit_open (fallback: to tool ledger.charge)");
    // And the worst case with timeouts in the code's section.
    expect(md).toContain("at most 12.8 s in all (4 attempts × 3 s attempt timeout + 840 ms backoff)");
  });

  it("html: the same section, a breaker each", () => {
    const html = failbook(["render", "--format", "html"], { cwd: dir }).stdout;
    expect(html).toContain("<h2>Policies</h2>");
    expect(html).toContain("<dt>Retry throttling</dt><dd>10 tokens shared by every call;");
    expect(html).toContain("<h3>Breaker <code>payments</code></h3>");
  });

  it("json: the policies with their defaults and the worst-case time, valid against schemas/render.schema.json", () => {
    const doc = renderedJson<{
      playbook: { policies: { breakers: { name: string; half_open_probes: number; when_open: unknown[] }[]; retry_budget: unknown; hedging: unknown; tool_timeouts: unknown } };
      codes: { code: string; worst_case: { time: unknown } | null }[];
    }>(dir);
    const [breaker] = doc.playbook.policies.breakers;
    expect(breaker).toMatchObject({ name: "payments", half_open_probes: 1, when_open: [{ verdict: "circuit_open", action: "fallback: to tool ledger.charge" }] });
    expect(doc.playbook.policies.tool_timeouts).toEqual([{ tools: "payments.*", ms: 2000 }]);
    expect(doc.codes.find((c) => c.code === "transient_timeout")?.worst_case?.time).toEqual({ attempt_timeout_ms: 3000, every_tool: true, worst_ms: 12_840, wall_ms: 8000 });
  });
});
