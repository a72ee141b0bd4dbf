/** The shape of a lint rule: metadata plus one check that reports findings at YAML nodes. */
import type { Severity } from "failbook-runtime/model/config.js";
import type { FindingFix, PathSegment, Position } from "failbook-runtime/model/finding.js";
import type { Fixture } from "failbook-runtime/model/fixture.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import type { Registry, Verdict } from "failbook-runtime/model/registry.js";
import type { Loaded, Project } from "../load/project.js";
import type { YamlDocument } from "../load/yaml.js";

export interface RuleMeta {
  id: string;
  /** Default severity; the config's `rules:` may override it. */
  severity: Severity;
  /** One line, shown in `--help`, the table of docs/rules.md and SARIF. */
  description: string;
  /** A few lines of the project's YAML (each file named in a comment) that the rule reports: `failbook explain RULE-ID` shows them. */
  example: string;
  /** What to do about a finding, in a sentence or two. */
  fix: string;
}

export interface Report {
  message: string;
  doc: YamlDocument;
  path: readonly PathSegment[];
  target?: "value" | "key";
  related?: { message: string; position: Position }[];
  /** The fix, when the rule knows one an editor can apply (failbook lsp's quick fixes). */
  fix?: FindingFix;
}

/** What a rule's check sees: a registry and playbook that passed their schemas, or their entries that did (Project.checkable). */
export interface RuleContext {
  project: Project;
  registry: Loaded<Registry>;
  playbook: Loaded<Playbook>;
  fixtures: Loaded<Fixture>[];
  report(r: Report): void;
}

export interface LintRule extends RuleMeta {
  check(ctx: RuleContext): void;
  /**
   * A per-verdict rule's check of one verdict (its `check` runs this over every verdict, in
   * order). What it reports about verdict `index` depends on that verdict and the project
   * outside the registry's verdict list alone, and on no other verdict but through the fields
   * it declares (verdictFields): lint may run it again over only the verdicts an edit changed
   * (lint/incremental.ts). Absent: a project-wide rule.
   */
  checkVerdict?(ctx: RuleContext, verdict: Verdict, index: number): void;
  /** A per-verdict rule's check of everything outside the registry's verdict list (run after every edit). */
  checkRest?(ctx: RuleContext): void;
  /**
   * A rule's reading of the registry's verdicts: the only fields it reads of any verdict of
   * `registry.value.verdicts` (a per-verdict rule: of any verdict but its own), reading no
   * other text of the verdict list (it may locate positions in it). After an edit that
   * changed none of them, lint may reuse its last findings (lint/incremental.ts). Absent: a
   * project-wide rule runs after every edit; a per-verdict rule reads no other verdict.
   * test/lint-incremental.test.ts holds each rule to what it declares.
   */
  verdictFields?: readonly (keyof Verdict)[];
  /**
   * A per-verdict rule that reads the other verdicts (its verdictFields) only to make one set
   * of codes, and each verdict's check reads that set only as whether it holds the verdict's
   * own code: the set, made once a check (the rule's checkVerdict sees the same). After an edit
   * to those fields, lint checks again only the verdicts the edit touched and those whose code
   * went into or out of the set (lint/incremental.ts); a rename re-checks two codes' verdicts,
   * not all of them.
   */
  codeSet?(ctx: RuleContext): ReadonlySet<string>;
}

/**
 * A per-verdict rule (see LintRule.checkVerdict): its `check` is its check of the rest of
 * the project (if any), then its one verdict's check, verdict by verdict.
 */
export function perVerdict(
  rule: RuleMeta & {
    checkVerdict(ctx: RuleContext, verdict: Verdict, index: number): void;
    checkRest?(ctx: RuleContext): void;
    verdictFields?: readonly (keyof Verdict)[];
    codeSet?(ctx: RuleContext): ReadonlySet<string>;
  },
): LintRule {
  return {
    ...rule,
    check(ctx) {
      rule.checkRest?.(ctx);
      // By index: an entries() iterator made two objects a verdict, for each of 20 rules over 10,000 verdicts.
      const verdicts = ctx.registry.value.verdicts;
      for (let index = 0; index < verdicts.length; index++) rule.checkVerdict(ctx, verdicts[index] as Verdict, index);
    },
  };
}

/** Rules whose findings come from loading (parsing and schema validation), not from a check. */
export const LOAD_RULES: RuleMeta[] = [
  {
    id: "yaml-syntax",
    severity: "error",
    description: "A YAML parse error or a duplicate key.",
    example: `# playbooks/registry.yaml
verdicts:
  - code: rate_limited
     class: transient        # indented one space too far`,
    fix: "Fix the YAML at the position shown: indentation, an unclosed bracket or quote, a duplicate key. The rest of the file is checked once it parses.",
  },
  {
    id: "schema",
    severity: "error",
    description: "A JSON Schema violation: a missing, unknown or mistyped key.",
    example: `# playbooks/registry.yaml
verdicts:
  - code: rate_limited
    clas: transient          # unknown key 'clas'; 'class' is missing`,
    fix: "Spell the key as the schema does (the message suggests the nearest), add the required key, or give the value the type it needs. Editors check as you type with the $schema modeline failbook init writes.",
  },
];

/**
 * Every rule's metadata, in one catalogue below lint and change control: each family of
 * rules registers here when its module loads (lint's rules, change control's rules), so a
 * config's `rules:`, SARIF and docs/rules.md see them all without lint knowing change control.
 */
const catalogue = new Map<string, RuleMeta>();

export function registerRules(rules: readonly RuleMeta[]): void {
  for (const { id, severity, description, example, fix } of rules) if (!catalogue.has(id)) catalogue.set(id, { id, severity, description, example, fix });
}

/** Every registered rule's metadata, in registration order. */
export function ruleCatalogue(): RuleMeta[] {
  return [...catalogue.values()];
}

registerRules(LOAD_RULES);
