import { globMatches } from "failbook-runtime/engine/match.js";
import type { LintRule } from "../rule.js";

export const compensationNotIdempotent: LintRule = {
  id: "compensation-not-idempotent",
  severity: "error",
  verdictFields: [],
  description: "A saga compensation call declared idempotent: false.",
  check({ playbook, fixtures, report }) {
    const tools = Object.entries(playbook.value.tools ?? {}).filter(([, decl]) => decl.idempotent === false);
    for (const { value: fixture, doc } of fixtures) {
      for (const [i, step] of (fixture.steps ?? []).entries()) {
        const call = step.compensation?.call;
        if (!call) continue;
        const at = ["steps", i, "compensation", "call"];
        const why = "a compensation undoes a step and must be safe to repeat: the runtime never retries a non-idempotent call, so one failed attempt dead-letters the undo";
        if (call.idempotent === false) {
          report({
            message: `compensation call '${call.id}' of fixture '${fixture.name}' is declared idempotent: false; ${why}. Make the compensation idempotent (an idempotency key, or a reversal by id)`,
            doc,
            path: [...at, "idempotent"],
          });
          continue;
        }
        const glob = tools.find(([g]) => globMatches(g, call.tool))?.[0];
        if (glob === undefined) continue;
        report({
          message: `compensation call '${call.id}' of fixture '${fixture.name}' goes to ${call.tool}, which the playbook's tools: declares idempotent: false; ${why}. Compensate through an idempotent tool, or make this one idempotent`,
          doc,
          path: [...at, "tool"],
          related: [{ message: `tools entry '${glob}' declares it idempotent: false here`, position: playbook.doc.locate(["tools", glob], "key") }],
        });
      }
    }
  },
  example: `# playbooks/fixtures/refund-saga.yaml
steps:
  - call: { id: charge, tool: payments.charge }
    compensation:
      call: { id: refund, tool: payments.refund, idempotent: false }`,
  fix: "Make the compensation idempotent (an idempotency key, or a reversal by id) and drop idempotent: false, or compensate through a tool that is.",
};
