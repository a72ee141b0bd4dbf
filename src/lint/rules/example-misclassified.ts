import { statusOf } from "failbook-runtime/model/registry.js";
import { classifyKept } from "../../simulate/classified.js";
import { perVerdict } from "../rule.js";

export const exampleMisclassified = perVerdict({
  id: "example-misclassified",
  severity: "error",
  // Verdict by verdict, each example against the classifier: what it reads of the other verdicts.
  verdictFields: ["code", "status", "match"],
  description: "A verdict's example that classifies to another verdict: the documentation and the match rules disagree.",
  checkVerdict({ registry, playbook, report }, verdict, v) {
    const verdicts = registry.value.verdicts;
    const examples = verdict.examples ?? [];
    for (let e = 0; e < examples.length; e++) {
      const example = examples[e];
      // As classifyExample classifies it (its `tool` is the call's), remembered by example.
      const { tool, ...error } = example;
      const got = classifyKept(example, registry.value, error, tool, playbook.value);
      if (got.verdict === verdict.code) continue;
      const reserved = statusOf(verdict) === "reserved" ? " (a reserved verdict never matches; move the example to the verdict that will)" : "";
      if (got.rule === undefined) {
        report({
          message: `example ${e + 1} of '${verdict.code}' classifies as '${got.verdict}', the fallback: no match rule holds for it${reserved}; add a rule to '${verdict.code}' that recognises it, or fix the example`,
          doc: registry.doc,
          path: ["verdicts", v, "examples", e],
        });
        continue;
      }
      const winner = registry.doc.locate(["verdicts", got.rule.verdict, "match", got.rule.index]);
      const where = `${winner.file}:${winner.line}:${winner.column}`;
      report({
        message: `example ${e + 1} of '${verdict.code}' classifies as '${got.verdict}': match rule #${got.rule.index + 1} of '${verdicts[got.rule.verdict].code}' (${where}) wins${reserved}; narrow that rule, order the verdicts so that '${verdict.code}' is tried first, or fix the example`,
        doc: registry.doc,
        path: ["verdicts", v, "examples", e],
        related: [{ message: `the rule that wins, of '${verdicts[got.rule.verdict].code}'`, position: winner }],
      });
    }
  },
  example: `# playbooks/registry.yaml
  - code: server_error
    match: [{ http_status: 5xx }]
  - code: gateway_timeout
    examples: [{ kind: http_error, http_status: 504 }]   # classifies as server_error`,
  fix: "Narrow the rule that wins, order the verdicts so that the example's is tried first, add a rule that recognises the example, or fix the example.",
});

