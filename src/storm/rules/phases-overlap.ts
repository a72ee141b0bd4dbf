import type { Phase } from "../model.js";
import type { StormRule } from "./rule.js";

const FIGURES = ["arrival_x", "capacity_x", "latency_x", "error_x"] as const;

export const phasesOverlap: StormRule = {
  id: "storm-phases-overlap",
  severity: "error",
  description: "Two phases of a storm set the same multiplier over the same time (they would multiply).",
  example: `# storms/brownout.yaml
phases:
  - { from_ms: 20000, to_ms: 40000, arrival_x: 2 }
  - { from_ms: 30000, to_ms: 50000, arrival_x: 3 }   # 30-40 s would be 6x`,
  fix: "Make the phases that set the same multiplier not overlap, or merge them into one phase with the multiplier you mean.",
  check(ctx) {
    const phases: readonly Phase[] = ctx.storm.value.phases ?? [];
    for (let j = 1; j < phases.length; j++) {
      for (let i = 0; i < j; i++) {
        const [a, b] = [phases[i], phases[j]];
        const from = Math.max(a.from_ms, b.from_ms);
        const to = Math.min(a.to_ms, b.to_ms);
        if (from >= to) continue;
        const figure = FIGURES.find((f) => a[f] !== undefined && b[f] !== undefined);
        if (figure === undefined) continue;
        ctx.report({
          message: `phases ${i + 1} and ${j + 1} both set ${figure} over ${from}-${to} ms, where they would multiply (${a[figure]} × ${b[figure]}); give each moment one value: split the phases where they meet`,
          path: ["phases", j, figure],
          target: "key",
        });
      }
    }
  },
};
