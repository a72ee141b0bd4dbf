import type { LintRule } from "../rule.js";

/** SPEC 23: a `scope: fleet` policy shares state through the `fleet:` block's store; without the block nothing says how. */
export const fleetWithoutSync: LintRule = {
  id: "fleet-without-sync",
  severity: "error",
  verdictFields: [],
  description: "A scope: fleet policy in a playbook with no fleet: block.",
  example: `# playbooks/playbook.yaml
retry_budget: { percent: 20, min_concurrency: 3, scope: fleet }`,
  fix: "Add a fleet: block (fleet: { sync_ms: 250, lease_ms: 1000 }) and pass createDispatcher a fleet store, or set scope: process.",
  check({ playbook, report }) {
    const book = playbook.value;
    if (book.fleet !== undefined) return;
    for (const [path, what] of fleetScoped(book)) {
      report({
        message: `${what} has scope: fleet but the playbook has no fleet: block to say how its processes sync; add fleet: { sync_ms: 250, lease_ms: 1000 } or set scope: process`,
        doc: playbook.doc,
        path,
      });
    }
  },
};

/** Where a playbook sets `scope: fleet`, and what on. */
type Scoped = { scope?: string } | undefined;
export function fleetScoped(book: { retry_budget?: Scoped; retry_throttling?: Scoped; retry_quota?: Scoped; rate_limits?: Record<string, Scoped> | undefined; circuit_breakers?: Record<string, Scoped> | undefined }): [(string | number)[], string][] {
  const out: [(string | number)[], string][] = [];
  for (const key of ["retry_budget", "retry_throttling", "retry_quota"] as const) {
    if (book[key]?.scope === "fleet") out.push([[key, "scope"], key]);
  }
  for (const [name, limit] of Object.entries(book.rate_limits ?? {})) {
    if (limit?.scope === "fleet") out.push([["rate_limits", name, "scope"], `rate limit ${name}`]);
  }
  for (const [name, breaker] of Object.entries(book.circuit_breakers ?? {})) {
    if (breaker?.scope === "fleet") out.push([["circuit_breakers", name, "scope"], `circuit breaker ${name}`]);
  }
  return out;
}
