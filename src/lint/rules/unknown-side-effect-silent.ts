import { isRetryAction } from "failbook-runtime/model/playbook.js";
import { sideEffectOf } from "failbook-runtime/model/registry.js";
import type { LintRule } from "../rule.js";
import { playbookEntries } from "./support.js";

export const unknownSideEffectSilent: LintRule = {
  id: "unknown-side-effect-silent",
  severity: "warning",
  verdictFields: ["code", "side_effect"],
  description: "A retried verdict whose side effect is unknown, with no on_unknown_side_effect queue: a non-idempotent call ends failed quietly.",
  check(ctx) {
    if (ctx.playbook.value.on_unknown_side_effect !== undefined) return;
    const entries = playbookEntries(ctx);
    for (let e = 0; e < entries.length; e++) {
      const { verdict, index, code, action } = entries[e];
      if (sideEffectOf(verdict) !== "unknown" || !isRetryAction(action)) continue;
      ctx.report({
        message: `'${code}' is retried, but its side effect is unknown: when the call is not idempotent the retry is refused and the dispatch ends failed, with nobody told that the upstream may have acted; set on_unknown_side_effect: { queue: NAME } in the playbook so a person looks, or declare the verdict's side_effect`,
        doc: ctx.playbook.doc,
        path: ["verdicts", code, "action"],
        fix: {
          title: "Set on_unknown_side_effect in the playbook",
          add: { file: ctx.playbook.doc.file, path: "", key: "on_unknown_side_effect", value: { queue: ctx.playbook.value.escalation_queue ?? "oncall" } },
        },
        related: [{ message: verdict.side_effect === undefined ? "side_effect defaults to unknown for this verdict" : "declared side_effect: unknown here", position: ctx.registry.doc.locate(["verdicts", index, verdict.side_effect === undefined ? "code" : "side_effect"]) }],
      });
    }
  },
  example: `# playbooks/registry.yaml
  - { code: transient_timeout, class: transient, retryable: true, side_effect: unknown }
# playbooks/playbook.yaml (no on_unknown_side_effect)
  transient_timeout: { action: retry_with_backoff, max_retries: 2 }`,
  fix: "Set on_unknown_side_effect: { queue: NAME } in the playbook so that a person looks when a retry is refused, or declare the verdict's side_effect.",
};
