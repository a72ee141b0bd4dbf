import type { LintRule } from "../rule.js";
import { FLEET_DEFAULTS } from "failbook-runtime/engine/fleet/sync.js";

/**
 * SPEC 23: a fleet policy whose own window is short beside `sync_ms` decides mostly on stale
 * totals. The retry budget has no window; what it sees is the lease: a lease shorter than
 * twice the sync makes one late sync count the store down.
 */
export const fleetSyncTooSlow: LintRule = {
  id: "fleet-sync-too-slow",
  severity: "warning",
  verdictFields: [],
  description: "A fleet: block whose lease_ms is under twice its sync_ms: one late sync counts the store down.",
  example: `# playbooks/playbook.yaml
fleet: { sync_ms: 400, lease_ms: 500 }
retry_budget: { scope: fleet }`,
  fix: "Sync more often or lengthen the lease: lease_ms of at least 2 × sync_ms (the defaults are 250 and 1000).",
  check({ playbook, report }) {
    const fleet = playbook.value.fleet;
    if (fleet === undefined) return;
    const sync = fleet.sync_ms ?? FLEET_DEFAULTS.sync_ms;
    const lease = fleet.lease_ms ?? FLEET_DEFAULTS.lease_ms;
    // Above the lease is a schema error (load/project.ts); here, a lease that one late sync ends.
    if (sync > lease || lease >= 2 * sync) return;
    report({
      message: `fleet lease_ms ${lease} is under twice sync_ms ${sync}: one sync that answers late (its timeout is sync_ms) counts the store down; make lease_ms at least ${2 * sync} or sync more often`,
      doc: playbook.doc,
      path: ["fleet", fleet.lease_ms === undefined ? "sync_ms" : "lease_ms"],
    });
  },
};
