import { hasFieldType } from "failbook-runtime/model/registry.js";
import type { LintRule } from "../rule.js";
import { matchRules } from "./field-undeclared.js";

export const fieldTypeMismatch: LintRule = {
  id: "field-type-mismatch",
  severity: "error",
  verdictFields: ["match"],
  description: "A match rule testing a declared error field with a value of another type: it can never hold.",
  check({ registry, report }) {
    const declared = registry.value.error_fields ?? {};
    const rules = matchRules(registry.value.verdicts);
    for (let r = 0; r < rules.length; r++) {
      const { rule, path } = rules[r];
      if (rule.fields === undefined) continue;
      for (const [name, wanted] of Object.entries(rule.fields)) {
        if (!Object.hasOwn(declared, name)) continue;
        const type = declared[name].type;
        const values = Array.isArray(wanted) ? wanted : [wanted];
        for (const [i, value] of values.entries()) {
          if (hasFieldType(value, type)) continue;
          report({
            message: `field '${name}' is declared ${type}, but this rule tests ${JSON.stringify(value)}, which an adapter error's ${name} can never equal; write a ${type} value`,
            doc: registry.doc,
            path: Array.isArray(wanted) ? [...path, "fields", name, i] : [...path, "fields", name],
          });
        }
      }
    }
  },
  example: `# playbooks/registry.yaml
error_fields: { retry_count: { type: number } }
verdicts:
  - code: retries_exhausted
    match: [{ fields: { retry_count: "3" } }]   # a string, never equal to a number`,
  fix: "Write the value with the declared type (retry_count: 3), or change the declaration if adapters really send a string.",
};
