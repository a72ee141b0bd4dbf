import { statusOf, type Registry } from "failbook-runtime/model/registry.js";
import type { ChangeRule } from "../rule.js";
import { verdictIndex } from "../compare.js";

export const kindRemoved: ChangeRule = {
  id: "change/kind-removed",
  severity: "warning",
  description: "An adapter error kind no longer recognised by any rule.",
  check({ baseline, current, report }) {
    const now = recognisedKinds(current.registry.value);
    const verdicts = verdictIndex(current);
    for (const [kind, where] of recognisedKinds(baseline.registry.value)) {
      if (now.has(kind)) continue;
      const code = baseline.registry.value.verdicts[where.verdict].code;
      const kept = verdicts.get(code);
      report({
        message: `adapter error kind '${kind}' is no longer recognised by any match rule ('${code}' matched it in ${baseline.label}); an adapter that still reports it now gets the fallback '${current.registry.value.fallback}'. Keep a rule for it, or make sure no adapter reports it any more`,
        doc: current.registry.doc,
        path: kept === undefined ? ["verdicts"] : ["verdicts", kept, "match"],
        target: kept === undefined ? "key" : "value",
        related: [{ message: `matched in ${baseline.label}`, position: baseline.registry.doc.locate(["verdicts", where.verdict, "match", where.rule, "kind"]) }],
      });
    }
  },
  example: `# baseline: match: [{ kind: ECONNRESET }]; now no rule names kind ECONNRESET
  - code: network_unreachable
    match: [{ kind: ENOTFOUND }]`,
  fix: "Keep a rule for the kind, or make sure no adapter reports it any more: such errors now get the fallback.",
};

/** Every `kind` a rule of a non-reserved verdict names (reserved verdicts never match), first place first. */
function recognisedKinds(registry: Registry): Map<string, { verdict: number; rule: number }> {
  const out = new Map<string, { verdict: number; rule: number }>();
  for (const [verdict, v] of registry.verdicts.entries()) {
    if (statusOf(v) === "reserved") continue;
    for (const [rule, m] of (v.match ?? []).entries()) {
      const kinds = m.kind === undefined ? [] : Array.isArray(m.kind) ? m.kind : [m.kind];
      for (const kind of kinds) if (!out.has(kind)) out.set(kind, { verdict, rule });
    }
  }
  return out;
}
