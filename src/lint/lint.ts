/** Running the rules over a loaded project. */
import type { Severity, SeveritySetting } from "failbook-runtime/model/config.js";
import { replaceFix, SEVERITY_RANK, type Finding } from "failbook-runtime/model/finding.js";
import { findingAt } from "../load/finding.js";
import type { Project } from "../load/project.js";
import type { LintRule, Report, RuleContext, RuleMeta } from "./rule.js";
import { ruleCatalogue } from "./rule.js";
import { RULES } from "./rules/index.js";
import { closest } from "../util/text.js";
import type { VerdictFindings } from "./incremental.js";

export interface LintOptions {
  /** Extra rules (change control adds its own). */
  extraRules?: LintRule[];
  /** Only findings at error severity: skip every rule the config leaves below it (simulate's check, which only counts errors). */
  errorsOnly?: boolean;
  /** The per-verdict findings of the last check of this project, reused where an edit left a verdict as it was (failbook lsp). */
  previous?: VerdictFindings;
}

/**
 * Every rule id a config's `rules:` may name: load and lint rules, and change-control rules
 * once change control is loaded (the CLI and the library entry point load it).
 */
export function allRuleMeta(): RuleMeta[] {
  return ruleCatalogue();
}

/** Lint a project: load findings first, then every enabled rule, sorted by file and position. */
export function lintProject(project: Project, loadFindings: Finding[], options: LintOptions = {}): Finding[] {
  const overrides = project.config.rules ?? {};
  const out: Finding[] = [];
  for (const f of [...loadFindings, ...unknownRuleIds(project)]) {
    const severity = effectiveSeverity(f.rule, f.severity, overrides);
    if (severity && (!options.errorsOnly || severity === "error")) out.push({ ...f, severity });
  }
  const rules = [...RULES, ...(options.extraRules ?? [])];
  const enabled = options.errorsOnly ? rules.filter((r) => effectiveSeverity(r.id, r.severity, overrides) === "error") : rules;
  const checkable = project.checkable;
  if (checkable === undefined) out.push(...runRules(project, enabled, options.previous));
  else {
    // A schema error in some entries: the rules check the rest (SPEC 21), saying nothing of a code left out.
    const quotes = (text: string) => [...checkable.codes].some((code) => text.includes(`'${code}'`));
    for (const f of runRules({ ...project, registry: checkable.registry, playbook: checkable.playbook }, enabled)) {
      if (!quotes(f.message) && !(f.related ?? []).some((r) => quotes(r.message))) out.push(f);
    }
  }
  return sortFindings(out);
}

/**
 * Run rules over a project at the severities its config sets (`off` skips a rule). Nothing
 * runs when the registry or the playbook failed its schema: the rules need both (lintProject
 * runs them on the entries that passed, Project.checkable).
 */
export function runRules(project: Project, rules: readonly LintRule[], previous?: VerdictFindings): Finding[] {
  const overrides = project.config.rules ?? {};
  const registry = project.registry;
  const playbook = project.playbook;
  const out: Finding[] = [];
  if (!registry || !playbook) return out;
  const incremental = previous?.begin(project) === true;
  for (const rule of rules) {
    const severity = effectiveSeverity(rule.id, rule.severity, overrides);
    if (!severity) continue;
    let into = out;
    const report = incremental && previous ? (r: Report) => into.push(previous.finding({ rule: rule.id, severity, ...r })) : (r: Report) => into.push(findingAt({ rule: rule.id, severity, ...r }));
    const ctx: RuleContext = { project, registry, playbook, fixtures: project.fixtures, report };
    const checkVerdict = rule.checkVerdict;
    const fields = rule.verdictFields;
    /** What the rule reports while `run` runs, apart from the findings so far. */
    const found = (run: () => void) => {
      into = [];
      run();
      const made = into;
      into = out;
      return made;
    };
    if (incremental && previous && checkVerdict) {
      // A per-verdict rule, verdict by verdict as its check runs: each verdict's findings reused when it is unchanged.
      const checkRest = rule.checkRest;
      if (checkRest) for (const f of previous.restFindings(rule.id, severity, () => found(() => checkRest(ctx)))) out.push(f);
      const verdicts = registry.value.verdicts;
      const codeSet = rule.codeSet;
      previous.pushVerdictFindings(rule.id, severity, fields, verdicts.length, (index) => found(() => checkVerdict(ctx, verdicts[index], index)), codeSet && (() => codeSet(ctx)), out);
    } else if (incremental && previous && fields) {
      // A project-wide rule that says which verdict fields it reads: its findings reused when the edit changed none.
      for (const f of previous.ruleFindings(rule.id, severity, fields, () => found(() => rule.check(ctx)))) out.push(f);
    } else rule.check(ctx);
  }
  return out;
}

/** A `rules:` key that names no rule is a typo that would silently leave the rule it meant at its default: an error. */
function unknownRuleIds(project: Project): Finding[] {
  const known = allRuleMeta().map((r) => r.id);
  return Object.keys(project.config.rules ?? {})
    .filter((id) => !known.includes(id))
    .map((id) => {
      const guess = closest(id, known);
      return findingAt({
        rule: "schema",
        severity: "error",
        message: `unknown rule '${id}' under rules:${guess ? `; did you mean '${guess}'?` : ""} (failbook lint --format sarif lists every rule id)`,
        doc: project.configDoc,
        path: ["rules", id],
        target: "key",
        ...(guess ? { fix: replaceFix(guess) } : {}),
      });
    });
}

export function effectiveSeverity(id: string, def: Severity, overrides: Record<string, SeveritySetting>): Severity | undefined {
  const set = overrides[id];
  if (set === "off") return undefined;
  return set ?? def;
}

export function sortFindings(findings: Finding[]): Finding[] {
  return [...findings].sort(
    (a, b) =>
      cmp(a.file, b.file) || a.line - b.line || a.column - b.column || SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] || cmp(a.rule, b.rule) || cmp(a.message, b.message),
  );
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function countBySeverity(findings: Finding[]): { errors: number; warnings: number; infos: number } {
  return {
    errors: findings.filter((f) => f.severity === "error").length,
    warnings: findings.filter((f) => f.severity === "warning").length,
    infos: findings.filter((f) => f.severity === "info").length,
  };
}
