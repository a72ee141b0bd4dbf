/**
 * Section 18's published figures for each policy (and the retry quota of section 12), observed inside a storm (SPEC 19's
 * oracles): the storm files in test/storms/policies/ set up a fleet whose retry decisions all
 * fall at one instant, so the report's counters show the policy's figure exactly, per client
 * and per fleet (`shared`).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "./helpers/cli.js";
import { runProjectStorm } from "./helpers/storm.js";
import type { Storm } from "../src/storm/model.js";
import type { StormResult } from "../src/storm/run.js";

const POLICIES = join(REPO, "test/storms/policies");
const clients = (count: number, shared: "client" | "fleet") => (s: Storm): Storm => ({ ...s, clients: { ...s.clients, count, shared } });
/** The run's totals of the report's per-bucket counters. */
const totals = (r: StormResult) => {
  const sum = (key: "sent" | "retries" | "budget_refused" | "throttled") => r.buckets.reduce((a, b) => a + b[key], 0);
  return { calls: r.summary.calls, sent: sum("sent"), retries: sum("retries"), budget_refused: sum("budget_refused"), throttled: sum("throttled") };
};

describe("Envoy's retry budget in a storm: 20 %, at least 3 retries in progress", () => {
  const budget = (count: number, shared: "client" | "fleet") => runProjectStorm(join(POLICIES, "envoy-budget.failbook.yaml"), clients(count, shared)).then(totals);

  it("allows 5 retries at 25 calls in progress (one budget for the fleet); the other 20 calls end refused", async () => {
    expect(await budget(25, "fleet")).toEqual({ calls: 25, sent: 30, retries: 5, budget_refused: 20, throttled: 0 });
  });

  it("allows 3 at 10 calls in progress (20 % is 2; the minimum is 3)", async () => {
    expect(await budget(10, "fleet")).toEqual({ calls: 10, sent: 13, retries: 3, budget_refused: 7, throttled: 0 });
  });

  it("refuses nothing at 2 calls in progress: the limit is 3", async () => {
    expect(await budget(2, "fleet")).toEqual({ calls: 2, sent: 4, retries: 2, budget_refused: 0, throttled: 0 });
  });

  it("per client (as deployed) each budget sees one call in progress: all 25 retry", async () => {
    expect(await budget(25, "client")).toEqual({ calls: 25, sent: 50, retries: 25, budget_refused: 0, throttled: 0 });
  });
});

describe("gRPC's retry throttling (A6) in a storm: max_tokens 10, token_ratio 0.1", () => {
  const throttling = (count: number, shared: "client" | "fleet") => runProjectStorm(join(POLICIES, "grpc-throttling.failbook.yaml"), clients(count, shared)).then(totals);

  it("throttles a client after 5 straight failures from a full bucket: 5 attempts, 4 retries, then retry_throttled", async () => {
    const r = await runProjectStorm(join(POLICIES, "grpc-throttling.failbook.yaml"), clients(1, "client"));
    expect(totals(r)).toEqual({ calls: 1, sent: 5, retries: 4, budget_refused: 0, throttled: 1 });
    expect(r.buckets[0].outcomes).toEqual({ exhausted: 1 });
  });

  it("per client, each of 3 clients has its own bucket: 5 attempts each", async () => {
    expect(await throttling(3, "client")).toEqual({ calls: 3, sent: 15, retries: 12, budget_refused: 0, throttled: 3 });
  });

  it("shared by the fleet, one bucket: the fleet's 5th straight failure throttles every call", async () => {
    // The first 4 failures leave 9, 8, 7, 6 tokens and are retried; the 5th leaves 5, not above
    // half, and it and every later failure are throttled: 4 retries in all, as one client alone gets.
    expect(await throttling(3, "fleet")).toEqual({ calls: 3, sent: 7, retries: 4, budget_refused: 0, throttled: 3 });
  });
});

describe("the retry quota (SPEC 12, the AWS SDKs' standard mode) in a storm: 500 tokens, 5 a retry", () => {
  const quota = (count: number, shared: "client" | "fleet") => runProjectStorm(join(POLICIES, "aws-quota.failbook.yaml"), clients(count, shared)).then(totals);

  it("shared by the fleet: 100 retries through an outage, then every retry refused", async () => {
    // 25 calls retry 4 times each (100 retries, 500 tokens); their 5th failures find the bucket empty.
    expect(await quota(25, "fleet")).toEqual({ calls: 25, sent: 125, retries: 100, budget_refused: 0, throttled: 25 });
  });

  it("per client, each bucket is far from empty: every call makes its 9 retries", async () => {
    expect(await quota(25, "client")).toEqual({ calls: 25, sent: 250, retries: 225, budget_refused: 0, throttled: 0 });
  });
});
