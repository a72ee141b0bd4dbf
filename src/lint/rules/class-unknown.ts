import type { LintRule } from "../rule.js";
import { didYouMean } from "./support.js";

export const classUnknown: LintRule = {
  id: "class-unknown",
  severity: "error",
  description: "A verdict (or the playbook's throttle) naming a class that is not declared.",
  check({ registry, playbook, report }) {
    const classes = Object.keys(registry.value.classes);
    const fix = (name: string) => `declare it under classes: in ${registry.doc.file}, or use one of: ${classes.join(", ")}${didYouMean(name, classes)}`;
    for (const [i, v] of registry.value.verdicts.entries()) {
      if (Object.hasOwn(registry.value.classes, v.class)) continue;
      report({ message: `class '${v.class}' of verdict '${v.code}' is not declared; ${fix(v.class)}`, doc: registry.doc, path: ["verdicts", i, "class"] });
    }
    const throttle = playbook.value.throttle;
    if (throttle && !Object.hasOwn(registry.value.classes, throttle.class)) {
      report({ message: `throttle class '${throttle.class}' is not declared in the registry; ${fix(throttle.class)}`, doc: playbook.doc, path: ["throttle", "class"] });
    }
  },
  example: `# playbooks/registry.yaml
classes: { transient: { description: may pass }, permanent: { description: will not } }
verdicts:
  - { code: quota_hit, class: transiant, retryable: true }`,
  fix: "Use one of the classes the registry declares under classes:, or declare the new class there (with an adr, since classes are a closed set).",
};
