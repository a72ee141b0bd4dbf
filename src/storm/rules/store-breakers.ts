import type { StormRule } from "./rule.js";

/**
 * SPEC 23: the storm's store (the runtime's memory store) has no breakers section yet, so a
 * `scope: fleet` breaker's circuits get no fleet totals under `shared: store`: each decides on
 * its client's own counts. Drop this rule when the memory store sums breakers as the script does.
 */
export const storeBreakers: StormRule = {
  id: "storm-store-breakers",
  severity: "warning",
  description: "A storm with shared: store under a playbook with a scope: fleet breaker: the simulated store does not share breakers yet, so each client's circuit decides on its own counts.",
  example: `# storms/brownout.yaml
clients:
  shared: store          # and the playbook has circuit_breakers: { api: { scope: fleet, ... } }`,
  fix: "Read the storm's breakers as per client (shared: client), or compare with shared: fleet (one dispatcher, one breaker) for the fleet breaker's ideal.",
  check(ctx) {
    if (ctx.storm.value.clients.shared !== "store") return;
    const fleet = Object.entries(ctx.playbook.circuit_breakers ?? {}).filter(([, b]) => b.scope === "fleet").map(([name]) => name);
    if (fleet.length === 0) return;
    ctx.report({
      message: `breaker${fleet.length === 1 ? "" : "s"} ${fleet.join(", ")} ha${fleet.length === 1 ? "s" : "ve"} scope: fleet, and the storm's simulated store does not share breakers yet: under shared: store each client's circuit decides on its own counts; compare --against shared:fleet for one breaker for all`,
      path: ["clients", "shared"],
    });
  },
};
