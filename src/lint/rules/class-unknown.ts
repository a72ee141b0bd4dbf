import type { LintRule } from "../rule.js";
import { didYouMean } from "./support.js";

export const classUnknown: LintRule = {
  id: "class-unknown",
  severity: "error",
  verdictFields: ["class"],
  description: "A verdict (or the playbook's throttle) naming a class that is not declared.",
  check({ registry, playbook, report }) {
    const classes = Object.keys(registry.value.classes);
    const advice = (hint: string) => `declare it under classes: in ${registry.doc.file}, or use one of: ${classes.join(", ")}${hint}`;
    const verdicts = registry.value.verdicts;
    for (let i = 0; i < verdicts.length; i++) {
      const v = verdicts[i];
      if (Object.hasOwn(registry.value.classes, v.class)) continue;
      const { hint, fix } = didYouMean(v.class, classes);
      report({ message: `class '${v.class}' of verdict '${v.code}' is not declared; ${advice(hint)}`, doc: registry.doc, path: ["verdicts", i, "class"], fix });
    }
    const throttle = playbook.value.throttle;
    if (throttle && !Object.hasOwn(registry.value.classes, throttle.class)) {
      const { hint, fix } = didYouMean(throttle.class, classes);
      report({ message: `throttle class '${throttle.class}' is not declared in the registry; ${advice(hint)}`, doc: playbook.doc, path: ["throttle", "class"], fix });
    }
  },
  example: `# playbooks/registry.yaml
classes: { transient: { description: may pass }, permanent: { description: will not } }
verdicts:
  - { code: quota_hit, class: transiant, retryable: true }`,
  fix: "Use one of the classes the registry declares under classes:, or declare the new class there (with an adr, since classes are a closed set).",
};
