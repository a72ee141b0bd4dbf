import { statusOf } from "failbook-runtime/model/registry.js";
import type { LintRule } from "../rule.js";

export const playbookExhaustive: LintRule = {
  id: "playbook-exhaustive",
  severity: "error",
  description: "An active or deprecated verdict with no playbook action.",
  check({ registry, playbook, report }) {
    for (const [i, v] of registry.value.verdicts.entries()) {
      if (statusOf(v) === "reserved" || Object.hasOwn(playbook.value.verdicts, v.code)) continue;
      report({
        message: `verdict '${v.code}' has no playbook action; add an entry for it under verdicts: in ${playbook.doc.file}`,
        doc: registry.doc,
        path: ["verdicts", i, "code"],
      });
    }
  },
};
