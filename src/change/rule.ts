/**
 * The shape of a change-control rule: a lint rule whose check sees two projects, the
 * baseline (what is released, e.g. origin/main) and the current one, and reports at nodes of
 * the current files; a position in the baseline goes in `related`.
 */
import type { Fixture } from "failbook-runtime/model/fixture.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import type { Registry } from "failbook-runtime/model/registry.js";
import type { Loaded, Project } from "../load/project.js";
import type { Report, RuleMeta } from "../lint/rule.js";
import type { OutcomeChange } from "./outcome.js";

/** One side of a comparison: a project whose registry and playbook passed their schemas. */
export interface Side {
  /** How the user named this side: `git:origin/main`, a path, or `working tree`. */
  label: string;
  project: Project;
  registry: Loaded<Registry>;
  playbook: Loaded<Playbook>;
  fixtures: Loaded<Fixture>[];
}

export interface ChangeContext {
  baseline: Side;
  current: Side;
  /** The behaviour diff: fixtures whose outcome differs between the sides (computed once, on demand). */
  outcomeChanges(): OutcomeChange[];
  report(r: Report): void;
}

export interface ChangeRule extends RuleMeta {
  check(ctx: ChangeContext): void;
}
