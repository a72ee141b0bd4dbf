import { statusOf } from "failbook-runtime/model/registry.js";
import type { LintRule } from "../rule.js";
import { didYouMean, verdictIndex } from "./support.js";

export const fallbackUndefined: LintRule = {
  id: "fallback-undefined",
  severity: "error",
  verdictFields: ["code", "status"],
  description: "fallback missing or not an active verdict.",
  check({ registry, report }) {
    const code = registry.value.fallback;
    const index = verdictIndex(registry.value);
    const at = index.get(code);
    if (at === undefined) {
      const active = registry.value.verdicts.filter((v) => statusOf(v) === "active").map((v) => v.code);
      const { hint, fix } = didYouMean(code, active);
      report({
        message: `fallback '${code}' names no verdict; every error no rule recognises classifies as the fallback, so point it at an active verdict (usually one of class unknown that escalates)${hint}`,
        doc: registry.doc,
        path: ["fallback"],
        fix,
      });
      return;
    }
    const status = statusOf(registry.value.verdicts[at]);
    if (status === "active") return;
    report({
      message: `fallback '${code}' is ${status}, but unrecognised errors classify as it; point fallback at an active verdict, or make '${code}' active`,
      doc: registry.doc,
      path: ["fallback"],
      related: [{ message: `'${code}' is declared ${status} here`, position: registry.doc.locate(["verdicts", at, "status"]) }],
    });
  },
  example: `# playbooks/registry.yaml
fallback: unknown_eror        # no such verdict`,
  fix: "Point fallback: at an active verdict, usually one of class unknown whose action escalates.",
};
