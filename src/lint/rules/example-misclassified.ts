import { classifyIndex, type StringBuckets } from "failbook-runtime/engine/classifier.js";
import { compiledRegistry, type Classification } from "failbook-runtime/engine/classify.js";
import type { HintPlaybook } from "failbook-runtime/model/playbook.js";
import { statusOf, type Registry, type VerdictExample } from "failbook-runtime/model/registry.js";
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
      const got = classified(registry.value, example, playbook.value);
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

/**
 * Which rule an example classifies by (its position; -1: the fallback), by example and
 * compiled classifier: after a rename (failbook lsp), the unchanged verdicts' examples are
 * the same objects and the classifier is relabeled, not compiled again (the same buckets), so
 * the rule is the same and only the code it gives may differ.
 */
const ruleOfExample = new WeakMap<VerdictExample, { buckets: StringBuckets; position: number }>();

function classified(registry: Registry, example: VerdictExample, playbook: HintPlaybook): Classification {
  const { index, places } = compiledRegistry(registry, playbook);
  const known = ruleOfExample.get(example);
  let position: number;
  if (known !== undefined && known.buckets === index.kind) position = known.position;
  else {
    // As classifyExample classifies it: its `tool` is the call's, the rest the adapter error.
    const { tool, ...error } = example;
    position = classifyIndex(index, error, tool)?.position ?? -1;
    ruleOfExample.set(example, { buckets: index.kind, position });
  }
  const rule = position < 0 ? undefined : index.rules[position];
  return rule === undefined ? { verdict: registry.fallback, fallback: true } : { verdict: rule.verdict, rule: places[position], fallback: false };
}
