import { sizeProblems } from "../size.js";
import type { StormRule } from "./rule.js";

export const tooLarge: StormRule = {
  id: "storm-too-large",
  severity: "error",
  description: "A storm that would need more calls, attempts (retries and hedges included), store syncs or buckets than failbook runs (SPEC 16: no run in proportion to a configured count).",
  example: `# storms/soak.yaml
duration_ms: 86400000000
clients: { count: 100000, arrival: { rate_per_s: 100000 } }`,
  fix: "Shorten duration_ms or lower the arrival rate (or the playbook's retries): a storm models minutes of an outage, not days of traffic.",
  check(ctx) {
    for (const problem of sizeProblems(ctx.storm.value, ctx.registry, ctx.playbook)) ctx.report(problem);
  },
};
