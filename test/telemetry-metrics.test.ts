/**
 * SPEC 24: the dispatcher's metrics through `@opentelemetry/api`'s meter `failbook`, recorded
 * only when a MeterProvider is registered, never failing a dispatch. The instruments here are
 * a recording fake registered through the real API; test/telemetry-prometheus.test.ts runs the
 * real SDK and the Prometheus exporter end to end.
 */
import { readFileSync } from "node:fs";
import { metrics } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { VirtualClock } from "failbook-runtime/engine/clock.js";
import { createDispatcher } from "failbook-runtime/engine/dispatch.js";
import { seededRandom } from "failbook-runtime/engine/random.js";
import type { FleetStore } from "failbook-runtime/engine/fleet/index.js";
import type { Response } from "failbook-runtime/model/fixture.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import { CALL, err, manualFleetTimers, ok, playbook, REGISTRY, replay, retry, settle } from "./helpers/dispatch.js";

type Recorded = { instrument: string; value: number; attributes: Record<string, string> };

/** A MeterProvider whose instruments write down every call, or throw on each when `broken`. */
function fakeProvider(broken = false) {
  const recorded: Recorded[] = [];
  const meters: string[] = [];
  const created: string[] = [];
  const instrument = (name: string) => {
    created.push(name);
    const write = (value: number, attributes: Record<string, string> = {}) => {
      if (broken) throw new Error("exporter down");
      recorded.push({ instrument: name, value, attributes: { ...attributes } });
    };
    return { add: write, record: write, name };
  };
  const callbacks: ((r: { observe(o: { name: string }, v: number, a?: Record<string, string>): void }) => void)[] = [];
  const meter = {
    createHistogram: instrument,
    createCounter: instrument,
    createObservableGauge: instrument,
    createObservableCounter: instrument,
    addBatchObservableCallback: (cb: (typeof callbacks)[number]) => void callbacks.push(cb),
  };
  const provider = { getMeter: (name: string) => (meters.push(name), meter) };
  const collect = () => {
    for (const cb of callbacks) cb({ observe: (o, value, attributes = {}) => recorded.push({ instrument: o.name, value, attributes: { ...attributes } }) });
  };
  return { provider, recorded, meters, created, collect };
}

const POLICIES: Partial<Playbook> = {
  circuit_breakers: { payments: { tools: "payments.*", failure_ratio: 0.5, minimum_throughput: 2, sampling_ms: 10_000, break_ms: 1000 } },
  retry_budget: { percent: 20, min_concurrency: 3 },
  retry_throttling: { max_tokens: 10, token_ratio: 0.1 },
  retry_quota: { capacity: 20, cost: 5 },
  rate_limits: { api: { tools: "payments.*", limit: { requests: 10, per_ms: 1000 } } },
};
const e503 = (latency: number): Response => err("upstream", { http_status: 503 }, latency);

function dispatcherOn(pb: Playbook = playbook({ server: retry(3, [100]) }, POLICIES)) {
  const clock = new VirtualClock();
  return { clock, dispatcher: createDispatcher({ registry: REGISTRY, playbook: pb, clock, random: seededRandom(0) }) };
}

afterEach(() => metrics.disable());

describe("metrics (SPEC 24)", () => {
  it("records nothing, and leaves dispatch() as it is, without a registered MeterProvider", async () => {
    const plain = createDispatcher({ registry: REGISTRY, playbook: playbook({}), clock: new VirtualClock() });
    const fake = fakeProvider();
    metrics.setGlobalMeterProvider(fake.provider as never);
    const counted = createDispatcher({ registry: REGISTRY, playbook: playbook({}), clock: new VirtualClock() });
    // The dispatcher made before the provider was registered checked once and found none.
    await plain.dispatch(CALL, () => ok());
    expect(fake.recorded).toEqual([]);
    await counted.dispatch(CALL, () => ok());
    expect(fake.meters).toEqual(["failbook"]);
    // Only the duration is handed over per dispatch; the attempt is a number the reader collects.
    expect(fake.recorded.map((r) => r.instrument)).toEqual(["failbook.dispatch.duration"]);
    fake.collect();
    expect(fake.recorded.filter((r) => r.instrument === "failbook.attempts")).toEqual([{ instrument: "failbook.attempts", value: 1, attributes: { "failbook.attempt.kind": "first" } }]);
  });

  it("records a failing dispatch from its events: duration with error.type, attempts by kind and verdict, refusals, transitions, escalations", async () => {
    const fake = fakeProvider();
    metrics.setGlobalMeterProvider(fake.provider as never);
    const { clock, dispatcher } = dispatcherOn();
    await dispatcher.dispatch(CALL, replay(clock, [e503(10), e503(10), ok(10)]));
    expect(fake.recorded).toEqual([
      { instrument: "failbook.dispatch.duration", value: 0.22, attributes: { "failbook.tool": "payments.refund", "failbook.outcome": "escalated", "error.type": "unknown" } },
    ]);
    fake.recorded.length = 0;
    fake.collect();
    expect(fake.recorded).toEqual([
      { instrument: "failbook.attempts", value: 1, attributes: { "failbook.attempt.kind": "first", "error.type": "server" } },
      { instrument: "failbook.attempts", value: 1, attributes: { "failbook.attempt.kind": "retry", "error.type": "server" } },
      { instrument: "failbook.retries.refused", value: 1, attributes: { "failbook.refused_by": "breaker" } },
      { instrument: "failbook.breaker.transitions", value: 1, attributes: { "failbook.breaker": "payments", "failbook.breaker.state": "open" } },
      { instrument: "failbook.escalations", value: 1, attributes: { "failbook.queue": "oncall" } },
      { instrument: "failbook.breaker.state", value: 2, attributes: { "failbook.breaker": "payments" } },
      { instrument: "failbook.retry_budget.remaining", value: 3, attributes: {} },
      { instrument: "failbook.retry_throttling.tokens", value: 8, attributes: {} },
      { instrument: "failbook.retry_quota.tokens", value: 10, attributes: {} },
      // Two attempts sent took a token each; the third, refused by the open breaker, took none (and 0.22 s refilled 2.2).
      { instrument: "failbook.rate_limit.tokens", value: 10, attributes: { "failbook.rate_limit": "api" } },
    ]);
  });

  it("names each refusal by the policy that refused: max_attempts, budget, throttling, quota, deadline, rate_limit", async () => {
    const cases: [string, Partial<Playbook>, Response[], string][] = [
      ["max_attempts", {}, [e503(1), e503(1)], "max_attempts"],
      ["quota", { retry_quota: { capacity: 4, cost: 5 } }, [e503(1)], "quota"],
      ["throttling", { retry_throttling: { max_tokens: 1, token_ratio: 0.1 } }, [e503(1)], "throttling"],
      ["wall_ms", { budgets: { wall_ms: 50 } }, [e503(1)], "deadline"],
      ["rate limit", { rate_limits: { api: { tools: "payments.*", limit: { requests: 1, per_ms: 60_000 }, when_empty: "fail" } } }, [e503(1)], "rate_limit"],
    ];
    for (const [name, extra, responses, by] of cases) {
      const fake = fakeProvider();
      metrics.disable();
      metrics.setGlobalMeterProvider(fake.provider as never);
      const { clock, dispatcher } = dispatcherOn(playbook({ server: retry(name === "max_attempts" ? 1 : 3, [100])}, extra));
      await dispatcher.dispatch(CALL, replay(clock, responses));
      fake.collect();
      expect(fake.recorded.filter((r) => r.instrument === "failbook.retries.refused").map((r) => r.attributes["failbook.refused_by"]), name).toEqual([by]);
    }
  });

  it("gives each attempt its own verdict when a fallback numbers its attempts from 1 again", async () => {
    const fake = fakeProvider();
    metrics.setGlobalMeterProvider(fake.provider as never);
    const { clock, dispatcher } = dispatcherOn(playbook({ server: retry(2, [100]), conflict: { action: "fallback", tool: "payments.refund_v2" } }));
    await dispatcher.dispatch(CALL, replay(clock, [err("conflict", {}, 5)], [e503(5), ok(5)]));
    fake.collect();
    expect(fake.recorded.filter((r) => r.instrument === "failbook.attempts").map((r) => [r.attributes["failbook.attempt.kind"], r.attributes["error.type"], r.value])).toEqual([
      ["first", "conflict", 1],
      ["first", "server", 1],
      ["retry", undefined, 1],
    ]);
  });

  it("never fails a dispatch when an instrument throws: the outcome is the one without metrics, with one warning", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on("warning", onWarning);
    try {
      const without = dispatcherOn();
      const expected = await without.dispatcher.dispatch(CALL, replay(without.clock, [e503(10), ok(10)]));
      metrics.setGlobalMeterProvider(fakeProvider(true).provider as never);
      const { clock, dispatcher } = dispatcherOn();
      expect(await dispatcher.dispatch(CALL, replay(clock, [e503(10), ok(10)]))).toEqual(expected);
      await dispatcher.dispatch(CALL, replay(clock, [ok(1)]));
      await new Promise((r) => setImmediate(r));
      expect(warnings).toEqual(["failbook: a metric could not be recorded (the dispatch went on)"]);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("never fails a dispatch when the exporter throws at each export or the meter cannot be made (the real SDK)", async () => {
    const { MeterProvider, PeriodicExportingMetricReader } = await import("@opentelemetry/sdk-metrics");
    const without = dispatcherOn();
    const expected = await without.dispatcher.dispatch(CALL, replay(without.clock, [e503(10), ok(10)]));
    let exports = 0;
    const exporter = { export: () => { exports++; throw new Error("collector unreachable"); }, forceFlush: async () => {}, shutdown: async () => {} };
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 60_000 });
    const provider = new MeterProvider({ readers: [reader] });
    metrics.setGlobalMeterProvider(provider);
    const exported = dispatcherOn();
    for (let i = 0; i < 3; i++) {
      const { clock, dispatcher } = i === 0 ? exported : dispatcherOn();
      expect(await dispatcher.dispatch(CALL, replay(clock, [e503(10), ok(10)]))).toEqual(expected);
      await reader.forceFlush().catch(() => {});
    }
    expect(exports).toBe(3);
    await provider.shutdown().catch(() => {});
    metrics.disable();
    metrics.setGlobalMeterProvider({ getMeter: () => { throw new Error("no meter"); } } as never);
    const { clock, dispatcher } = dispatcherOn();
    expect(await dispatcher.dispatch(CALL, replay(clock, [e503(10), ok(10)]))).toEqual(expected);
  });

  it("documents every metric it makes in docs/telemetry.md: in the metrics table and in the Polly, resilience4j and Envoy mapping", () => {
    const fake = fakeProvider();
    metrics.setGlobalMeterProvider(fake.provider as never);
    dispatcherOn();
    const doc = readFileSync(new URL("../docs/telemetry.md", import.meta.url), "utf8");
    const section = (heading: string) => doc.slice(doc.indexOf(heading), doc.indexOf("\n## ", doc.indexOf(heading) + 1));
    const firstColumn = (text: string) => new Set(text.split("\n").filter((l) => l.startsWith("| `")).flatMap((l) => [...l.split(" | ")[0]!.matchAll(/`(failbook\.[a-z_.]+)[`{]/g)].map((m) => m[1])));
    expect(fake.created.length).toBe(13);
    const table = firstColumn(section("## Metrics"));
    const mapping = firstColumn(section("## Coming from Polly"));
    for (const name of fake.created) {
      expect(table, name).toContain(name);
      expect(mapping, name).toContain(name);
    }
  });

  it("times each fleet sync (failbook.fleet.sync.duration, error.type on a failed one) and says whether the store is available, as the snapshot's fleet part does", async () => {
    const fake = fakeProvider();
    metrics.setGlobalMeterProvider(fake.provider as never);
    const clock = new VirtualClock();
    let down = false;
    // A stand-in store: each sync takes 20 ms on the dispatcher's clock; down, it fails as a Redis client would.
    const store: FleetStore = {
      async sync() {
        clock.advance(20);
        if (down) throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6379"), { name: "ConnectionTimeoutError" });
        return { now_ms: 0, instances: 3, budget: { calls: 0, retries: 0 } };
      },
      time: async () => 0,
    };
    const timers = manualFleetTimers();
    const pb = playbook({}, { retry_budget: { percent: 20, min_concurrency: 3, scope: "fleet" }, fleet: { sync_ms: 250, lease_ms: 1000 } });
    const dispatcher = createDispatcher({ registry: REGISTRY, playbook: pb, clock, fleet: { store, instance: "web-1", timers: timers.timers } });
    await settle();
    expect(dispatcher.snapshot().fleet).toEqual({ instance: "web-1", mode: "fleet", available: true, syncs: 1, failures: 0, last_sync_ms: 20, instances: 3 });
    fake.collect();
    down = true;
    timers.tick();
    await settle();
    timers.leaseEnds();
    expect(dispatcher.snapshot().fleet).toEqual({ instance: "web-1", mode: "alone", available: false, syncs: 1, failures: 1, last_sync_ms: 20, instances: 3 });
    fake.collect();
    const fleetSeries = fake.recorded.filter((r) => r.instrument.startsWith("failbook.fleet."));
    expect(fleetSeries).toEqual([
      { instrument: "failbook.fleet.sync.duration", value: 0.02, attributes: {} },
      { instrument: "failbook.fleet.store.available", value: 1, attributes: {} },
      { instrument: "failbook.fleet.sync.duration", value: 0.02, attributes: { "error.type": "ConnectionTimeoutError" } },
      { instrument: "failbook.fleet.store.available", value: 0, attributes: {} },
    ]);
    await dispatcher.close();
  });
});
