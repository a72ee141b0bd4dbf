/**
 * The behaviour diff: every current fixture replayed under the baseline's registry and
 * playbook and under the current ones; a fixture whose outcome differs is listed with both,
 * so a reviewer sees what a playbook edit does before it ships.
 */
import type { Rules } from "../simulate/fixture.js";
import { projectRules, simulateProject, type FixtureResult } from "../simulate/project.js";
import { sameValue } from "./compare.js";
import type { Side } from "./rule.js";
import type { OutcomeChange, SideResult } from "./outcome.js";

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

