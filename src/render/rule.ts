/**
 * One lint or change-control rule for the terminal (`failbook explain RULE-ID`): what it
 * finds, an example of what it reports, the fix, and how to set its severity. The text comes
 * from the rule's own metadata, the data the rule table and SARIF are made from.
 */
import type { RuleMeta } from "../lint/rule.js";
import { type ExplainOptions, wrapText } from "./explain.js";

/** Which family a rule is of, and when it runs. */
function family(id: string): string {
  if (id === "yaml-syntax" || id === "schema") return "load rule: reported while the files are read, before any other rule";
  if (id.startsWith("change/")) return "change-control rule: runs with failbook lint --against REF and failbook diff, comparing with a baseline";
  return "lint rule: runs with failbook lint";
}

export function explainRuleText(rule: RuleMeta, options: ExplainOptions): string {
  const { c } = options;
  const wrap = (text: string, indent: string) => wrapText(text, indent, options.width);
  // The example is YAML: its lines are kept as they are, only indented.
  const example = rule.example.split("\n").map((line) => `  ${line}`).join("\n");
  return [
    `${c.bold(rule.id)}  ${c.dim(`(${rule.severity} by default)`)}`,
    wrap(rule.description, ""),
    "",
    c.bold("Example"),
    example,
    "",
    c.bold("Fix"),
    wrap(rule.fix, "  "),
    "",
    c.bold("Runs"),
    wrap(family(rule.id), "  "),
    "",
    c.bold("Severity"),
    wrap(`${rule.severity} unless failbook.yaml says otherwise: rules: { ${rule.id}: error | warning | info | off }`, "  "),
  ].join("\n") + "\n";
}
