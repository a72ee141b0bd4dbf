import { DEFAULT_STEP_MS, MAX_BUCKETS, MAX_CALLS, type Storm } from "../model.js";
import { Timeline } from "../phases.js";
import type { StormRule } from "./rule.js";

export const tooLarge: StormRule = {
  id: "storm-too-large",
  severity: "error",
  description: "A storm whose duration would need more calls or buckets than failbook runs (SPEC 16: no run in proportion to a configured count).",
  example: `# storms/soak.yaml
duration_ms: 86400000000
clients: { count: 100000, arrival: { rate_per_s: 100000 } }`,
  fix: "Shorten duration_ms or lower the arrival rate: a storm models minutes of an outage, not days of traffic.",
  check(ctx) {
    const storm = ctx.storm.value;
    const buckets = Math.ceil(storm.duration_ms / (storm.step_ms ?? DEFAULT_STEP_MS));
    if (buckets > MAX_BUCKETS) {
      ctx.report({ message: `duration_ms ${storm.duration_ms} in steps of ${storm.step_ms ?? DEFAULT_STEP_MS} ms makes ${count(buckets)} buckets; the report holds at most ${count(MAX_BUCKETS)}: raise step_ms`, path: ["step_ms" in storm ? "step_ms" : "duration_ms"] });
    }
    const calls = expectedCalls(storm);
    if (calls === Infinity) {
      ctx.report({ message: "a closed loop with think_ms 0, a latency that can be 0 and no calls limit never lets time pass; set think_ms, a latency, or serial.calls", path: ["clients", "arrival", "serial", "think_ms"] });
    } else if (calls > MAX_CALLS) {
      ctx.report({ message: `duration_ms ${storm.duration_ms} would offer about ${count(Math.round(calls))} calls; a storm runs at most ${count(MAX_CALLS)} (a few minutes): shorten duration_ms or lower the arrival rate`, path: ["duration_ms"] });
    }
  },
};

/** About how many calls the storm offers: exact for open loop, an upper estimate for closed. */
export function expectedCalls(storm: Storm): number {
  const { arrival, count: clients } = storm.clients;
  if (arrival.serial !== undefined) {
    const latency = storm.upstream.latency_ms;
    const cycle = arrival.serial.think_ms + (latency.base ?? latency.median ?? latency.mean ?? 0) + (latency.per_concurrent ?? 0);
    const byTime = cycle > 0 ? storm.duration_ms / cycle + 1 : Infinity;
    return clients * Math.min(arrival.serial.calls ?? Infinity, byTime);
  }
  let calls = 0;
  for (const segment of new Timeline(storm).segments) {
    const to = Math.min(segment.to, storm.duration_ms);
    if (to > segment.from) calls += (arrival.rate_per_s * segment.arrivalX * (to - segment.from)) / 1000;
  }
  return calls;
}

const count = (n: number) => n.toLocaleString("en-US");
