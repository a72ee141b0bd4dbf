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
import { simulateInPython, type PythonSimulation } from "./python.js";

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
  /** Which runtime dispatches: TypeScript (default), or the Python package (SPEC 25, `--runtime py`). */
  runtime?: "ts" | "py";
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
  const python = options.runtime === "py" ? simulateInPython(project, selected.map((loaded) => ({ fixture: loaded.value, seed: options.seed ?? 0 }))) : undefined;
  for (const [i, loaded] of selected.entries()) {
    const result = await simulateLoaded(rules, loaded, options.seed, python?.[i]);
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

async function simulateLoaded(rules: Rules, loaded: Loaded<Fixture>, seed: number | undefined, python?: PythonSimulation): Promise<FixtureResult> {
  const { value: fixture, doc } = loaded;
  const base = { fixture: fixture.name, file: doc.file, position: doc.locate(["name"], "key"), source: loaded };
  if (python?.ok === "unsupported") {
    const policies = /sets (.*?), which/.exec(python.reason)?.[1] ?? python.reason;
    const message = `the Python runtime does not implement ${policies} yet (SPEC 18); simulate this project with --runtime ts`;
    return { ...base, outcome: null, events: [], passed: false, diff: null, error: { message, position: doc.locate([]) } };
  }
  const sim = python ?? (await simulateFixture(rules, fixture, seed === undefined ? {} : { seed }));
  if (!sim.ok) {
    return { ...base, outcome: null, events: sim.events, passed: false, diff: null, error: { message: sim.error.message, position: doc.locate(sim.error.path) } };
  }
  if (!fixture.expect) return { ...base, outcome: sim.outcome, events: sim.events, passed: null, diff: null, error: null };
  const diff = compareGolden(fixture.expect, sim.outcome, sim.events).map((d) => ({ ...d, position: doc.locate(d.path, d.kind === "unknown_key" ? "key" : "value") }));
  return { ...base, outcome: sim.outcome, events: sim.events, passed: diff.length === 0, diff: diff.length === 0 ? null : diff, error: null };
}
