import { globMatches } from "failbook-runtime/engine/match.js";
import { closest } from "../../util/text.js";
import type { StormRule, StormRuleContext } from "./rule.js";

export const toolUnknown: StormRule = {
  id: "storm-tool-unknown",
  severity: "warning",
  description: "A storm calls a tool that no registry rule, playbook entry or fixture names (a typo runs it under the defaults).",
  example: `# storms/brownout.yaml
clients:
  calls: [{ tool: payment.charge }]   # the playbook and registry say payments.charge`,
  fix: "Name a tool the registry, the playbook's tools: or a fixture uses, or declare it under the playbook's tools:.",
  check(ctx) {
    const known = knownTools(ctx);
    // A project that names no tool anywhere treats every tool alike: there is nothing to check against.
    if (known.length === 0) return;
    for (const [i, call] of ctx.storm.value.clients.calls.entries()) {
      if (known.some((glob) => globMatches(glob, call.tool))) continue;
      const near = closest(call.tool, known);
      ctx.report({
        message: `tool '${call.tool}' is named by no registry rule, playbook entry or fixture, so the storm runs it under the playbook's defaults${near ? `; did you mean '${near}'?` : ""}`,
        path: ["clients", "calls", i, "tool"],
      });
    }
  },
};

/** Every tool name or glob the project's own files mention. */
function knownTools({ registry, playbook, project }: StormRuleContext): string[] {
  const out = new Set<string>();
  const add = (tool: string | string[] | undefined) => {
    for (const t of typeof tool === "string" ? [tool] : (tool ?? [])) out.add(t);
  };
  for (const verdict of registry.verdicts) for (const rule of verdict.match ?? []) add(rule.tool);
  for (const glob of Object.keys(playbook.tools ?? {})) out.add(glob);
  for (const action of Object.values(playbook.verdicts)) if (action.action === "fallback") add(action.tool);
  for (const { value: fixture } of project.fixtures) {
    add(fixture.call?.tool);
    for (const step of fixture.steps ?? []) add(step.call.tool);
    for (const wave of fixture.waves ?? []) for (const step of wave.calls) add(step.call.tool);
  }
  return [...out].sort();
}
