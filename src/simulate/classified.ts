/**
 * Classification remembered by the object classified (an example, a fixture's recorded
 * error), for failbook lsp's checks after an edit. The rule that holds for an error depends on
 * the error, its tool and the compiled classifier's rules, not on the codes they give: after
 * a rename the classifier is relabeled, not compiled again (carryCompiled: the same buckets),
 * and the unchanged files' and verdicts' objects are the last check's, so each is classified
 * once and only the code its rule gives now is read again.
 */
import { classifyIndex, type StringBuckets } from "failbook-runtime/engine/classifier.js";
import { compiledRegistry, type Classification } from "failbook-runtime/engine/classify.js";
import type { AdapterError } from "failbook-runtime/model/fixture.js";
import type { HintPlaybook } from "failbook-runtime/model/playbook.js";
import type { Registry } from "failbook-runtime/model/registry.js";

const ruleOf = new WeakMap<object, { buckets: StringBuckets; tool: string | undefined; position: number }>();

/** `classify(registry, error, tool, playbook)`, the rule that holds remembered under `key` (an object that stands for the error and holds still). */
export function classifyKept(key: object, registry: Registry, error: AdapterError | undefined, tool: string | undefined, playbook?: HintPlaybook): Classification {
  if (!error) return { verdict: registry.fallback, fallback: true };
  const { index, places } = compiledRegistry(registry, playbook);
  const known = ruleOf.get(key);
  let position: number;
  if (known !== undefined && known.buckets === index.kind && known.tool === tool) position = known.position;
  else {
    position = classifyIndex(index, error, tool)?.position ?? -1;
    ruleOf.set(key, { buckets: index.kind, tool, position });
  }
  const rule = position < 0 ? undefined : index.rules[position];
  return rule === undefined ? { verdict: registry.fallback, fallback: true } : { verdict: rule.verdict, rule: places[position], fallback: false };
}
