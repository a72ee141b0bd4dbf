/** The classifier (SPEC 2.1): the first rule that holds wins; nothing holds -> `fallback`. */
import type { AdapterError } from "../model/fixture.js";
import { statusOf, type Registry, type Verdict } from "../model/registry.js";
import { ruleMatches } from "./match.js";

export interface Classification {
  verdict: string;
  /** Where the winning rule stands; absent when the fallback applied. */
  rule?: { verdict: number; index: number };
  fallback: boolean;
}

/** Classify one failed attempt. A failure with no error object classifies as the fallback. */
export function classify(registry: Registry, error: AdapterError | undefined, tool?: string): Classification {
  if (error) {
    for (const [vi, verdict] of registry.verdicts.entries()) {
      if (statusOf(verdict) === "reserved") continue;
      const rules = verdict.match ?? [];
      for (const [ri, rule] of rules.entries()) {
        if (ruleMatches(rule, error, tool)) return { verdict: verdict.code, rule: { verdict: vi, index: ri }, fallback: false };
      }
    }
  }
  return { verdict: registry.fallback, fallback: true };
}

export function verdictByCode(registry: Registry, code: string): Verdict | undefined {
  return registry.verdicts.find((v) => v.code === code);
}
