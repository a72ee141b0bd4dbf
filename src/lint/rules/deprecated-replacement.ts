import { statusOf, type Registry } from "failbook-runtime/model/registry.js";
import type { LintRule } from "../rule.js";
import { didYouMean, verdictIndex } from "./support.js";

export const deprecatedReplacement: LintRule = {
  id: "deprecated-replacement",
  severity: "error",
  verdictFields: ["code", "status", "replaced_by"],
  description: "A deprecated verdict without an active replaced_by.",
  check({ registry, report }) {
    const index = verdictIndex(registry.value);
    const active = registry.value.verdicts.filter((v) => statusOf(v) === "active").map((v) => v.code);
    const verdicts = registry.value.verdicts;
    for (let i = 0; i < verdicts.length; i++) {
      const v = verdicts[i];
      if (statusOf(v) !== "deprecated") continue;
      const target = v.replaced_by;
      if (target === undefined) {
        report({
          message: `deprecated verdict '${v.code}' names no replacement; add replaced_by: with the active code adapters should use instead`,
          doc: registry.doc,
          path: ["verdicts", i, "status"],
        });
        continue;
      }
      const at = index.get(target);
      if (at === undefined) {
        const { hint, fix } = didYouMean(target, active);
        report({
          message: `replaced_by '${target}' of '${v.code}' names no verdict; point it at an active verdict${hint}`,
          doc: registry.doc,
          path: ["verdicts", i, "replaced_by"],
          fix,
        });
        continue;
      }
      const status = statusOf(registry.value.verdicts[at]);
      if (status === "active") continue;
      const final = finalReplacement(registry.value, target, index);
      const hint = final ? `point it at '${final}', the active end of the chain` : "point it at an active verdict";
      report({
        message: `replaced_by '${target}' of '${v.code}' is ${status}, not active; ${hint}`,
        doc: registry.doc,
        path: ["verdicts", i, "replaced_by"],
        related: [{ message: `'${target}' is declared ${status} here`, position: registry.doc.locate(["verdicts", at, "status"]) }],
      });
    }
  },
  example: `# playbooks/registry.yaml
  - { code: timeout, class: transient, retryable: true, status: deprecated }   # no replaced_by`,
  fix: "Add replaced_by: naming the active code that adapters should use instead.",
};

/** Follow replaced_by from `code` to the first active verdict, if the chain reaches one. */
function finalReplacement(registry: Registry, code: string, index: ReadonlyMap<string, number>): string | undefined {
  const seen = new Set<string>();
  for (let current: string | undefined = code; current !== undefined && !seen.has(current); ) {
    seen.add(current);
    const at = index.get(current);
    if (at === undefined) return undefined;
    const v = registry.verdicts[at];
    if (statusOf(v) === "active") return current;
    current = v.replaced_by;
  }
  return undefined;
}
