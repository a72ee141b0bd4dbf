/** The shape of a lint rule: metadata plus one check that reports findings at YAML nodes. */
import type { Severity } from "../model/config.js";
import type { PathSegment, Position } from "../model/finding.js";
import type { Fixture } from "../model/fixture.js";
import type { Playbook } from "../model/playbook.js";
import type { Registry } from "../model/registry.js";
import type { Loaded, Project } from "../load/project.js";
import type { YamlDocument } from "../load/yaml.js";

export interface RuleMeta {
  id: string;
  /** Default severity; the config's `rules:` may override it. */
  severity: Severity;
  /** One line, shown in `--help`, the table of docs/rules.md and SARIF. */
  description: string;
}

export interface Report {
  message: string;
  doc: YamlDocument;
  path: readonly PathSegment[];
  target?: "value" | "key";
  related?: { message: string; position: Position }[];
}

/** What a rule's check sees: a project whose registry and playbook passed their schemas. */
export interface RuleContext {
  project: Project;
  registry: Loaded<Registry>;
  playbook: Loaded<Playbook>;
  fixtures: Loaded<Fixture>[];
  report(r: Report): void;
}

export interface LintRule extends RuleMeta {
  check(ctx: RuleContext): void;
}

/** Rules whose findings come from loading (parsing and schema validation), not from a check. */
export const LOAD_RULES: RuleMeta[] = [
  { id: "yaml-syntax", severity: "error", description: "A YAML parse error or a duplicate key." },
  { id: "schema", severity: "error", description: "A JSON Schema violation: a missing, unknown or mistyped key." },
];

/**
 * Every rule's metadata, in one catalogue below lint and change control: each family of
 * rules registers here when its module loads (lint's rules, change control's rules), so a
 * config's `rules:`, SARIF and docs/rules.md see them all without lint knowing change control.
 */
const catalogue = new Map<string, RuleMeta>();

export function registerRules(rules: readonly RuleMeta[]): void {
  for (const { id, severity, description } of rules) if (!catalogue.has(id)) catalogue.set(id, { id, severity, description });
}

/** Every registered rule's metadata, in registration order. */
export function ruleCatalogue(): RuleMeta[] {
  return [...catalogue.values()];
}

registerRules(LOAD_RULES);
