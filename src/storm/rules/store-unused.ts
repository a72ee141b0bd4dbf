import { fleetScoped } from "../../lint/rules/fleet-without-sync.js";
import type { StormRule } from "./rule.js";

/** SPEC 23: `shared: store` syncs only the playbook's `scope: fleet` policies; with none, the storm runs as `shared: client`. */
export const storeUnused: StormRule = {
  id: "storm-store-unused",
  severity: "warning",
  description: "A storm with shared: store whose playbook has no scope: fleet policy (nothing syncs through the store: it runs as shared: client).",
  example: `# storms/brownout.yaml
clients:
  shared: store          # and the playbook's retry_quota has no scope: fleet`,
  fix: "Set scope: fleet on the policies the fleet shares (retry_budget, retry_throttling, retry_quota, a rate limit) with a fleet: block, or use shared: client.",
  check(ctx) {
    if (ctx.storm.value.clients.shared !== "store" || fleetScoped(ctx.playbook).length > 0) return;
    ctx.report({
      message: "shared: store syncs the playbook's scope: fleet policies through the store, and the playbook has none: the storm runs as shared: client; set scope: fleet on the policies the fleet shares, or use shared: client",
      path: ["clients", "shared"],
    });
  },
};
