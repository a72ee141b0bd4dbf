import { perVerdict } from "../rule.js";

const DOC_FIELDS = ["summary", "recovery"] as const;

export const docsMissing = perVerdict({
  id: "docs-missing",
  severity: "warning",
  description: "A verdict without summary or recovery.",
  checkVerdict({ registry, report }, v, i) {
    const missing = DOC_FIELDS.filter((f) => (v[f] ?? "").trim() === "");
    if (missing.length === 0) return;
    // A key present but blank is the node to fix; an absent key, the verdict itself.
    const blank = missing.find((f) => v[f] !== undefined);
    report({
      message: `verdict '${v.code}' has no ${missing.join(" and no ")}; add ${missing.map(describe).join(" and ")}: operators, agents and the rendered registry show them`,
      doc: registry.doc,
      path: blank ? ["verdicts", i, blank] : ["verdicts", i],
    });
  },
  example: `# playbooks/registry.yaml
  - { code: rate_limited, class: transient, retryable: true }   # no summary, no recovery`,
  fix: "Add summary: (what the failure means) and recovery: (what to do about it): operators, agents and the rendered registry show them.",
});

const describe = (field: (typeof DOC_FIELDS)[number]) => (field === "summary" ? "summary: (one line: what happened)" : "recovery: (what to do about it)");
