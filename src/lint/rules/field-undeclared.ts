import { CAUSE_DEPTH } from "failbook-runtime/engine/classifier.js";
import type { PathSegment } from "failbook-runtime/model/finding.js";
import type { MatchRule } from "failbook-runtime/model/registry.js";
import type { LintRule } from "../rule.js";
import { didYouMean } from "./support.js";

/** Every match rule of the registry with its path, the rules under `cause` and `not` included. */
export function* matchRules(verdicts: readonly { match?: MatchRule[] }[]): Generator<{ rule: MatchRule; path: PathSegment[] }> {
  for (const [v, verdict] of verdicts.entries()) {
    for (const [r, rule] of (verdict.match ?? []).entries()) yield* nestedRules(rule, ["verdicts", v, "match", r], 0);
  }
}

// Rules nest at most as deep as the classifier follows causes; the schema bounds the rest.
function* nestedRules(rule: MatchRule, path: PathSegment[], depth: number): Generator<{ rule: MatchRule; path: PathSegment[] }> {
  yield { rule, path };
  if (depth >= CAUSE_DEPTH) return;
  if (rule.cause !== undefined) yield* nestedRules(rule.cause, [...path, "cause"], depth + 1);
  if (rule.not !== undefined) yield* nestedRules(rule.not, [...path, "not"], depth + 1);
}

export const fieldUndeclared: LintRule = {
  id: "field-undeclared",
  severity: "error",
  verdictFields: ["match"],
  description: "A match rule testing an error field that the registry's error_fields does not declare.",
  check({ registry, report }) {
    const declared = Object.keys(registry.value.error_fields ?? {});
    for (const { rule, path } of matchRules(registry.value.verdicts)) {
      for (const name of Object.keys(rule.fields ?? {})) {
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
