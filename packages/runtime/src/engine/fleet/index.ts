/**
 * Fleet state (SPEC 23): the `scope: fleet` policies of a dispatcher share their counts with
 * the service's other processes through a store. This room holds the sync loop and each
 * policy's side of it; the policies consult it only off the success path.
 */
import type { Playbook } from "../../model/playbook.js";
import type { Registry } from "../../model/registry.js";
import type { SharedPolicies } from "../policies/index.js";
import type { RetryQuotaBucket } from "../quota.js";
import { FleetBreakers } from "./breakers.js";
import { FleetBudget } from "./budget.js";
import { FleetRates, LeasedBucket } from "./rate.js";
import { FleetTokens } from "./tokens.js";
import type { FleetStore } from "./store.js";
import { FleetSync, type FleetEvent, type FleetPart, type FleetTimers } from "./sync.js";

export type { FleetStore, FleetReply, FleetReport, FleetTotals, FleetBreakerReport, FleetBreakerTotals } from "./store.js";
export { FLEET_DEFAULTS, type FleetEvent, type FleetMode, type FleetStatus, type FleetTimers } from "./sync.js";
export { answerSync, memoryFleetStore, MemoryFleetState, type MemoryFleetStoreOptions } from "./memory-store.js";

/** `createDispatcher`'s `fleet` option. */
export interface FleetOptions {
  /** The store the fleet shares: `redisFleetStore(client, { prefix })` from `failbook-runtime/redis`. */
  store: FleetStore;
  /** This process's name in the fleet, unique among its processes (default: the pid and random digits). */
  instance?: string | undefined;
  /** Timers the sync runs on (default real, unreferenced). */
  timers?: FleetTimers | undefined;
}

/** Starts the sync of a dispatcher's `scope: fleet` policies; undefined when the playbook has none. */
export function startFleet(registry: Registry, playbook: Playbook, policies: SharedPolicies, quota: RetryQuotaBucket | undefined, options: FleetOptions, now: () => number, emit: (event: FleetEvent) => void): FleetSync | undefined {
  const parts: FleetPart[] = [];
  let sync: FleetSync | undefined;
  const mode = () => sync!.mode;
  if (playbook.retry_budget?.scope === "fleet" && policies.budget !== undefined) {
    const budget = new FleetBudget(policies.budget, mode);
    policies.budget.fleet = budget;
    parts.push(budget);
  }
  if (playbook.retry_throttling?.scope === "fleet" && policies.throttle !== undefined) {
    const tokens = new FleetTokens("throttling", policies.throttle, mode);
    policies.throttle.fleet = tokens;
    parts.push(tokens);
  }
  if (playbook.retry_quota?.scope === "fleet" && quota !== undefined) {
    const tokens = new FleetTokens("quota", quota, mode);
    quota.fleet = tokens;
    parts.push(tokens);
  }
  const leases: LeasedBucket[] = [];
  for (const [name, policy] of Object.entries(playbook.rate_limits ?? {})) {
    if (policy.scope !== "fleet" || policy.limit === undefined || policies.rateLimits === undefined) continue;
    const limited = policy as typeof policy & { limit: NonNullable<typeof policy.limit> };
    const lease = policies.rateLimits.lease(name, (own) => new LeasedBucket(name, limited, own, mode));
    if (lease !== undefined) leases.push(lease);
  }
  if (leases.length > 0) parts.push(new FleetRates(leases));
  const breakers = new FleetBreakers(now, mode);
  if (policies.breakers?.linkFleet(breakers.link, registry.verdicts.some((v) => v.evidence === "process")) === true) parts.push(breakers);
  if (parts.length === 0) return undefined;
  sync = new FleetSync({ store: options.store, settings: playbook.fleet ?? {}, instance: options.instance ?? defaultInstance(), parts, now, emit, timers: options.timers });
  return sync;
}

function defaultInstance(): string {
  const pid = (globalThis as { process?: { pid?: number } }).process?.pid ?? 0;
  const digits = globalThis.crypto.getRandomValues(new Uint32Array(1))[0]!.toString(16).padStart(8, "0");
  return `${pid}-${digits}`;
}
