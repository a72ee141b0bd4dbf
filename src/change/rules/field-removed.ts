import type { PathSegment } from "failbook-runtime/model/finding.js";
import { statusOf, type Registry } from "failbook-runtime/model/registry.js";
import { matchRules } from "../../lint/rules/field-undeclared.js";
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
        related: [{ message: `declared, and tested by '${code}', in ${baseline.label}`, position: baseline.registry.doc.locate([...where.path, "fields", name], "key") }],
      });
    }
  },
  example: `# baseline: error_fields: { decline_code: { type: string } }, tested by card_declined; now:
error_fields: {}`,
  fix: "Keep the declaration, or make sure no rule needs the field and no adapter sends it.",
};

/** Every declared field a rule of a non-reserved verdict tests (causes included), first place first. */
function testedFields(registry: Registry): Map<string, { verdict: number; path: PathSegment[] }> {
  const declared = registry.error_fields ?? {};
  const out = new Map<string, { verdict: number; path: PathSegment[] }>();
  for (const { rule, path } of matchRules(registry.verdicts)) {
    const verdict = path[1] as number;
    if (statusOf(registry.verdicts[verdict]) === "reserved") continue;
    for (const name of Object.keys(rule.fields ?? {})) if (Object.hasOwn(declared, name) && !out.has(name)) out.set(name, { verdict, path });
  }
  return out;
}
