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

const BUDGET = "envoy-budget.failbook.yaml";
const THROTTLING = "grpc-throttling.failbook.yaml";
const QUOTA = "aws-quota.failbook.yaml";

describe.each([
  {
    policy: "Envoy's retry budget (20 %, at least 3 retries in progress)",
    cases: [
      { name: "allows 5 retries at 25 calls in progress (one budget for the fleet); the other 20 calls end refused", config: BUDGET, count: 25, shared: "fleet", totals: { calls: 25, sent: 30, retries: 5, budget_refused: 20, throttled: 0 } },
      { name: "allows 3 at 10 calls in progress (20 % is 2; the minimum is 3)", config: BUDGET, count: 10, shared: "fleet", totals: { calls: 10, sent: 13, retries: 3, budget_refused: 7, throttled: 0 } },
      { name: "refuses nothing at 2 calls in progress: the limit is 3", config: BUDGET, count: 2, shared: "fleet", totals: { calls: 2, sent: 4, retries: 2, budget_refused: 0, throttled: 0 } },
      { name: "per client (as deployed) each budget sees one call in progress: all 25 retry", config: BUDGET, count: 25, shared: "client", totals: { calls: 25, sent: 50, retries: 25, budget_refused: 0, throttled: 0 } },
    ],
  },
  {
    policy: "gRPC's retry throttling (A6: max_tokens 10, token_ratio 0.1)",
    cases: [
      { name: "throttles a client after 5 straight failures from a full bucket: 5 attempts, 4 retries", config: THROTTLING, count: 1, shared: "client", totals: { calls: 1, sent: 5, retries: 4, budget_refused: 0, throttled: 1 } },
      { name: "per client, each of 3 clients has its own bucket: 5 attempts each", config: THROTTLING, count: 3, shared: "client", totals: { calls: 3, sent: 15, retries: 12, budget_refused: 0, throttled: 3 } },
      // The first 4 failures leave 9, 8, 7, 6 tokens and are retried; the 5th leaves 5, not above
      // half, and it and every later failure are throttled: 4 retries in all, as one client alone gets.
      { name: "shared by the fleet, one bucket: the fleet's 5th straight failure throttles every call", config: THROTTLING, count: 3, shared: "fleet", totals: { calls: 3, sent: 7, retries: 4, budget_refused: 0, throttled: 3 } },
    ],
  },
  {
    policy: "the retry quota (SPEC 12, the AWS SDKs' standard mode: 500 tokens, 5 a retry)",
    cases: [
      // 25 calls retry 4 times each (100 retries, 500 tokens); their 5th failures find the bucket empty.
      { name: "shared by the fleet: 100 retries through an outage, then every retry refused", config: QUOTA, count: 25, shared: "fleet", totals: { calls: 25, sent: 125, retries: 100, budget_refused: 0, throttled: 25 } },
      { name: "per client, each bucket is far from empty: every call makes its 9 retries", config: QUOTA, count: 25, shared: "client", totals: { calls: 25, sent: 250, retries: 225, budget_refused: 0, throttled: 0 } },
    ],
  },
] as const)("$policy in a storm", ({ cases }) => {
  it.each(cases)("$name", async ({ config, count, shared, totals: expected }) => {
    const r = await runProjectStorm(join(POLICIES, config), clients(count, shared));
    expect(totals(r)).toEqual(expected);
    // Every call ends exhausted: by its retry limit, or refused by the policy.
    expect(r.buckets.reduce((n, b) => n + (b.outcomes.exhausted ?? 0), 0)).toBe(count);
  });
});
