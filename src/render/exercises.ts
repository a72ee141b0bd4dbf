/**
 * Which fixtures exercise a code: a fixture's `expect` names it (as `verdict` anywhere in the
 * golden: the outcome, a step, an event), or one of its recorded failures classifies as it
 * under the registry (SPEC 2.1, the same classifier the dispatcher uses).
 */
import type { PathSegment } from "failbook-runtime/model/finding.js";
import type { Fixture } from "failbook-runtime/model/fixture.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import type { Registry } from "failbook-runtime/model/registry.js";
import type { Loaded } from "../load/project.js";
import { classify } from "failbook-runtime/engine/classify.js";
import { recordedFailures } from "../simulate/coverage.js";

export interface Exercise {
  fixture: string;
  file: string;
  line: number;
  column: number;
  /** A recorded failure that classifies as the code, or the golden naming it. */
  via: "failure" | "golden";
  /** Where in the fixture, e.g. `responses[1]`, `steps[0].compensation.responses[0]`, `expect.verdict`. */
  at: string;
}

/** Every place in the fixtures that exercises `code`, by file and line. */
export function fixturesExercising(code: string, registry: Registry, playbook: Playbook, fixtures: readonly Loaded<Fixture>[]): Exercise[] {
  const out: Exercise[] = [];
  for (const { value: fixture, doc } of fixtures) {
    const add = (via: Exercise["via"], path: PathSegment[], node: PathSegment[]) => {
      const pos = doc.locate(node);
      out.push({ fixture: fixture.name, file: pos.file, line: pos.line, column: pos.column, via, at: dotted(path) });
    };
    for (const failure of recordedFailures(fixture, registry, playbook)) {
      if (classify(registry, failure.error, failure.tool, playbook).verdict === code) add("failure", failure.path, failure.hasErrorObject ? [...failure.path, "error"] : failure.path);
    }
    for (const [path, verdict] of verdictsIn(fixture.expect, ["expect"])) {
      if (verdict === code) add("golden", path, path);
    }
  }
  return out.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column));
}

/** Every `verdict` named inside the golden, with its path. */
function verdictsIn(value: unknown, path: PathSegment[]): [PathSegment[], string][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => verdictsIn(v, [...path, i]));
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([k, v]): [PathSegment[], string][] => (k === "verdict" && typeof v === "string" ? [[[...path, k], v]] : verdictsIn(v, [...path, k])));
}

/** `["expect", "events", 2, "verdict"]` -> `expect.events[2].verdict`. */
function dotted(path: PathSegment[]): string {
  return path.map((s, i) => (typeof s === "number" ? `[${s}]` : i === 0 ? s : `.${s}`)).join("");
}
