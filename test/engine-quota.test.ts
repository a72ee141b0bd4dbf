/** SPEC 12: one retry quota (a token bucket) shared by every dispatch of a dispatcher; SPEC 13: unknown side effects. */
import { describe, expect, it } from "vitest";
import { VirtualClock } from "failbook-runtime/engine/clock.js";
import { createDispatcher } from "failbook-runtime/engine/dispatch.js";
import { seededRandom } from "failbook-runtime/engine/random.js";
import type { Playbook, RetryQuota } from "failbook-runtime/model/playbook.js";
import { CALL, dispatchScenario, err, ok, playbook, REGISTRY, replay, retry } from "./helpers/dispatch.js";

function dispatcherWith(quota: RetryQuota, tokens?: number, extra: Partial<Playbook> = {}) {
  const clock = new VirtualClock();
  const dispatcher = createDispatcher({
    registry: REGISTRY,
    playbook: playbook({ timeout: retry(3, [10, 10, 10]), server: retry(3, [10, 10, 10]) }, { retry_quota: quota, ...extra }),
    clock,
    random: seededRandom(0),
    ...(tokens === undefined ? {} : { quotaTokens: tokens }),
  });
  const run = (responses: Parameters<typeof replay>[1], id = "c") => dispatcher.dispatch({ ...CALL, id }, replay(clock, responses), { runId: "r" });
  return { dispatcher, run };
}

describe("retry quota", () => {
  it("takes each retry's cost by class, then by kind, then the default", () => {
    const { dispatcher } = dispatcherWith({ capacity: 100, cost: 5, cost_by_kind: { timeout: 10 }, cost_by_class: { transient: 7 } });
    expect(dispatcher.quota?.costOf("transient", "timeout")).toBe(7);
    expect(dispatcher.quota?.costOf("permanent", "timeout")).toBe(10);
    expect(dispatcher.quota?.costOf("permanent", "other")).toBe(5);
    expect(dispatcher.quota?.costOf("constructor", "__proto__")).toBe(5);
  });

  it("an outage drains the bucket across calls until retries are suppressed, then success refills it", async () => {
    const { dispatcher, run } = dispatcherWith({ capacity: 20, cost: 5, refund: 1 });
    const first = await run([err("timeout"), err("timeout"), err("timeout"), err("timeout")], "a");
    expect(first.outcome).toMatchObject({ kind: "exhausted", reason: "max_retries", retried: 3 });
    expect(dispatcher.quota?.tokens).toBe(5);
    const second = await run([err("timeout"), err("timeout"), ok()], "b");
    expect(second.outcome).toMatchObject({ kind: "exhausted", reason: "retry_quota", retried: 1, exhausted: true });
    expect(second.events.at(-1)).toEqual({ t: expect.any(Number), type: "retry_quota_exhausted", verdict: "timeout", cost: 5, tokens: 0 });
    // Recovery: each first-time success returns `refund`.
    for (let i = 0; i < 5; i++) await run([ok()], `ok${i}`);
    expect(dispatcher.quota?.tokens).toBe(5);
    const third = await run([err("timeout"), ok()], "c");
    expect(third.outcome.kind).toBe("recovered");
    // A recovered dispatch returns its last retry's cost (refund_on_recovery: last).
    expect(dispatcher.quota?.tokens).toBe(5);
  });

  it("refund_on_recovery all and none, and never past capacity", async () => {
    const all = dispatcherWith({ capacity: 30, cost: 5, refund_on_recovery: "all" }, 20);
    await all.run([err("timeout"), err("timeout"), ok()]);
    expect(all.dispatcher.quota?.tokens).toBe(20);
    const none = dispatcherWith({ capacity: 30, cost: 5, refund_on_recovery: "none" }, 20);
    await none.run([err("timeout"), err("timeout"), ok()]);
    expect(none.dispatcher.quota?.tokens).toBe(10);
    const full = dispatcherWith({ capacity: 30, refund: 3 });
    await full.run([ok()]);
    expect(full.dispatcher.quota?.tokens).toBe(30);
  });

  it("starts from quotaTokens (a fixture's quota.tokens)", async () => {
    const { run } = dispatcherWith({ capacity: 500 }, 0);
    const { outcome } = await run([err("timeout"), ok()]);
    expect(outcome).toMatchObject({ kind: "exhausted", reason: "retry_quota" });
  });

  it("without retry_quota there is no bucket", () => {
    const d = createDispatcher({ registry: REGISTRY, playbook: playbook({}), clock: new VirtualClock(), random: seededRandom(0) });
    expect(d.quota).toBeUndefined();
  });
});

describe("on_unknown_side_effect", () => {
  const notIdempotent = { idempotent: false };

  it("escalates a refused retry when the side effect is unknown (the verdict's default)", async () => {
    const { outcome, events } = await dispatchScenario({
      playbook: playbook({ timeout: retry(2) }, { on_unknown_side_effect: { queue: "reconcile" } }),
      call: notIdempotent,
      responses: [err("timeout"), ok()],
    });
    expect(outcome).toMatchObject({ kind: "escalated", queue: "reconcile", reason: "side_effect_unknown", attempts: 1 });
    expect(events.map((e) => e.type)).toEqual(["attempt", "failure_classified", "retry_suppressed", "escalated"]);
    expect(outcome.packet).toMatchObject({ queue: "reconcile", reason: "side_effect_unknown" });
  });

  it("leaves a known side effect alone: the error's own state wins over the verdict's", async () => {
    const known = await dispatchScenario({
      playbook: playbook({ timeout: retry(2) }, { on_unknown_side_effect: { queue: "reconcile" } }),
      call: notIdempotent,
      responses: [err("timeout", { side_effect_state: "none" }), ok()],
    });
    expect(known.outcome).toMatchObject({ kind: "failed", reason: "non_idempotent" });
    const server = await dispatchScenario({ playbook: playbook({ server: retry(2) }, { on_unknown_side_effect: { queue: "reconcile" } }), call: notIdempotent, responses: [err("x", { http_status: 500 })] });
    expect(server.outcome).toMatchObject({ kind: "failed", reason: "non_idempotent" });
  });

  it("without the key, section 4 stands", async () => {
    const { outcome } = await dispatchScenario({ playbook: playbook({ timeout: retry(2) }), call: notIdempotent, responses: [err("timeout")] });
    expect(outcome).toMatchObject({ kind: "failed", reason: "non_idempotent" });
  });
});
