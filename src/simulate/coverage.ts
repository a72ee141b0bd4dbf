/**
 * Coverage: which verdicts, actions and outcomes the fixtures exercise, and which none do.
 * A playbook action no golden exercises is a compensation nobody has seen run. The share of
 * active verdicts a passing fixture exercises is what `--min-coverage` gates on (SPEC 13).
 */
import type { DispatchEvent, OutcomeKind } from "failbook-runtime/model/outcome.js";
import { OUTCOME_KINDS } from "failbook-runtime/model/outcome.js";
import { ACTION_NAMES, type ActionName, type Playbook } from "failbook-runtime/model/playbook.js";
import { statusOf, type Registry, type VerdictStatus } from "failbook-runtime/model/registry.js";

export interface CoverageInput {
  fixture: string;
  kind: OutcomeKind | null;
  events: readonly DispatchEvent[];
  /** The fixture's golden held (true), differed (false), or there is none (null). */
  passed?: boolean | null;
}

export interface Coverage {
  verdicts: { code: string; status: VerdictStatus; fixtures: string[] }[];
  /** Every action of the closed set: used by the playbook or not, and by which fixtures. */
  actions: { action: ActionName; inPlaybook: boolean; fixtures: string[] }[];
  outcomes: { kind: OutcomeKind; fixtures: string[] }[];
  /** Active verdicts, and how many of them a passing fixture (its golden holds) exercises: the `--min-coverage` figure. */
  verdict_coverage: { active: number; exercised: number; percent: number; untested: string[] };
}

export function computeCoverage(registry: Registry, playbook: Playbook, runs: readonly CoverageInput[]): Coverage {
  const byVerdict = new Map<string, Set<string>>();
  const byAction = new Map<ActionName, Set<string>>();
  const byOutcome = new Map<OutcomeKind, Set<string>>();
  const passing = new Set<string>();
  const add = <K>(map: Map<K, Set<string>>, key: K, fixture: string): void => {
    const set = map.get(key) ?? new Set<string>();
    map.set(key, set.add(fixture));
  };
  for (const run of runs) {
    if (run.kind) add(byOutcome, run.kind, run.fixture);
    run.events.forEach((e, i) => {
      if (e.type !== "failure_classified") return;
      add(byVerdict, e.verdict, run.fixture);
      if (run.passed === true) passing.add(e.verdict);
      // The same-verdict ceiling ends a dispatch before the action runs.
      const next = run.events[i + 1];
      const preempted = next?.type === "budget_exhausted" && next.budget === "same_verdict_ceiling";
      if (e.action && !preempted) add(byAction, e.action, run.fixture);
    });
  }
  const used = new Set(Object.values(playbook.verdicts).map((a) => a.action));
  const list = (s: Set<string> | undefined) => [...(s ?? [])];
  const active = [...new Set(registry.verdicts.filter((v) => statusOf(v) === "active").map((v) => v.code))];
  const untested = active.filter((code) => !passing.has(code));
  const exercised = active.length - untested.length;
  return {
    verdicts: registry.verdicts.map((v) => ({ code: v.code, status: statusOf(v), fixtures: list(byVerdict.get(v.code)) })),
    actions: ACTION_NAMES.map((action) => ({ action, inPlaybook: used.has(action), fixtures: list(byAction.get(action)) })),
    outcomes: OUTCOME_KINDS.map((kind) => ({ kind, fixtures: list(byOutcome.get(kind)) })),
    verdict_coverage: { active: active.length, exercised, percent: active.length === 0 ? 100 : Math.floor((exercised / active.length) * 1000) / 10, untested },
  };
}
