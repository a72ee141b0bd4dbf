/** The shape of a storm rule (SPEC 19): a lint rule over one storm file, with the project's rules beside it. */
import type { PathSegment } from "failbook-runtime/model/finding.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import type { Registry } from "failbook-runtime/model/registry.js";
import type { Loaded, Project } from "../../load/project.js";
import type { RuleMeta } from "../../lint/rule.js";
import type { Storm } from "../model.js";

export interface StormRuleContext {
  project: Project;
  registry: Registry;
  playbook: Playbook;
  storm: Loaded<Storm>;
  /** A finding at a node of the storm file. */
  report(r: { message: string; path: readonly PathSegment[]; target?: "value" | "key" }): void;
}

export interface StormRule extends RuleMeta {
  check(ctx: StormRuleContext): void;
}
