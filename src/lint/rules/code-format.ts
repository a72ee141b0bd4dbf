import { DEFAULT_CODE_PATTERN } from "failbook-runtime/model/config.js";
import { compileUserPattern } from "../../load/pattern.js";
import type { LintRule } from "../rule.js";

export const codeFormat: LintRule = {
  id: "code-format",
  severity: "error",
  verdictFields: ["code"],
  description: "A code that does not match code_pattern.",
  check({ project, registry, report }) {
    const source = project.config.code_pattern ?? DEFAULT_CODE_PATTERN;
    let pattern: RegExp;
    try {
      // A user's pattern runs in linear time, whatever it is; the default is ours and has no
      // nested quantifier, so it needs no linear engine (and lint loads none at start-up).
      pattern = project.config.code_pattern === undefined ? new RegExp(DEFAULT_CODE_PATTERN, "u") : compileUserPattern(source, "u");
    } catch {
      return; // the loader already reported the broken pattern at the config's code_pattern
    }
    const where = project.config.code_pattern === undefined ? "the default code_pattern" : "code_pattern in the config";
    const verdicts = registry.value.verdicts;
    for (let i = 0; i < verdicts.length; i++) {
      const v = verdicts[i];
      if (pattern.test(v.code)) continue;
      const fixed = suggestion(v.code);
      const hint = fixed !== v.code && pattern.test(fixed) ? `rename it, e.g. '${fixed}'` : "rename it";
      report({
        message: `code '${v.code}' does not match ${where} /${source}/; ${hint} (codes are stable ids that adapters and generated code spell)`,
        doc: registry.doc,
        path: ["verdicts", i, "code"],
      });
    }
  },
  example: `# failbook.yaml
code_pattern: "^[a-z][a-z0-9_.]*$"
# playbooks/registry.yaml
  - { code: RateLimited, class: transient, retryable: true }`,
  fix: "Rename the code to match code_pattern (the message suggests one, e.g. rate_limited), or change code_pattern if the convention really differs.",
};

/** The usual fix: lower case, words joined by underscores, dots kept as namespace separators. */
function suggestion(code: string): string {
  return code
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9_.]+/g, "_")
    .replace(/_+/g, "_")
    .replace(/(^|\.)_+|_+($|\.)/g, "$1$2");
}
