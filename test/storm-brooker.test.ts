/**
 * Brooker's published simulations, rebuilt as storm files from their set-ups
 * (test/storms/brooker/, examples/storm-retry-collapse/), must give his qualitative results
 * when the real dispatcher runs the strategies as playbooks.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BROOKER, runProjectStorm } from "./helpers/storm.js";
import { REPO } from "./helpers/cli.js";
import type { Storm } from "../src/storm/model.js";

const withFailureRatio = (ratio: number) => (s: Storm): Storm => ({ ...s, upstream: { ...s.upstream, errors: [{ ratio, error: s.upstream.errors![0].error }] } });

describe("Exponential Backoff and Jitter (AWS Architecture Blog, 2015): clients contending on one row", () => {
  it("full jitter does far less work than backoff alone, and every client gets its write through sooner", async () => {
    const none = await runProjectStorm(join(BROOKER, "occ-jitter-none.failbook.yaml"));
    const full = await runProjectStorm(join(BROOKER, "occ-jitter-full.failbook.yaml"));
    // Every write lands either way (40 retries is plenty): the difference is the work and the wait.
    expect([none.summary.success_ratio, full.summary.success_ratio]).toEqual([1, 1]);
    // Without jitter the retries stay in clusters: the clients compete round after round.
    expect(none.summary.amplification).toBeGreaterThan(2 * full.summary.amplification);
    expect(none.summary.latency_ms.max).toBeGreaterThan(5 * full.summary.latency_ms.max);
  });
});

describe("Fixing retries with token buckets and circuit breakers (Brooker, 2022): independent failures", () => {
  const config = (name: string) => join(BROOKER, `failures-${name}.failbook.yaml`);

  it("N retries do 1 + N times the work at a 100 % failure rate; the token bucket stays near 1", async () => {
    const retries = await runProjectStorm(config("three-retries"), withFailureRatio(1));
    const bucket = await runProjectStorm(config("token-bucket"), withFailureRatio(1));
    expect(retries.summary.amplification).toBe(4);
    expect(bucket.summary.amplification).toBeLessThan(1.05);
  });

  it("at a low failure rate the token bucket retries as N retries do: same work, same success", async () => {
    const retries = await runProjectStorm(config("three-retries"), withFailureRatio(0.01));
    const bucket = await runProjectStorm(config("token-bucket"), withFailureRatio(0.01));
    expect(bucket.summary.amplification).toBe(retries.summary.amplification);
    expect(bucket.summary.success_ratio).toBe(retries.summary.success_ratio);
  });

  it("at a 50 % failure rate the token bucket behaves like 'some percent retries', N retries like N retries", async () => {
    const retries = await runProjectStorm(config("three-retries"), withFailureRatio(0.5));
    const bucket = await runProjectStorm(config("token-bucket"), withFailureRatio(0.5));
    expect(retries.summary.amplification).toBeGreaterThan(1.8);
    expect(bucket.summary.amplification).toBeLessThan(1.15);
    expect(bucket.summary.success_ratio).toBeLessThan(retries.summary.success_ratio);
  });
});

describe("a retry-driven collapse after a short load spike (mbrooker/simulator_example, simple_collapse_sim)", () => {
  const example = join(REPO, "examples/storm-retry-collapse");

  it("immediate retries keep the upstream down after the spike ends: metastable", async () => {
    const naive = await runProjectStorm(join(example, "naive/failbook.yaml"));
    expect(naive.summary.verdict).toBe("metastable");
    expect(naive.summary.amplification).toBeGreaterThan(2.5);
  });

  it("backoff with full jitter and a retry quota: the same spike, and the service comes back", async () => {
    const fixed = await runProjectStorm(join(example, "failbook.yaml"));
    expect(fixed.summary.verdict).toBe("recovered");
    expect(fixed.summary.recovery_ms).toBeLessThanOrEqual(30000);
    expect(fixed.checks.every((c) => c.passed)).toBe(true);
  });

  it("gives the same verdicts with another seed", async () => {
    const naive = await runProjectStorm(join(example, "naive/failbook.yaml"), undefined, 12345);
    const fixed = await runProjectStorm(join(example, "failbook.yaml"), undefined, 12345);
    expect([naive.summary.verdict, fixed.summary.verdict]).toEqual(["metastable", "recovered"]);
  });
});
