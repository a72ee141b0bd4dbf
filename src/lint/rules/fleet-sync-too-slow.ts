import type { LintRule } from "../rule.js";
import { FLEET_DEFAULTS } from "failbook-runtime/engine/fleet/sync.js";
import { BREAKER_DEFAULTS } from "failbook-runtime/engine/policies/circuit.js";

/**
 * SPEC 23: a fleet policy whose own window is short beside `sync_ms` decides mostly on stale
 * totals: a fleet breaker whose `sampling_ms`, or a fleet rate limit whose `per_ms`, is under
 * `4 × sync_ms`. And a lease shorter than
 * twice the sync makes one late sync count the store down.
 */
export const fleetSyncTooSlow: LintRule = {
  id: "fleet-sync-too-slow",
  severity: "warning",
  verdictFields: [],
  description: "A fleet breaker whose sampling_ms or a fleet rate limit whose per_ms is under 4 × sync_ms, or a fleet: block whose lease_ms is under twice its sync_ms.",
  example: `# playbooks/playbook.yaml
fleet: { sync_ms: 400, lease_ms: 500 }
retry_budget: { scope: fleet }`,
  fix: "Sync more often, or lengthen the lease (lease_ms of at least 2 × sync_ms), the breaker's window (sampling_ms) or the rate limit's (per_ms) to at least 4 × sync_ms; the defaults are 250 and 1000.",
  check({ playbook, report }) {
    const fleet = playbook.value.fleet;
    if (fleet === undefined) return;
    const sync = fleet.sync_ms ?? FLEET_DEFAULTS.sync_ms;
    const lease = fleet.lease_ms ?? FLEET_DEFAULTS.lease_ms;
    for (const [name, limit] of Object.entries(playbook.value.rate_limits ?? {})) {
      if (limit.scope !== "fleet" || limit.limit === undefined || limit.limit.per_ms >= 4 * sync) continue;
      report({
        message: `rate limit ${name} has scope: fleet and per_ms ${limit.limit.per_ms}, under 4 × fleet sync_ms ${sync}: its leases would follow the window a quarter of it late; make per_ms at least ${4 * sync} (the same rate over a longer window) or sync more often`,
        doc: playbook.doc,
        path: ["rate_limits", name, "limit", "per_ms"],
      });
    }
    for (const [name, breaker] of Object.entries(playbook.value.circuit_breakers ?? {})) {
      const sampling = breaker.sampling_ms ?? BREAKER_DEFAULTS.sampling_ms;
      if (breaker.scope !== "fleet" || sampling >= 4 * sync) continue;
      report({
        message: `circuit breaker ${name} has scope: fleet and sampling_ms ${sampling}, under 4 × fleet sync_ms ${sync}: the fleet's summed window would be mostly other processes' counts a sync old; make sampling_ms at least ${4 * sync} or sync more often`,
        doc: playbook.doc,
        path: ["circuit_breakers", name, breaker.sampling_ms === undefined ? "scope" : "sampling_ms"],
      });
    }
    // Above the lease is a schema error (load/project.ts); here, a lease that one late sync ends.
    if (sync > lease || lease >= 2 * sync) return;
    report({
      message: `fleet lease_ms ${lease} is under twice sync_ms ${sync}: one sync that answers late (its timeout is sync_ms) counts the store down; make lease_ms at least ${2 * sync} or sync more often`,
      doc: playbook.doc,
      path: ["fleet", fleet.lease_ms === undefined ? "sync_ms" : "lease_ms"],
    });
  },
};
