/**
 * The storm engine against what is known: the analytic oracles of SPEC 19 within stated
 * statistical tolerances on seeded runs, Little's law, determinism, and the scheduler's
 * rules (event order, a race's loser wakes nobody).
 */
import { describe, expect, it } from "vitest";
import { formatStormJson, buildStormReport } from "../src/storm/report.js";
import { formatStormHtml } from "../src/storm/print/html.js";
import { runStorm, type StormRules } from "../src/storm/run.js";
import { Scheduler } from "../src/storm/scheduler.js";
import type { Storm } from "../src/storm/model.js";
import type { Registry } from "failbook-runtime/model/registry.js";
import { REGISTRY, playbook, retry } from "./helpers/dispatch.js";

const storm = (over: Partial<Storm> & { upstream: Storm["upstream"] }, rate = 500, duration = 40000): Storm => ({
  apiVersion: "failbook/v1",
  kind: "Storm",
  name: "oracle",
  seed: 3,
  duration_ms: duration,
  step_ms: 1000,
  clients: { count: 50, arrival: { rate_per_s: rate }, calls: [{ tool: "svc.call" }] },
  ...over,
});
/** The test registry's `timeout` verdict (class transient, at most 5 retries), retried N times at once. */
const rules = (n: number): StormRules => ({ registry: REGISTRY, playbook: playbook({ timeout: retry(n, [0]) }), redact: [] });
const failing = (x: number) => ({ latency_ms: { mean: 20 }, errors: [{ ratio: x, error: { kind: "timeout" } }] });

describe("independent failures at ratio x, N retries and no other limit (SPEC 19's oracle)", () => {
  // 20,000 calls a run. Tolerance: 4 standard deviations of the estimate, from the binomial
  // (success) and from the attempts per call, a truncated geometric (amplification).
  it.each([
    { x: 0.3, n: 2 },
    { x: 0.5, n: 3 },
    { x: 0.1, n: 1 },
  ])("x = $x, N = $n: success -> 1 - x^(N+1), amplification -> (1 - x^(N+1)) / (1 - x)", async ({ x, n }) => {
    const r = await runStorm(storm({ upstream: failing(x) }), rules(n));
    const calls = r.summary.calls;
    const success = 1 - x ** (n + 1);
    const amplification = success / (1 - x);
    const attempts = Array.from({ length: n + 1 }, (_, k) => ({ k: k + 1, p: k < n ? x ** k * (1 - x) : x ** n }));
    const variance = attempts.reduce((a, { k, p }) => a + k * k * p, 0) - amplification ** 2;
    expect(calls).toBeGreaterThan(19000);
    expect(r.summary.unfinished).toBe(0);
    expect(Math.abs(r.summary.success_ratio - success)).toBeLessThan(4 * Math.sqrt((success * (1 - success)) / calls) + 1e-4);
    expect(Math.abs(r.summary.amplification - amplification)).toBeLessThan(4 * Math.sqrt(variance / calls) + 1e-3);
  });

  it("with no retry, success is 1 - x and every call is one attempt", async () => {
    const r = await runStorm(storm({ upstream: failing(0.2) }), rules(0));
    expect(r.summary.amplification).toBe(1);
    expect(Math.abs(r.summary.success_ratio - 0.8)).toBeLessThan(4 * Math.sqrt((0.8 * 0.2) / r.summary.calls));
  });
});

describe("Little's law: mean attempts in progress = arrival rate × mean latency", () => {
  it("exponential latency, mean 25 ms, at 400 calls a second: 10 in progress (within 4 %)", async () => {
    const r = await runStorm(storm({ upstream: { latency_ms: { mean: 25 } } }, 400, 60000), rules(0));
    // The time average of an M/M/∞ count over T has variance about 2·L·mean/T: 0.09² here; 4 % is over 4 of them.
    expect(Math.abs(r.summary.mean_in_progress - 10) / 10).toBeLessThan(0.04);
  });

  it("latency that grows with load (base 20 ms + 2 ms per attempt in progress, itself included), at 200 a second: λ(base + k) / (1 − λk) in progress", async () => {
    const r = await runStorm(storm({ upstream: { latency_ms: { base: 20, per_concurrent: 2 } } }, 200, 60000), rules(0));
    // Poisson arrivals see the time average C (PASTA): W = base + k(C + 1) and C = λW.
    const [lambda, base, k] = [0.2, 20, 2];
    const expected = (lambda * (base + k)) / (1 - lambda * k);
    expect(Math.abs(r.summary.mean_in_progress - expected) / expected).toBeLessThan(0.05);
  });

  it("a FIFO capacity holds the attempts in progress at its concurrency and queues the rest", async () => {
    const r = await runStorm(storm({ upstream: { latency_ms: { base: 100 }, capacity: { concurrency: 10, queue: 100000 } } }, 150, 20000), rules(0));
    // Offered 15 attempts' worth of work for 10 slots: the slots stay full and the queue grows.
    const late = r.buckets.slice(10);
    expect(late.every((b) => b.in_progress > 9.9 && b.in_progress <= 10)).toBe(true);
    expect(late[late.length - 1].queued).toBeGreaterThan(late[0].queued);
  });
});

describe("determinism", () => {
  const brownout = storm({
    upstream: { latency_ms: { median: 40, p99: 400, per_concurrent: 0.5 }, capacity: { concurrency: 30, queue: 60 }, errors: [{ ratio: 0.05, error: { kind: "timeout" } }] },
    phases: [{ from_ms: 5000, to_ms: 8000, arrival_x: 3, capacity_x: 0.5 }],
  }, 400, 15000);

  it("the same storm and seed give byte-identical JSON and HTML", async () => {
    const report = async () => buildStormReport({ files: ["s.yaml"], sweep: [], seed: null, against: null }, [{ index: 0, file: "s.yaml", name: "oracle", current: await runStorm(brownout, rules(2)), baseline: null, regressions: [] }], []);
    const [a, b] = [await report(), await report()];
    expect(formatStormJson(a)).toBe(formatStormJson(b));
    expect(formatStormHtml(a)).toBe(formatStormHtml(b));
  });

  it("another seed draws other arrivals", async () => {
    const a = await runStorm(brownout, rules(2), { seed: 1 });
    const b = await runStorm(brownout, rules(2), { seed: 2 });
    expect(a.summary.calls).not.toBe(b.summary.calls);
  });
});

/** A dispatch that starts at 0 ms and runs `body` on the scheduler, ending when it returns. */
function startAt0(s: Scheduler, body: () => Promise<void>): void {
  s.at(0, () => {
    s.begin({ span: 0 });
    void body().then(() => s.end());
  }, undefined, undefined);
}

describe("the scheduler", () => {
  it("takes events in time order, and events at the same time in the order they were scheduled", async () => {
    const s = new Scheduler();
    const seen: string[] = [];
    for (const [t, name] of [[5, "a"], [1, "b"], [5, "c"], [0, "d"], [5, "e"], [3, "f"]] as const) s.at(t, (n: string) => seen.push(`${s.now}:${n}`), name, undefined);
    await s.run(Infinity, () => false);
    expect(seen).toEqual(["0:d", "1:b", "3:f", "5:a", "5:c", "5:e"]);
  });

  it("wakes a dispatch with the first of two promises it waits on; the other, resolved later, wakes nothing", async () => {
    const s = new Scheduler();
    const log: string[] = [];
    startAt0(s, async () => {
      // An attempt raced against a timeout on the clock: the timeout (10 ms) wins.
      const attempt = s.park<string>();
      s.at(50, () => s.wake(attempt.ticket, "late answer"), undefined, undefined);
      const winner = await Promise.race([attempt.promise, s.clock.sleep(10).then(() => "timeout")]);
      log.push(`${s.now}:${winner}`);
      await s.clock.sleep(100);
      log.push(`${s.now}:slept`);
    });
    await s.run(Infinity, () => false);
    expect(log).toEqual(["10:timeout", "110:slept"]);
    expect(s.stalls).toBe(0);
  });

  it("lets a woken dispatch run to its next wait before time moves on", async () => {
    const s = new Scheduler();
    const times: number[] = [];
    startAt0(s, async () => {
      for (let i = 0; i < 3; i++) {
        await s.clock.sleep(10);
        // Several awaits deep before the next sleep: time must not have moved meanwhile.
        await Promise.resolve();
        await Promise.resolve();
        times.push(s.now);
      }
    });
    s.at(15, () => times.push(-15), undefined, undefined);
    await s.run(Infinity, () => false);
    expect(times).toEqual([10, -15, 20, 30]);
  });
});

describe("bounds (SPEC 16)", () => {
  it("stops with one clear line when time stops: a closed loop with think_ms 0 whose calls end at once", async () => {
    // One slot, held for a minute; the other client's calls are turned away at once (a 503, not retried: N = 0) and start again at once.
    const stuck = storm({ clients: { count: 2, arrival: { serial: { think_ms: 0 } }, calls: [{ tool: "svc.call" }] }, upstream: { latency_ms: { base: 60000 }, capacity: { concurrency: 1, queue: 0 } } }, 0, 1000);
    await expect(runStorm(stuck, rules(0))).rejects.toThrow(/^storm oracle: time stopped at 0 ms \(more than 100,040 events at that instant\): calls end at once and start again at once/);
  });
});

describe("the scheduler and the dispatcher's AbortSignal", () => {
  it("lets a dispatch go on when an attempt is answered at once right after it parked on a timeout", async () => {
    const s = new Scheduler();
    const log: string[] = [];
    startAt0(s, async () => {
      const timer = s.clock.sleep(1000);
      s.touch(); // the upstream turned the attempt away at once
      await Promise.race([Promise.resolve("turned away"), timer]);
      await Promise.resolve();
      log.push(`${s.now}:answered`);
    });
    s.at(0.5, () => log.push(`${s.now}:next event`), undefined, undefined);
    await s.run(Infinity, () => false);
    expect(log.slice(0, 2)).toEqual(["0:answered", "0.5:next event"]);
  });

  it("wakes a dispatch with an answer it still awaits though it woke since (a hedge), and not with one it aborted", async () => {
    const s = new Scheduler();
    const log: string[] = [];
    startAt0(s, async () => {
      const first = new AbortController();
      const a1 = s.park<string>(first.signal);
      s.at(30, () => s.wake(a1.ticket, "first"), undefined, undefined);
      // No answer after 10 ms: a second attempt (a hedge), both awaited.
      await Promise.race([a1.promise, s.clock.sleep(10)]);
      const second = new AbortController();
      const a2 = s.park<string>(second.signal);
      s.at(50, () => s.wake(a2.ticket, "second"), undefined, undefined);
      const winner = await Promise.race([a1.promise, a2.promise]);
      await Promise.resolve();
      log.push(`${s.now}:${winner}`);
      second.abort(); // the loser is cancelled: its answer at 50 wakes nothing
      await s.clock.sleep(100);
      log.push(`${s.now}:slept`);
    });
    s.at(31, () => log.push(`${s.now}:next event`), undefined, undefined);
    await s.run(Infinity, () => false);
    expect(log).toEqual(["30:first", "31:next event", "130:slept"]);
    expect(s.stalls).toBe(0);
  });
});

describe("the dispatcher's own attempt timeout in a storm (SPEC 18 inside SPEC 19)", () => {
  const TIMEOUT_REGISTRY: Registry = {
    ...REGISTRY,
    verdicts: [{ code: "attempt_timed_out", class: "transient", retryable: true, match: [{ kind: "attempt_timeout" }] }, ...REGISTRY.verdicts],
  };
  // The example's upstream (100 ms, 4 ms per attempt in progress) without the gateway: the client's own timeout, a spike to 3x.
  const spike = (timeout: number): Storm =>
    storm({ upstream: { latency_ms: { base: 100, per_concurrent: 4 } }, phases: [{ from_ms: 10000, to_ms: 20000, arrival_x: 3 }] }, 100, 40000);
  const timing = (ms: number, retries: number, backoff: number[]): StormRules => ({
    registry: TIMEOUT_REGISTRY,
    playbook: playbook({ attempt_timed_out: retry(retries, backoff) }, { attempt_timeout_ms: ms }),
    redact: [],
  });

  it("times attempts out at attempt_timeout_ms while the upstream works on: immediate retries keep it down (metastable)", async () => {
    const r = await runStorm(spike(1000), timing(1000, 3, [0, 0, 0]));
    expect(r.summary.verdict).toBe("metastable");
    // Every call's attempts end at the timeout: 4 attempts, 4 s a call, and the upstream's work keeps growing.
    expect(r.summary.latency_ms.p50).toBe(4000);
    const late = r.buckets[r.buckets.length - 1];
    expect(Object.keys(late.attempt_errors)).toEqual(["attempt_timeout"]);
    expect(late.outcomes).toMatchObject({ exhausted: expect.any(Number) });
    expect(late.in_progress).toBeGreaterThan(r.buckets[25].in_progress);
    expect(r.summary.amplification).toBeGreaterThan(3);
  });

  it("without retries the same timeout lets the upstream drain after the spike: recovered", async () => {
    const r = await runStorm(spike(1000), timing(1000, 0, []));
    expect(r.summary.verdict).toBe("recovered");
    expect(r.summary.amplification).toBe(1);
  });
});

describe("circuit breakers in a storm (SPEC 18 inside SPEC 19)", () => {
  const BREAKER_REGISTRY: Registry = {
    ...REGISTRY,
    verdicts: [{ code: "circuit_open", class: "permanent", retryable: false, match: [{ kind: "circuit_open" }] }, ...REGISTRY.verdicts],
  };
  const outage = storm({ upstream: { latency_ms: { mean: 20 } }, phases: [{ from_ms: 5000, to_ms: 10000, errors: [{ ratio: 1, error: { kind: "timeout" } }] }] }, 200, 20000);
  const breakers = (shared: "client" | "fleet"): [Storm, StormRules] => [
    { ...outage, clients: { ...outage.clients, count: 10, shared } },
    {
      registry: BREAKER_REGISTRY,
      playbook: playbook({ timeout: retry(1, [0]), circuit_open: { action: "fail" } }, { circuit_breakers: { svc: { tools: "svc.*", failure_ratio: 0.5, minimum_throughput: 10, sampling_ms: 2000, break_ms: 1000 } } }),
      redact: [],
    },
  ];

  it("opens each client's breaker in the outage, short-circuits attempts while open, and closes them after it", async () => {
    const [s, rules] = breakers("client");
    const r = await runStorm(s, rules);
    const during = r.buckets.slice(6, 10);
    expect(during.every((b) => b.breakers_open + b.breakers_half_open > 0)).toBe(true);
    expect(during.every((b) => b.short_circuited > 0 && b.sent < b.offered)).toBe(true);
    expect(r.buckets.slice(0, 5).every((b) => b.breakers_open === 0 && b.short_circuited === 0)).toBe(true);
    expect(r.buckets.slice(-3).every((b) => b.breakers_open === 0 && b.short_circuited === 0)).toBe(true);
    expect(Math.max(...during.map((b) => b.breakers_open))).toBeLessThanOrEqual(10);
  });

  it("shared: fleet gives the whole fleet one breaker", async () => {
    const [s, rules] = breakers("fleet");
    const r = await runStorm(s, rules);
    expect(Math.max(...r.buckets.map((b) => b.breakers_open + b.breakers_half_open))).toBe(1);
  });
});

describe("hedging in a storm (SPEC 18 inside SPEC 19)", () => {
  // Log-normal latency, median 20 ms, p99 400 ms: mean exp(mu + sigma^2 / 2), about 45.8 ms.
  const tail = storm({ upstream: { latency_ms: { median: 20, p99: 400 } } }, 400, 30000);
  const sigma = (Math.log(400) - Math.log(20)) / 2.3263478740408408;
  const meanLatency = 20 * Math.exp((sigma * sigma) / 2);
  const hedging = (max_attempts: number): StormRules => ({ registry: REGISTRY, playbook: playbook({ timeout: retry(0) }, { hedging: { tools: "svc.*", max_attempts, delay_ms: 50 } }), redact: [] });

  it("each hedge is an upstream attempt, and a cancelled one keeps the upstream busy until its latency has passed (Little's law over every attempt sent)", async () => {
    const plain = await runStorm(tail, rules(0));
    const hedged = await runStorm(tail, hedging(3));
    expect(plain.summary.amplification).toBe(1);
    const hedges = hedged.buckets.reduce((a, b) => a + b.hedges, 0);
    // Every hedge is an attempt sent beyond the call's first; none of them is a retry.
    expect(hedges).toBe(hedged.buckets.reduce((a, b) => a + b.sent, 0) - hedged.summary.calls);
    expect(hedged.buckets.reduce((a, b) => a + b.retries, 0)).toBe(0);
    // About a fifth of first attempts take longer than 50 ms, so hedges add load...
    expect(hedged.summary.amplification).toBeGreaterThan(1.2);
    // ...the whole of it: the upstream works on every attempt sent for its full latency, cancelled or not.
    const expected = 400 * (meanLatency / 1000) * hedged.summary.amplification;
    expect(Math.abs(hedged.summary.mean_in_progress - expected) / expected).toBeLessThan(0.06);
    expect(hedged.summary.mean_in_progress).toBeGreaterThan(plain.summary.mean_in_progress * 1.15);
    // And the calls' tail is cut: a slow first attempt no longer sets the call's latency.
    expect(hedged.summary.latency_ms.p99).toBeLessThan(plain.summary.latency_ms.p99 / 2);
    expect(hedged.summary.success_ratio).toBe(1);
  });

  it("takes a hedge turned away at once (a full upstream) before it waits, under an attempt timeout: every attempt is accounted for", async () => {
    const full = storm({ upstream: { latency_ms: { median: 20, p99: 400 }, capacity: { concurrency: 8, queue: 0 } } }, 300, 10000);
    const r = await runStorm(full, {
      registry: REGISTRY,
      playbook: playbook({ timeout: retry(0), server: retry(0) }, { attempt_timeout_ms: 150, hedging: { tools: "svc.*", max_attempts: 3, delay_ms: 30, non_fatal: ["transient"] } }),
      redact: [],
    });
    const sum = (k: "sent" | "hedges" | "offered" | "retries") => r.buckets.reduce((a, b) => a + b[k], 0);
    expect(r.summary.unfinished).toBe(0);
    // Turned away at once (503) and timed out hedges are non-fatal: the next goes at once, so hedges abound.
    expect(Object.keys(r.buckets.reduce((a, b) => ({ ...a, ...b.attempt_errors }), {}))).toEqual(["attempt_timeout", "http 503"]);
    expect(sum("retries")).toBe(0);
    expect(sum("sent")).toBe(sum("offered") + sum("hedges"));
    expect(sum("hedges")).toBeGreaterThan(sum("offered") / 10);
  });
});

describe("the scheduler's clock and a sleep's AbortSignal (the dispatcher's attempt timeout, raced on a clock without hold)", () => {
  it("ends a sleep whose signal aborts: it wakes nothing later and does not move time", async () => {
    const s = new Scheduler();
    const log: string[] = [];
    startAt0(s, async () => {
      // An attempt raced against a 100 ms timeout, turned away at once; then a backoff of 300 ms.
      const answered = new AbortController();
      const timer = s.clock.sleep(100, answered.signal);
      s.touch();
      await Promise.race([Promise.resolve("turned away"), timer]);
      answered.abort();
      await s.clock.sleep(300);
      log.push(`${s.now}:slept`);
    });
    s.at(200, () => log.push(`${s.now}:next event`), undefined, undefined);
    await s.run(Infinity, () => false);
    expect(log).toEqual(["200:next event", "300:slept"]);
    expect(s.stalls).toBe(0);
    // The cancelled timeout at 100 ms moved nothing; nothing is left after the backoff.
    expect(s.now).toBe(300);
  });

  it("ends a sleep its dispatch waits on alone when another event aborts its signal: it wakes then, in its own turn", async () => {
    const s = new Scheduler();
    const log: string[] = [];
    const stop = new AbortController();
    startAt0(s, async () => {
      await s.clock.sleep(1000, stop.signal);
      log.push(`${s.now}:woke`);
      await s.clock.sleep(50);
      log.push(`${s.now}:slept`);
    });
    s.at(200, () => stop.abort(), undefined, undefined);
    s.at(220, () => log.push(`${s.now}:next event`), undefined, undefined);
    await s.run(Infinity, () => false);
    expect(log).toEqual(["200:woke", "220:next event", "250:slept"]);
    expect(s.stalls).toBe(0);
    expect(s.now).toBe(250);
  });

  it("ends a sleep at once when its signal aborted before it began", async () => {
    const s = new Scheduler();
    const log: string[] = [];
    startAt0(s, async () => {
      await s.clock.sleep(500, AbortSignal.abort());
      log.push(`${s.now}:woke`);
    });
    await s.run(Infinity, () => false);
    expect(log).toEqual(["0:woke"]);
    expect(s.stalls).toBe(0);
  });

  it("a storm whose attempts are turned away at once, with an attempt timeout shorter than the backoff: every retry at its backoff, every call ends", async () => {
    const TIMEOUT_REGISTRY: Registry = { ...REGISTRY, verdicts: [{ code: "attempt_timed_out", class: "transient", retryable: true, match: [{ kind: "attempt_timeout" }] }, ...REGISTRY.verdicts] };
    // No slot for the first 5 s (capacity_x 0, no queue): each attempt is a 503 at once; three retries 300 ms apart.
    const closed = storm(
      {
        clients: { count: 5, arrival: { serial: { think_ms: 1000, calls: 1 } }, calls: [{ tool: "svc.call" }] },
        upstream: { latency_ms: { base: 10 }, capacity: { concurrency: 1, queue: 0 } },
        phases: [{ from_ms: 0, to_ms: 5000, capacity_x: 0 }],
      },
      0,
      6000,
    );
    const r = await runStorm(closed, { registry: TIMEOUT_REGISTRY, playbook: playbook({ server: retry(3, [300, 300, 300]) }, { attempt_timeout_ms: 100 }), redact: [] });
    expect(r.summary.unfinished).toBe(0);
    expect(r.summary.calls).toBe(5);
    expect(r.summary.amplification).toBe(4);
    // Each call: attempts at 0, 300, 600 and 900 ms after it was offered, all turned away; it ends at 900 ms.
    expect(r.summary.latency_ms.max).toBe(900);
    expect(r.summary.latency_ms.p50).toBe(900);
  });
});

describe("the upstream model (SPEC 19)", () => {
  /** Totals of the report's per-attempt error counts. */
  const errorsOf = (r: Awaited<ReturnType<typeof runStorm>>) => {
    const out: Record<string, number> = {};
    for (const b of r.buckets) for (const [k, n] of Object.entries(b.attempt_errors)) out[k] = (out[k] ?? 0) + n;
    return out;
  };
  // 20,000 calls, no load dependence: the call latencies are the model's draws. Tolerance: 4
  // standard deviations of a sample quantile, sqrt(q(1 − q)/n) / density, as a share of it.
  it.each([
    { name: "log-normal from median 40 and p99 400", latency: { median: 40, p99: 400 }, p50: 40, p99: 400, p50tol: 0.05, p99tol: 0.12 },
    { name: "exponential of mean 25 (median 25 ln 2, p99 25 ln 100)", latency: { mean: 25 }, p50: 25 * Math.LN2, p99: 25 * Math.log(100), p50tol: 0.05, p99tol: 0.1 },
  ])("draws each attempt's latency $name", async ({ latency, p50, p99, p50tol, p99tol }) => {
    const r = await runStorm(storm({ upstream: { latency_ms: latency } }, 500, 40000), rules(0));
    expect(r.summary.calls).toBeGreaterThan(19000);
    expect(Math.abs(r.summary.latency_ms.p50 - p50) / p50).toBeLessThan(p50tol);
    expect(Math.abs(r.summary.latency_ms.p99 - p99) / p99).toBeLessThan(p99tol);
  });

  it("holds a FIFO capacity: the concurrency in progress, the queue waiting, the rest turned away at once with overload_error", async () => {
    // 10 calls at one instant for 2 slots and a queue of 3, each attempt 1 s.
    const herd = storm({ clients: { count: 10, arrival: { serial: { think_ms: 0, calls: 1 } }, calls: [{ tool: "svc.call" }] }, upstream: { latency_ms: { base: 1000 }, capacity: { concurrency: 2, queue: 3 }, overload_error: { kind: "http", http_status: 429 } } }, 0, 5000);
    const r = await runStorm(herd, rules(0));
    expect(errorsOf(r)).toEqual({ "http 429": 5 });
    expect(r.summary.succeeded).toBe(5);
    // Served two at a time, in arrival order: 1 s, 1 s, 2 s, 2 s, 3 s; the five turned away end at 0.
    expect(r.summary.latency_ms.max).toBe(3000);
    expect(r.buckets.map((b) => b.in_progress)).toEqual([2, 2, 1, 0, 0]);
    expect(r.buckets.map((b) => b.queued)).toEqual([3, 1, 0, 0, 0]);
  });

  it("draws an error mix per attempt, independent of load: each error at its ratio", async () => {
    const mix = { latency_ms: { mean: 20 }, errors: [{ ratio: 0.1, error: { kind: "timeout" } }, { ratio: 0.25, error: { kind: "http", http_status: 500 } }] };
    const r = await runStorm(storm({ upstream: mix }), rules(0));
    const errors = errorsOf(r);
    const n = r.summary.attempts;
    for (const [kind, ratio] of [["timeout", 0.1], ["http 500", 0.25]] as const) expect(Math.abs(errors[kind] / n - ratio)).toBeLessThan(4 * Math.sqrt((ratio * (1 - ratio)) / n));
  });

  it("multiplies arrival, latency and the error ratio in a phase, and only there", async () => {
    const phased = storm(
      { upstream: { latency_ms: { base: 20 }, errors: [{ ratio: 0.1, error: { kind: "timeout" } }] }, phases: [{ from_ms: 10000, to_ms: 20000, arrival_x: 3, latency_x: 5, error_x: 4 }] },
      200,
      30000,
    );
    const r = await runStorm(phased, rules(0));
    const window = (from: number, to: number) => r.buckets.filter((b) => b.from_ms >= from && b.from_ms < to);
    const sum = (bs: typeof r.buckets, f: (b: (typeof bs)[number]) => number) => bs.reduce((a, b) => a + f(b), 0);
    const [before, during] = [window(0, 10000), window(10000, 20000)];
    const rate = (bs: typeof before) => sum(bs, (b) => b.offered) / bs.length;
    const errorShare = (bs: typeof before) => sum(bs, (b) => b.attempt_errors.timeout ?? 0) / sum(bs, (b) => b.sent);
    expect(Math.abs(rate(before) - 200) / 200).toBeLessThan(0.1);
    expect(Math.abs(rate(during) - 600) / 600).toBeLessThan(0.06);
    expect(Math.abs(errorShare(before) - 0.1)).toBeLessThan(0.03);
    expect(Math.abs(errorShare(during) - 0.4)).toBeLessThan(0.03);
    // Little's law per window: 0.2 calls a ms × 20 ms, then 0.6 × 100 ms.
    expect(Math.abs(sum(before, (b) => b.in_progress) / before.length - 4)).toBeLessThan(0.4);
    expect(Math.abs(sum(during, (b) => b.in_progress) / during.length - 60)).toBeLessThan(4);
  });

  it("keeps an abandoned attempt at the upstream until its latency has passed: the client's timeout frees no slot", async () => {
    // One slot, each attempt 1 s; the client gives up after 100 ms, thinks 400 ms and calls again: the slot is still taken.
    const abandoned = storm({ clients: { count: 1, arrival: { serial: { think_ms: 400, calls: 2 } }, calls: [{ tool: "svc.call" }] }, upstream: { latency_ms: { base: 1000 }, capacity: { concurrency: 1, queue: 0 } } }, 0, 3000);
    const r = await runStorm(abandoned, { registry: REGISTRY, playbook: playbook({}, { attempt_timeout_ms: 100 }), redact: [] });
    expect(errorsOf(r)).toEqual({ attempt_timeout: 1, "http 503": 1 });
    expect(r.summary.latency_ms.max).toBe(100);
    // The upstream worked a full second for a call that ended after 100 ms.
    expect(r.summary.mean_in_progress * 3).toBeCloseTo(1, 1);
  });
});
