import type { RetryAfterPolicy } from "failbook-runtime/model/playbook.js";
import type { PathSegment } from "failbook-runtime/model/finding.js";
import type { LintRule } from "../rule.js";
import { didYouMean } from "./support.js";

/**
 * SPEC 18: `retry_after.fields` lists error fields holding a delay in milliseconds. A field
 * the registry does not declare, or declares as no number, never yields a hint.
 */
export const retryAfterFieldUndeclared: LintRule = {
  id: "retry-after-field-undeclared",
  severity: "error",
  verdictFields: [],
  description: "A retry_after.fields entry that is not a numeric error field the registry declares.",
  example: `# playbooks/playbook.yaml
retry_after: { fields: [next_retry_delay] }   # the registry's error_fields has no next_retry_delay`,
  fix: "Declare the field under the registry's error_fields: with type integer or number, or list one that is declared (the message suggests the nearest).",
  check({ registry, playbook, report }) {
    const declared = registry.value.error_fields ?? {};
    const numeric = Object.keys(declared).filter((name) => declared[name]?.type === "integer" || declared[name]?.type === "number");
    const policies: [RetryAfterPolicy | undefined, PathSegment[]][] = [[playbook.value.retry_after, ["retry_after"]]];
    const actions = playbook.value.verdicts;
    const codes = Object.keys(actions);
    for (let k = 0; k < codes.length; k++) {
      const action = actions[codes[k]];
      if ("retry_after" in action) policies.push([action.retry_after, ["verdicts", codes[k], "retry_after"]]);
    }
    for (const [policy, at] of policies) {
      (policy?.fields ?? []).forEach((name, i) => {
        if (numeric.includes(name)) return;
        const type = Object.hasOwn(declared, name) ? declared[name]?.type : undefined;
        const { hint, fix } = didYouMean(name, numeric);
        const why = type === undefined ? "is not declared in the registry's error_fields" : `is declared as ${type}, not a number`;
        const advice = numeric.length === 0 ? "declare it under error_fields: with type integer or number" : `declare it so, or list one of: ${numeric.join(", ")}${hint}`;
        report({ message: `retry_after field '${name}' ${why}, so it never yields a hint; ${advice}`, doc: playbook.doc, path: [...at, "fields", i], fix });
      });
    }
  },
};
