/**
 * The JSON report of `failbook simulate` (SPEC 6): `{ results: [{ fixture, file, outcome,
 * events, passed, diff }], passed, failed }`; a fixture that could not run adds `error`.
 */
import type { Coverage } from "../coverage.js";
import { goldenPath } from "../golden.js";
import type { ProjectSimulation } from "../project.js";
import { inertJson } from "failbook-runtime/util/inert.js";

export function formatSimulationJson(sim: ProjectSimulation, coverage?: Coverage): string {
  const results = sim.results.map((r) => ({
    fixture: r.fixture,
    file: r.file,
    outcome: r.outcome,
    events: r.events,
    passed: r.passed,
    diff:
      r.diff?.map((d) => ({
        path: goldenPath(d.path),
        expected: d.expected ?? null,
        actual: d.actual ?? null,
        line: d.position.line,
        column: d.position.column,
        ...(d.message ? { message: d.message } : {}),
      })) ?? null,
    ...(r.error ? { error: { message: r.error.message, line: r.error.position.line, column: r.error.position.column } } : {}),
  }));
  return inertJson({ results, passed: sim.passed, failed: sim.failed, ...(coverage ? { coverage } : {}) }, 2) + "\n";
}
