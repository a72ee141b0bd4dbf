import { statusOf, type MatchRule, type Registry } from "../../model/registry.js";
import type { ChangeRule } from "../rule.js";

export const fieldRemoved: ChangeRule = {
  id: "change/field-removed",
  severity: "warning",
  description: "A declared error field that a match rule tested is no longer declared.",
  check({ baseline, current, report }) {
    const declared = current.registry.value.error_fields ?? {};
    const tested = testedFields(baseline.registry.value);
    for (const [name, where] of tested) {
      if (Object.hasOwn(declared, name)) continue;
      const code = baseline.registry.value.verdicts[where.verdict].code;
      report({
        message: `error field '${name}' is no longer declared in error_fields, but '${code}' tested it in ${baseline.label}; errors that adapters still report with it now classify without it (the rule can no longer test it). Keep the declaration, or make sure no rule needs it and no adapter sends it`,
        doc: current.registry.doc,
        path: current.registry.value.error_fields === undefined ? [] : ["error_fields"],
        target: "key",
        related: [{ message: `declared, and tested by '${code}', in ${baseline.label}`, position: baseline.registry.doc.locate(["verdicts", where.verdict, "match", where.rule, ...where.path, "fields", name], "key") }],
      });
    }
  },
};

/** Every declared field a rule of a non-reserved verdict tests (causes included), first place first. */
function testedFields(registry: Registry): Map<string, { verdict: number; rule: number; path: string[] }> {
  const declared = registry.error_fields ?? {};
  const out = new Map<string, { verdict: number; rule: number; path: string[] }>();
  for (const [verdict, v] of registry.verdicts.entries()) {
    if (statusOf(v) === "reserved") continue;
    for (const [rule, m] of (v.match ?? []).entries()) {
      const path: string[] = [];
      for (let r: MatchRule | undefined = m; r !== undefined; r = r.cause, path.push("cause")) {
        for (const name of Object.keys(r.fields ?? {})) if (Object.hasOwn(declared, name) && !out.has(name)) out.set(name, { verdict, rule, path: [...path] });
      }
    }
  }
  return out;
}
