import type { PolicyScope } from "failbook-runtime/model/playbook.js";
import type { ChangeRule } from "../rule.js";

/**
 * SPEC 23: a policy turned back from `scope: fleet` to `process` is a loosening: each process
 * then spends the whole budget, token count or rate on its own, so the fleet sends its size
 * times what the upstream was promised.
 */
export const fleetScopeDropped: ChangeRule = {
  id: "change/fleet-scope-dropped",
  severity: "warning",
  description: "A policy turned back from scope: fleet to process: every process now spends the whole budget, tokens or rate on its own, or opens its breaker on its own counts.",
  example: `# playbooks/playbook.yaml, before
retry_budget: { percent: 20, min_concurrency: 3, scope: fleet }
# after
retry_budget: { percent: 20, min_concurrency: 3 }`,
  fix: "Keep scope: fleet, or record why each process may spend the whole of it (an ADR: a fleet of one, an upstream limit per process).",
  check({ baseline, current, report }) {
    const before = baseline.playbook.value;
    const after = current.playbook.value;
    type Scoped = [string[], PolicyScope | undefined, PolicyScope | undefined, boolean];
    const named = (key: "rate_limits" | "circuit_breakers") =>
      Object.keys(before[key] ?? {}).map((name): Scoped => [[key, name], before[key]![name]!.scope, after[key]?.[name]?.scope, after[key] !== undefined && Object.hasOwn(after[key], name)]);
    const scoped: Scoped[] = [
      [["retry_budget"], before.retry_budget?.scope, after.retry_budget?.scope, after.retry_budget !== undefined],
      [["retry_throttling"], before.retry_throttling?.scope, after.retry_throttling?.scope, after.retry_throttling !== undefined],
      [["retry_quota"], before.retry_quota?.scope, after.retry_quota?.scope, after.retry_quota !== undefined],
      ...named("rate_limits"),
      ...named("circuit_breakers"),
    ];
    for (const [path, was, now, kept] of scoped) {
      // A policy removed is its own rule's finding (budget-, quota-, rate-limit-loosened).
      if (was !== "fleet" || !kept || now === "fleet") continue;
      const what = path.join(".");
      report({
        message: `${what} is no longer scope: fleet (it was in ${baseline.label}): each process now spends the whole of it on its own, so the fleet sends up to its size times what the upstream was promised. Keep scope: fleet, or say why each process may in an adr`,
        doc: current.playbook.doc,
        path: now === undefined ? path : [...path, "scope"],
        ...(now === undefined ? { target: "key" as const } : {}),
        related: [{ message: `${what} in ${baseline.label}`, position: baseline.playbook.doc.locate([...path, "scope"], "value") }],
      });
    }
  },
};
