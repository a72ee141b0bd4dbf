/**
 * SPEC 24's proof: a scripted run on a virtual clock with the real `@opentelemetry/sdk-metrics`
 * and Prometheus exporter on a loopback port, scraped over HTTP; the series equal the run's
 * events, counted by hand below.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VirtualClock } from "failbook-runtime/engine/clock.js";
import { createDispatcher } from "failbook-runtime/engine/dispatch.js";
import { seededRandom } from "failbook-runtime/engine/random.js";
import type { Call, Response } from "failbook-runtime/model/fixture.js";
import type { DispatchEvent } from "failbook-runtime/model/outcome.js";
import type { Registry } from "failbook-runtime/model/registry.js";
import { err, manualFleetTimers, ok, playbook, REGISTRY, replay, retry, settle } from "./helpers/dispatch.js";
import { prometheusPipeline, seriesKey, type Scraper } from "./helpers/prometheus.js";
import { generateAlerts } from "../src/codegen/alerts.js";

/** A verdict code that is no valid label value as it stands: the exporter must escape it. */
const ODD = 'odd "code"\nline';
const registry: Registry = { ...REGISTRY, verdicts: [...REGISTRY.verdicts, { code: ODD, class: "permanent", retryable: false, match: [{ kind: "odd" }] }] };
const pb = playbook(
  { server: retry(2, [100]), timeout: retry(1, [50]), conflict: { action: "dead_letter", queue: "dlq" }, denied: { action: "escalate_to_human", queue: "security" } },
  {
    circuit_breakers: { payments: { tools: "payments.*", failure_ratio: 0.5, minimum_throughput: 2, sampling_ms: 10_000, break_ms: 1000 } },
    retry_budget: { percent: 20, min_concurrency: 3 },
    retry_throttling: { max_tokens: 10, token_ratio: 0.5 },
    retry_quota: { capacity: 100, cost: 5 },
    rate_limits: { api: { tools: "payments.*", limit: { requests: 100, per_ms: 1000 } } },
  },
);
/** A tool that is no valid label value either: a backslash, quotes, a newline and a lone surrogate (not UTF-8). */
const ODD_TOOL = 'crm\\odd "tool"\nnext\uD800';
const crm: Call = { id: "c", tool: "crm.lookup", args: {} };
const odd: Call = { id: "o", tool: ODD_TOOL, args: {} };
const pay: Call = { id: "p", tool: "payments.refund", args: {} };
const e503 = (ms: number): Response => err("upstream", { http_status: 503 }, ms);

/** The script: [call, its responses, ms the clock moves before it]. */
const SCRIPT: [Call, Response[], number][] = [
  [crm, [ok(10)], 0], //                                     A: first ok                                  succeeded 10 ms
  [crm, [e503(10), ok(10)], 0], //                           B: first server, retry ok                    recovered 120 ms
  [crm, [err("timeout", {}, 10), err("timeout", {}, 10)], 0], // C: first timeout, retry timeout, max_attempts  exhausted 70 ms
  [crm, [err("conflict", {}, 5)], 0], //                     D: first conflict, dead letter dlq           5 ms
  [crm, [err("denied", {}, 5)], 0], //                       E: first denied, escalated to security       5 ms
  [crm, [err("odd", {}, 5)], 0], //                          F: first ODD, escalated to oncall            5 ms
  [pay, [e503(10), e503(10), ok(10)], 0], //                 G: first server, retry server (the breaker opens), the next retry short-circuited: escalated to oncall, 220 ms
  [pay, [ok(10)], 1000], //                                  H: the break is over: half-open, the probe ok, closed
  [odd, [ok(10)], 0], //                                     I: first ok, on ODD_TOOL                     succeeded 10 ms
];

const k = seriesKey;
/** The run's events, counted by hand from the script above. */
const EXPECTED: [string, number][] = [
  [k("failbook_attempts_total", { failbook_attempt_kind: "first" }), 2], // A, I
  [k("failbook_attempts_total", { failbook_attempt_kind: "retry" }), 1], // B
  [k("failbook_attempts_total", { failbook_attempt_kind: "first", error_type: "server" }), 2], // B, G
  [k("failbook_attempts_total", { failbook_attempt_kind: "retry", error_type: "server" }), 1], // G
  [k("failbook_attempts_total", { failbook_attempt_kind: "first", error_type: "timeout" }), 1], // C
  [k("failbook_attempts_total", { failbook_attempt_kind: "retry", error_type: "timeout" }), 1], // C
  [k("failbook_attempts_total", { failbook_attempt_kind: "first", error_type: "conflict" }), 1], // D
  [k("failbook_attempts_total", { failbook_attempt_kind: "first", error_type: "denied" }), 1], // E
  [k("failbook_attempts_total", { failbook_attempt_kind: "first", error_type: ODD }), 1], // F
  [k("failbook_attempts_total", { failbook_attempt_kind: "probe" }), 1], // H
  [k("failbook_retries_refused_total", { failbook_refused_by: "max_attempts" }), 1], // C
  [k("failbook_retries_refused_total", { failbook_refused_by: "breaker" }), 1], // G
  [k("failbook_breaker_transitions_total", { failbook_breaker: "payments", failbook_breaker_state: "open" }), 1], // G
  [k("failbook_breaker_transitions_total", { failbook_breaker: "payments", failbook_breaker_state: "half_open" }), 1], // H
  [k("failbook_breaker_transitions_total", { failbook_breaker: "payments", failbook_breaker_state: "closed" }), 1], // H
  [k("failbook_breaker_state", { failbook_breaker: "payments" }), 0], // closed again
  [k("failbook_escalations_total", { failbook_queue: "security" }), 1], // E
  [k("failbook_escalations_total", { failbook_queue: "oncall" }), 2], // F, G
  [k("failbook_dead_letters_total", { failbook_queue: "dlq" }), 1], // D
  // Tokens: throttling 10, less 1 for each retryable failure (B, C, C, G, G), plus 0.5 for each answer that did not fail after them (B, H, I).
  [k("failbook_retry_throttling_tokens"), 6.5],
  // The quota: 100; B's retry (5) refunded when it recovered; C's retry and G's two retries (15) kept; H's and I's successes refund 1 each.
  [k("failbook_retry_quota_tokens"), 87],
  [k("failbook_retry_budget_remaining"), 3],
  [k("failbook_rate_limit_tokens", { failbook_rate_limit: "api" }), 100], // refilled over H's wait
];
/** Dispatches by tool, outcome and error.type, with their durations in seconds. */
const DURATIONS: [Record<string, string>, number][] = [
  [{ failbook_tool: "crm.lookup", failbook_outcome: "succeeded" }, 0.01],
  [{ failbook_tool: "crm.lookup", failbook_outcome: "recovered" }, 0.12],
  [{ failbook_tool: "crm.lookup", failbook_outcome: "exhausted", error_type: "timeout" }, 0.07],
  [{ failbook_tool: "crm.lookup", failbook_outcome: "dead_lettered", error_type: "conflict" }, 0.005],
  [{ failbook_tool: "crm.lookup", failbook_outcome: "escalated", error_type: "denied" }, 0.005],
  [{ failbook_tool: "crm.lookup", failbook_outcome: "escalated", error_type: ODD }, 0.005],
  [{ failbook_tool: "payments.refund", failbook_outcome: "escalated", error_type: "unknown" }, 0.22],
  [{ failbook_tool: "payments.refund", failbook_outcome: "succeeded" }, 0.01],
  // The lone surrogate reaches the scrape as U+FFFD (the exposition is UTF-8).
  [{ failbook_tool: ODD_TOOL.replace("\uD800", "\uFFFD"), failbook_outcome: "succeeded" }, 0.01],
];

describe("metrics scraped from the OpenTelemetry Prometheus exporter (SPEC 24)", () => {
  let scraper: Scraper;
  const events: DispatchEvent[][] = [];
  beforeAll(async () => {
    scraper = await prometheusPipeline();
    const clock = new VirtualClock();
    const dispatcher = createDispatcher({ registry, playbook: pb, clock, random: seededRandom(0) });
    for (const [call, responses, wait] of SCRIPT) {
      clock.advance(wait);
      events.push((await dispatcher.dispatch(call, replay(clock, responses))).events);
    }
  });
  afterAll(() => scraper.close());

  it("runs the script as the comments say (the hand count's premise)", () => {
    const shown = events.map((run) => run.map((e) => (e.type === "attempt" ? `${e.type}${e.n}${e.short_circuited ? "x" : ""}` : e.type)).join(" "));
    expect(shown).toEqual([
      "attempt1",
      "attempt1 failure_classified retry_scheduled attempt2",
      "attempt1 failure_classified retry_scheduled attempt2 failure_classified retry_suppressed",
      "attempt1 failure_classified dead_lettered",
      "attempt1 failure_classified escalated",
      "attempt1 failure_classified escalated",
      "attempt1 failure_classified retry_scheduled attempt2 failure_classified breaker_opened retry_scheduled attempt3x failure_classified escalated",
      "breaker_half_open attempt1 breaker_closed",
      "attempt1",
    ]);
  });

  it("scrapes attempts by kind and verdict, refusals by reason, breaker transitions and state, escalations, dead letters and tokens equal to the events counted by hand", async () => {
    const series = await scraper.series();
    const failbook = [...series].filter(([name]) => /^failbook_(attempts|retries|breaker|escalations|dead_letters|retry_|rate_limit)/.test(name));
    expect(new Map(failbook)).toEqual(new Map(EXPECTED));
  });

  it("scrapes one duration per dispatch, in seconds, by tool, outcome and error.type", async () => {
    const series = await scraper.series();
    const counts = [...series].filter(([name]) => name.startsWith("failbook_dispatch_duration_count"));
    expect(new Map(counts)).toEqual(new Map(DURATIONS.map(([labels]) => [k("failbook_dispatch_duration_count", labels), 1])));
    for (const [labels, seconds] of DURATIONS) expect(series.get(k("failbook_dispatch_duration_sum", labels))).toBeCloseTo(seconds, 9);
    // The buckets are seconds' (the semantic conventions' advice): a 0.12 s dispatch is above 0.1 and within 0.25.
    const recovered = { failbook_tool: "crm.lookup", failbook_outcome: "recovered" };
    expect(series.get(k("failbook_dispatch_duration_bucket", { ...recovered, le: "0.1" }))).toBe(0);
    expect(series.get(k("failbook_dispatch_duration_bucket", { ...recovered, le: "0.25" }))).toBe(1);
  });

  it("escapes a verdict code and a tool with quotes, a backslash, a newline or a lone surrogate: the exposition stays one well-formed line per sample", async () => {
    const text = await scraper.text();
    expect(text).toContain(String.raw`error_type="odd \"code\"\nline"`);
    expect(text).toContain(String.raw`failbook_tool="crm\\odd \"tool\"\nnext` + "\uFFFD\"");
    expect(text.split("\n").filter((l) => l.includes("odd")).every((l) => l.startsWith("failbook_"))).toBe(true);
    // Every line parses (series() throws on one that does not), and no series was lost to the odd ones.
    const oddTool = { failbook_tool: ODD_TOOL.replace("\uD800", "\uFFFD"), failbook_outcome: "succeeded" };
    expect((await scraper.series()).get(k("failbook_dispatch_duration_count", oddTool))).toBe(1);
  });

  it("writes every metric and label `failbook gen alerts` uses: the rules name what the exporter really exposes", async () => {
    const series = [...(await scraper.series()).keys()];
    const exposed = new Set(series.map((key) => key.split("{")[0]));
    const labels = new Set(series.flatMap((key) => [...key.matchAll(/[{,]([a-z_]+)=/g)].map((m) => m[1])));
    const exprs = generateAlerts({ registry, playbook: pb }).groups.flatMap((g) => g.rules.map((r) => r.expr));
    const metricsUsed = new Set(exprs.flatMap((e) => [...e.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)(?=\{|\[)/g)].map((m) => m[1])));
    const labelsUsed = new Set(exprs.flatMap((e) => [...e.matchAll(/(?:by \(([^)]*)\))|(?:[{,]([a-z_]+)=~?")/g)].flatMap((m) => (m[1] ?? m[2]).split(",").map((l) => l.trim()))));
    labelsUsed.delete("job"); // Prometheus's own label, from the scrape
    expect([...metricsUsed].sort()).toEqual(["failbook_attempts_total", "failbook_breaker_state", "failbook_dispatch_duration_count", "failbook_escalations_total", "failbook_retries_refused_total"]);
    for (const name of metricsUsed) expect(exposed, name).toContain(name);
    for (const label of labelsUsed) expect(labels, label).toContain(label);
  });

  // Last: a second dispatcher on the same meter adds its own gauges to every scrape after it.
  it("names the fleet's metrics as `gen alerts` uses them: failbook_fleet_store_available, failbook_fleet_sync_duration", async () => {
    const fleetBook = playbook({}, { retry_budget: { percent: 20, min_concurrency: 3, scope: "fleet" }, fleet: { sync_ms: 250, lease_ms: 1000 } });
    const store = { sync: async () => ({ now_ms: 0, instances: 2, budget: { calls: 0, retries: 0 } }), time: async () => 0 };
    const fleeted = createDispatcher({ registry, playbook: fleetBook, clock: new VirtualClock(), fleet: { store, instance: "web-1", timers: manualFleetTimers().timers } });
    await settle();
    const series = await scraper.series();
    expect(series.get(k("failbook_fleet_store_available"))).toBe(1);
    expect(series.get(k("failbook_fleet_sync_duration_count"))).toBe(1);
    const alert = generateAlerts({ registry, playbook: fleetBook }).groups[1]!.rules.find((r) => "alert" in r && r.alert === "FailbookFleetStoreUnavailable");
    expect(alert?.expr).toContain("failbook_fleet_store_available");
    await fleeted.close();
  });
});
