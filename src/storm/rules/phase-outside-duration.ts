import type { StormRule } from "./rule.js";

export const phaseOutsideDuration: StormRule = {
  id: "storm-phase-outside-duration",
  severity: "error",
  description: "A storm phase that starts at or after duration_ms (it never happens, so the storm's expect would pass without its trigger).",
  example: `# storms/brownout.yaml
duration_ms: 60000
phases:
  - { from_ms: 90000, to_ms: 100000, arrival_x: 3 }   # the run ends at 60 s`,
  fix: "Start the phase before duration_ms, or lengthen duration_ms so the run sees the trigger and what follows it.",
  check(ctx) {
    const storm = ctx.storm.value;
    for (const [i, phase] of (storm.phases ?? []).entries()) {
      if (phase.from_ms < storm.duration_ms) continue;
      ctx.report({
        message: `phase ${i + 1} starts at ${phase.from_ms} ms, when the run has ended (duration_ms ${storm.duration_ms}): it never happens, and the storm's expect would pass without its trigger; start it before duration_ms or lengthen duration_ms`,
        path: ["phases", i, "from_ms"],
      });
    }
  },
};
