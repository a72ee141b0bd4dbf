import type { LintRule } from "../rule.js";

const DOC_FIELDS = ["summary", "recovery"] as const;

export const docsMissing: LintRule = {
  id: "docs-missing",
  severity: "warning",
  description: "A verdict without summary or recovery.",
  check({ registry, report }) {
    for (const [i, v] of registry.value.verdicts.entries()) {
      const missing = DOC_FIELDS.filter((f) => (v[f] ?? "").trim() === "");
      if (missing.length === 0) continue;
      // A key present but blank is the node to fix; an absent key, the verdict itself.
      const blank = missing.find((f) => v[f] !== undefined);
      report({
        message: `verdict '${v.code}' has no ${missing.join(" and no ")}; add ${missing.map(describe).join(" and ")}: operators, agents and the rendered registry show them`,
        doc: registry.doc,
        path: blank ? ["verdicts", i, blank] : ["verdicts", i],
      });
    }
  },
};

const describe = (field: (typeof DOC_FIELDS)[number]) => (field === "summary" ? "summary: (one line: what happened)" : "recovery: (what to do about it)");
