/**
 * The shape of the behaviour diff and how one side's result reads, apart from the code
 * that replays fixtures: the change rules need these without loading the simulator.
 */
import type { Outcome } from "failbook-runtime/model/outcome.js";
import { plural } from "../util/text.js";

/** The part of an outcome the behaviour diff compares (SPEC 8). */
export interface OutcomeSummary {
  kind: Outcome["kind"];
  verdict: string | null;
  attempts: number;
  elapsed_ms: number;
}

/** How a fixture ended on one side: an outcome, or why it could not be replayed. */
export type SideResult = { outcome: OutcomeSummary } | { error: string };

export interface OutcomeChange {
  fixture: string;
  /** Index of the fixture in the current project's fixtures. */
  index: number;
  file: string;
  before: SideResult;
  after: SideResult;
}

/** `escalated (verdict policy_denied, 1 attempt, 40 ms)`, or the replay error. */
export function showOutcome(result: SideResult): string {
  if ("error" in result) return `cannot be replayed: ${result.error}`;
  const o = result.outcome;
  return `${o.kind} (verdict ${o.verdict ?? "none"}, ${plural(o.attempts, "attempt")}, ${o.elapsed_ms} ms)`;
}
