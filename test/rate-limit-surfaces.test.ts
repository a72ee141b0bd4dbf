/**
 * SPEC 22's surfaces beyond the runtime: `explain` counts the longest wait for a token in a
 * code's worst case and says which rate limit paces it; `render` shows each rate limit in
 * Markdown, HTML and JSON (under the published schema), as it shows circuit breakers.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { failbook, REPO } from "./helpers/cli.js";
import { playbookLines, policiesProject, RATE_LIMITS_PLAYBOOK, renderedJson } from "./helpers/policies-project.js";

const GITHUB = join(REPO, "examples/github-rate-limit");

describe("explain: the worst case counts the waits for a token (SPEC 22)", () => {
  it("github-rate-limit: each attempt may wait max_wait_ms for a token, and the rate limit is spelled out", () => {
    const lines = playbookLines(GITHUB, "primary_rate_limit");
    expect(lines[1]).toContain("; each attempt may first wait up to 10 s for a token of rate limit github (at most 30 s over 3 attempts)");
    expect(lines).toContain(
      "rate limit github: it paces the tools this code can come from; paces github.* at 5000 requests every 60 min (a token bucket of 100); x-ratelimit-remaining and x-ratelimit-reset (a Unix time in seconds) of every answer correct the bucket (the github dialect): its tokens become at most what remains, refilled at the reset; an attempt takes a token before it is sent (retries included; a hedge is sent only with one, never waiting); with none it waits up to 10 s for one, never past the caller's deadline; an attempt it refuses is not sent: it fails at once as the adapter error rate_limited, which classifies to paced_out (fail: our GitHub rate limit had no token in time)",
    );
    expect(playbookLines(GITHUB, "paced_out").find((l) => l.startsWith("rate limit github: "))).toMatch(/^rate limit github: an attempt it refuses classifies as this code; /);
  });

  it("under attempt timeouts, the waits add to the time in all", () => {
    const dir = policiesProject(RATE_LIMITS_PLAYBOOK);
    // ledger.charge: 2 attempts × 3 s + 500 ms backoff + 2 × 1.5 s for the ledger's tokens.
    const [, worst] = playbookLines(dir, "ledger_slow");
    expect(worst).toContain("at most 9.5 s in all (2 attempts × 3 s attempt timeout + 500 ms backoff + 3 s waiting for tokens)");
    expect(worst).toContain("each attempt may first wait up to 1.5 s for a token of rate limit ledger (at most 3 s over 2 attempts)");
    expect(worst).not.toContain("search");
  });

  it("a code from any tool: an adaptive limit's wait is unbounded, one that fails when empty never holds an attempt", () => {
    const dir = policiesProject(RATE_LIMITS_PLAYBOOK);
    const lines = playbookLines(dir, "transient_timeout");
    expect(lines[1]).toContain("at most 12.8 s in all (4 attempts × 3 s attempt timeout + 840 ms backoff), plus the waits for a token that nothing bounds");
    expect(lines[1]).toContain(
      "each attempt may first wait up to 1.5 s for a token of rate limit ledger, and for a token of rate limit search without bound (the AWS SDK's adaptive loop, no max_wait_ms; only the caller's deadline ends it); rate limit strict never holds an attempt (when_empty: fail: without a token it fails at once)",
    );
    expect(lines.find((l) => l.startsWith("rate limit strict: "))).toContain(
      "x-left and x-reset (a Unix time in ms) of every answer correct the bucket: its tokens become at most what remains, refilled at the reset; an attempt takes a token before it is sent (retries included; a hedge is sent only with one, never waiting); with none it fails at once (when_empty: fail); an attempt it refuses is not sent: it fails at once as the adapter error rate_limited, which classifies to unknown_error (escalate_to_human: queue oncall)",
    );
    expect(lines.find((l) => l.startsWith("rate limit search: "))).toContain("paces search.*; the AWS SDK's adaptive retry mode (DefaultRateLimiter: off until the first throttling answer, then a bucket whose rate follows CUBIC);");
  });

  it("a playbook without rate limits says nothing of tokens", () => {
    const lines = playbookLines(policiesProject(), "transient_timeout");
    expect(lines.filter((l) => l.includes("token of rate limit") || l.startsWith("rate limit "))).toEqual([]);
  });
});

describe("render shows the rate limits (SPEC 22)", () => {
  it("markdown: a section per rate limit under Policies, and the worst case's waits", () => {
    const md = failbook(["render", "--format", "md"], { cwd: GITHUB }).stdout;
    const policies = md.slice(md.indexOf("## Policies"), md.indexOf("## Reference"));
    expect(policies).toContain("### Rate limit `github`\n\n- paces github.\\* at 5000 requests every 60 min (a token bucket of 100); x-ratelimit-remaining and x-ratelimit-reset");
    expect(policies).toContain("- an attempt it refuses is not sent: it fails at once as the adapter error rate_limited, which classifies to paced_out (fail: our GitHub rate limit had no token in time)");
    expect(md).toContain("each attempt may first wait up to 10 s for a token of rate limit github (at most 30 s over 3 attempts)");
  });

  it("html: a section per rate limit", () => {
    const html = failbook(["render", "--format", "html"], { cwd: GITHUB }).stdout;
    expect(html).toContain('<section class="rate-limit">\n<h3>Rate limit <code>github</code></h3>\n<p>paces github.* at 5000 requests every 60 min (a token bucket of 100);');
  });

  it("json: each rate limit with its defaults and each code's waits, valid against schemas/render.schema.json", () => {
    type Rendered = { playbook: { policies: { rate_limits: { name: string }[] } }; codes: { code: string; worst_case: { paced: unknown } | null }[] };
    const doc = renderedJson<Rendered>(GITHUB);
    expect(doc.playbook.policies.rate_limits).toEqual([
      {
        name: "github",
        tools: ["github.*"],
        limit: { requests: 5000, per_ms: 3_600_000 },
        burst: 100,
        from_headers: "github",
        headers: { remaining: "x-ratelimit-remaining", reset: "x-ratelimit-reset", reset_form: "epoch_seconds", limit: "x-ratelimit-limit", ietf: false },
        when_empty: "wait",
        max_wait_ms: 10_000,
        adaptive: null,
        when_empty_verdicts: [{ verdict: "paced_out", action: "fail: our GitHub rate limit had no token in time" }],
      },
    ]);
    expect(doc.codes.find((c) => c.code === "primary_rate_limit")?.worst_case?.paced).toEqual({
      limits: [{ name: "github", wait_ms: 10_000, bound: "max_wait_ms" }],
      waiting_attempts: 3,
      attempt_wait_ms: 10_000,
      total_wait_ms: 30_000,
    });
    const paced = renderedJson<Rendered>(policiesProject(RATE_LIMITS_PLAYBOOK));
    const search = paced.playbook.policies.rate_limits.find((r) => r.name === "search");
    expect(search).toMatchObject({ limit: null, burst: null, from_headers: null, headers: null, adaptive: "aws" });
    expect(paced.codes.find((c) => c.code === "declined")?.worst_case?.paced).toMatchObject({ attempt_wait_ms: null, total_wait_ms: null });
  });
});
