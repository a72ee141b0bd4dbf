import type { ChangeRule } from "../rule.js";

export const classAddedWithoutAdr: ChangeRule = {
  id: "change/class-added-without-adr",
  severity: "error",
  description: "A new class without `adr`.",
  check({ baseline, current, report }) {
    for (const [name, cls] of Object.entries(current.registry.value.classes)) {
      if (Object.hasOwn(baseline.registry.value.classes, name) || cls?.adr) continue;
      report({
        message: `new class '${name}' has no adr; the set of routing classes is closed: add adr: naming the decision record that explains why the existing classes do not cover it`,
        doc: current.registry.doc,
        path: ["classes", name],
        target: "key",
      });
    }
  },
  example: `# now, not in the baseline: playbooks/registry.yaml
classes:
  throttled: { description: slowed down by the upstream }   # no adr:`,
  fix: "Add adr: to the class, naming the decision record that explains why the existing classes do not cover it.",
};
