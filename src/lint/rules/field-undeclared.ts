import { CAUSE_DEPTH } from "failbook-runtime/engine/classifier.js";
import type { PathSegment } from "failbook-runtime/model/finding.js";
import type { MatchRule } from "failbook-runtime/model/registry.js";
import type { LintRule } from "../rule.js";
import { didYouMean } from "./support.js";

/**
 * Every match rule of the registry with its path, the rules under `cause` and `not` included,
 * in file order. A list, walked by index: lint runs this once, before V8 has optimized it, and
 * a generator's steps there cost an object each (10 MB at 10,000 codes).
 */
export function matchRules(verdicts: readonly { match?: MatchRule[] }[]): { rule: MatchRule; path: PathSegment[] }[] {
  const out: { rule: MatchRule; path: PathSegment[] }[] = [];
  for (let v = 0; v < verdicts.length; v++) {
    const match = verdicts[v].match;
    if (match === undefined) continue;
    for (let r = 0; r < match.length; r++) nestedRules(match[r], ["verdicts", v, "match", r], 0, out);
  }
  return out;
}

// Rules nest at most as deep as the classifier follows causes; the schema bounds the rest.
function nestedRules(rule: MatchRule, path: PathSegment[], depth: number, out: { rule: MatchRule; path: PathSegment[] }[]): void {
  out.push({ rule, path });
  if (depth >= CAUSE_DEPTH) return;
  if (rule.cause !== undefined) nestedRules(rule.cause, [...path, "cause"], depth + 1, out);
  if (rule.not !== undefined) nestedRules(rule.not, [...path, "not"], depth + 1, out);
}

export const fieldUndeclared: LintRule = {
  id: "field-undeclared",
  severity: "error",
  verdictFields: ["match"],
  description: "A match rule testing an error field that the registry's error_fields does not declare.",
  check({ registry, report }) {
    const declared = Object.keys(registry.value.error_fields ?? {});
    const rules = matchRules(registry.value.verdicts);
    for (let r = 0; r < rules.length; r++) {
      const { rule, path } = rules[r];
      if (rule.fields === undefined) continue;
      for (const name of Object.keys(rule.fields)) {
        if (declared.includes(name)) continue;
        const { hint, fix } = didYouMean(name, declared);
        const advice = declared.length === 0 ? "declare it under error_fields: with its type" : `declare it under error_fields:, or use one of: ${declared.join(", ")}${hint}`;
        report({ message: `field '${name}' is not declared in error_fields, so no adapter error can carry it; ${advice}`, doc: registry.doc, path: [...path, "fields", name], target: "key", fix });
      }
    }
  },
  example: `# playbooks/registry.yaml
error_fields: { decline_code: { type: string } }
verdicts:
  - code: card_declined
    match: [{ fields: { declin_code: insufficient_funds } }]`,
  fix: "Declare the field under error_fields: with its type, or test one that is declared (the message suggests the nearest).",
};
