/**
 * Coverage: which verdicts, actions and outcomes the fixtures exercise, and which none do.
 * A playbook action no golden exercises is a compensation nobody has seen run. The share of
 * active verdicts a passing fixture exercises is what `--min-coverage` gates on (SPEC 13).
 * What "exercises a verdict" means is `exercisedVerdicts`, which lint's verdict-untested
 * asks too.
 */
import type { PathSegment } from "failbook-runtime/model/finding.js";
import { fixtureCalls, type AdapterError, type Call, type Fixture, type Response } from "failbook-runtime/model/fixture.js";
import type { DispatchEvent, OutcomeKind } from "failbook-runtime/model/outcome.js";
import { OUTCOME_KINDS } from "failbook-runtime/model/outcome.js";
import { ACTION_NAMES, type ActionName, type Playbook } from "failbook-runtime/model/playbook.js";
import { statusOf, type Registry, type VerdictStatus } from "failbook-runtime/model/registry.js";
import { classify } from "failbook-runtime/engine/classify.js";
import { EMPTY_RESPONSE } from "failbook-runtime/engine/dispatch.js";
import { classifyKept } from "./classified.js";

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
      // The same-verdict ceiling ends a dispatch before the action runs.
      const next = run.events[i + 1];
      const preempted = next?.type === "budget_exhausted" && next.budget === "same_verdict_ceiling";
      if (e.action && !preempted) add(byAction, e.action, run.fixture);
    });
    const classified = run.events.flatMap((e) => (e.type === "failure_classified" ? [e.verdict] : []));
    for (const code of exercisedVerdicts({ classified, golden: run.passed === true ? "holds" : run.passed === false ? "differs" : "none" })) passing.add(code);
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

/** A fixture, as far as what it exercises goes. */
export interface FixtureExercise {
  /** The verdicts its dispatch classified failures as (lint, which runs nothing: those its recorded failures classify as). */
  classified: Iterable<string>;
  /** Its golden held, differed, is not checked here (lint: simulate checks goldens), or there is none. */
  golden: "holds" | "differs" | "unchecked" | "none";
}

/**
 * The one definition of the verdicts a fixture exercises, for `simulate --coverage` and lint
 * alike: those its dispatch classifies a failure as, when it has a golden that holds (or is
 * not checked). A golden that does not name the verdict still pins the run that reached it.
 */
export function exercisedVerdicts(fixture: FixtureExercise): Set<string> {
  return fixture.golden === "holds" || fixture.golden === "unchecked" ? new Set(fixture.classified) : new Set();
}

/** The verdicts a fixture's recorded failures classify as, under the dispatcher's classifier: what its dispatch can classify without running it. */
export function classifiedFailures(fixture: Fixture, registry: Registry, playbook: Playbook): string[] {
  return recordedFailures(fixture, registry, playbook).map((f) => (f.error === undefined ? classify(registry, f.error, f.tool, playbook) : classifyKept(f.error, registry, f.error, f.tool, playbook)).verdict);
}

export interface RecordedFailure {
  /** The response's path. */
  path: PathSegment[];
  error: AdapterError | undefined;
  /** False for an empty ok response, which the dispatcher turns into an error itself. */
  hasErrorObject: boolean;
  tool: string | undefined;
}

/** Every failed response of the fixture, with the tool it was sent to. */
export function recordedFailures(fixture: Fixture, registry: Registry, playbook: Playbook): RecordedFailure[] {
  const calls = fixtureCalls(fixture);
  const out: RecordedFailure[] = [];
  const emptyFails = playbook.empty_response_is_failure ?? false;
  const add = (call: Call, responses: Response[] | undefined, fallbacks: Response[] | undefined, path: PathSegment[]) => {
    const primary = failures(responses, [...path, "responses"], call.tool, emptyFails);
    out.push(...primary);
    if (fallbacks === undefined || fallbacks.length === 0) return;
    // Fallback responses answer the same call sent to the fallback action's tool.
    const fallbackTool = primary
      .map((f) => playbook.verdicts[classify(registry, f.error, f.tool, playbook).verdict])
      .find((a) => a?.action === "fallback");
    out.push(...failures(fallbacks, [...path, "fallback_responses"], fallbackTool?.action === "fallback" ? fallbackTool.tool : undefined, emptyFails));
  };
  for (let k = 0; k < calls.length; k++) {
    const { spec, path } = calls[k];
    add(spec.call, spec.responses, spec.fallback_responses, path);
    if (spec.compensation) add(spec.compensation.call, spec.compensation.responses, spec.compensation.fallback_responses, [...path, "compensation"]);
  }
  return out;
}

/** Its failed responses; an ok response with no value is one when `empty_response_is_failure` is on, as the dispatcher observes it. */
function failures(responses: Response[] | undefined, path: PathSegment[], tool: string | undefined, emptyFails: boolean): RecordedFailure[] {
  const out: RecordedFailure[] = [];
  const list = responses ?? [];
  for (let i = 0; i < list.length; i++) {
    const r = list[i];
    if (r.status === "error") {
      out.push({ path: [...path, i], error: r.error, hasErrorObject: r.error !== undefined, tool });
    } else if (r.status === "ok" && emptyFails && (r.value === undefined || r.value === null)) {
      out.push({ path: [...path, i], error: EMPTY_RESPONSE, hasErrorObject: false, tool });
    }
  }
  return out;
}
