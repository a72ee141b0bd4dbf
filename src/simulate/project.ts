/**
 * Every fixture of a loaded project, simulated and compared with its golden. This is what
 * `failbook simulate` prints, and what change control runs under two sets of rules.
 */
import { patternRedactor } from "../load/redaction.js";
import type { Position } from "failbook-runtime/model/finding.js";
import type { Fixture } from "failbook-runtime/model/fixture.js";
import type { DispatchEvent, Outcome } from "failbook-runtime/model/outcome.js";
import type { Loaded, Project } from "../load/project.js";
import { compareGolden, type GoldenDiff } from "./golden.js";
import { simulateFixture, type Rules } from "./fixture.js";

export interface SimulateProjectOptions {
  /** Jitter seed for fixtures that name none (default 0). */
  seed?: number;
  /** Run only the fixtures with these names. */
  only?: readonly string[];
  /** Run the fixtures under these rules instead of the project's (change control's baseline). */
  rules?: Rules;
  /**
   * Called after each fixture with how many of how many have run and the one that runs next.
   * When given, the run yields to the event loop between fixtures, so that a live view can paint.
   */
  onResult?: (result: FixtureResult, progress: SimulationProgress) => void;
}

export interface SimulationProgress {
  done: number;
  total: number;
  /** The fixture that runs next, if any. */
  next: string | undefined;
}

export interface FixtureResult {
  fixture: string;
  /** The file as shown to the user. */
  file: string;
  /** Where the fixture's name stands. */
  position: Position;
  outcome: Outcome | null;
  events: DispatchEvent[];
  /** null for a fixture without `expect`. */
  passed: boolean | null;
  diff: (GoldenDiff & { position: Position })[] | null;
  /** The fixture could not be replayed (it ran out of responses, it has no call). */
  error: { message: string; position: Position } | null;
  source: Loaded<Fixture>;
}

export interface ProjectSimulation {
  results: FixtureResult[];
  passed: number;
  failed: number;
}

/** The rules of a loaded project, or undefined when its registry or playbook failed to load. */
export function projectRules(project: Project): Rules | undefined {
  if (!project.registry || !project.playbook) return undefined;
  return { registry: project.registry.value, playbook: project.playbook.value, redact: patternRedactor(project.config.redact) };
}

export async function simulateProject(project: Project, options: SimulateProjectOptions = {}): Promise<ProjectSimulation> {
  const rules = options.rules ?? projectRules(project);
  if (!rules) throw new TypeError("cannot simulate: the project's registry or playbook failed to load (run failbook lint)");
  const only = options.only ? new Set(options.only) : undefined;
  const selected = project.fixtures.filter((loaded) => !only || only.has(loaded.value.name));
  const results: FixtureResult[] = [];
  for (const loaded of selected) {
    const result = await simulateLoaded(rules, loaded, options.seed);
    results.push(result);
    if (options.onResult) {
      options.onResult(result, { done: results.length, total: selected.length, next: selected[results.length]?.value.name });
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  return {
    results,
    passed: results.filter((r) => r.passed === true).length,
    failed: results.filter((r) => r.passed === false).length,
  };
}

async function simulateLoaded(rules: Rules, loaded: Loaded<Fixture>, seed: number | undefined): Promise<FixtureResult> {
  const { value: fixture, doc } = loaded;
  const base = { fixture: fixture.name, file: doc.file, position: doc.locate(["name"], "key"), source: loaded };
  const sim = await simulateFixture(rules, fixture, seed === undefined ? {} : { seed });
  if (!sim.ok) {
    return { ...base, outcome: null, events: sim.events, passed: false, diff: null, error: { message: sim.error.message, position: doc.locate(sim.error.path) } };
  }
  if (!fixture.expect) return { ...base, outcome: sim.outcome, events: sim.events, passed: null, diff: null, error: null };
  const diff = compareGolden(fixture.expect, sim.outcome, sim.events).map((d) => ({ ...d, position: doc.locate(d.path, d.kind === "unknown_key" ? "key" : "value") }));
  return { ...base, outcome: sim.outcome, events: sim.events, passed: diff.length === 0, diff: diff.length === 0 ? null : diff, error: null };
}
