import type { LintRule } from "../rule.js";

export const duplicateCode: LintRule = {
  id: "duplicate-code",
  severity: "error",
  verdictFields: ["code"],
  description: "Two verdicts with one code.",
  check({ registry, report }) {
    const first = new Map<string, number>();
    const verdicts = registry.value.verdicts;
    for (let i = 0; i < verdicts.length; i++) {
      const v = verdicts[i];
      const earlier = first.get(v.code);
      if (earlier === undefined) {
        first.set(v.code, i);
        continue;
      }
      report({
        message: `duplicate code '${v.code}': it is already declared by verdict #${earlier + 1}; codes must be unique, so rename or remove one`,
        doc: registry.doc,
        path: ["verdicts", i, "code"],
        related: [{ message: "first declared here", position: registry.doc.locate(["verdicts", earlier, "code"]) }],
      });
    }
  },
  example: `# playbooks/registry.yaml
verdicts:
  - { code: rate_limited, class: transient, retryable: true }
  - { code: rate_limited, class: permanent, retryable: false }`,
  fix: "Rename one of the two verdicts, or remove the one that is not meant: a code names one verdict.",
};
