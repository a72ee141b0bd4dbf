/**
 * The behaviour diff: every current fixture replayed under the baseline's registry and
 * playbook and under the current ones; a fixture whose outcome differs is listed with both,
 * so a reviewer sees what a playbook edit does before it ships.
 */
import type { Outcome } from "../model/outcome.js";
import type { Rules } from "../simulate/fixture.js";
import { projectRules, simulateProject, type FixtureResult } from "../simulate/project.js";
import { plural } from "../util/text.js";
import { sameValue } from "./compare.js";
import type { Side } from "./rule.js";

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

export async function behaviourChanges(baseline: Side, current: Side): Promise<OutcomeChange[]> {
  const before = await simulateProject(current.project, { rules: rulesOf(baseline) });
  const after = await simulateProject(current.project, { rules: rulesOf(current) });
  const out: OutcomeChange[] = [];
  for (const [index, now] of after.results.entries()) {
    const was = summarize(before.results[index]);
    const is = summarize(now);
    if (!sameValue(was, is)) out.push({ fixture: now.fixture, index, file: now.file, before: was, after: is });
  }
  return out;
}

const rulesOf = (side: Side): Rules => projectRules(side.project) ?? { registry: side.registry.value, playbook: side.playbook.value };

function summarize(result: FixtureResult): SideResult {
  if (!result.outcome) return { error: result.error?.message ?? "no outcome" };
  const { kind, verdict, attempts, elapsed_ms } = result.outcome;
  return { outcome: { kind, verdict, attempts, elapsed_ms } };
}

/** `escalated (verdict policy_denied, 1 attempt, 40 ms)`, or the replay error. */
export function showOutcome(result: SideResult): string {
  if ("error" in result) return `cannot be replayed: ${result.error}`;
  const o = result.outcome;
  return `${o.kind} (verdict ${o.verdict ?? "none"}, ${plural(o.attempts, "attempt")}, ${o.elapsed_ms} ms)`;
}
