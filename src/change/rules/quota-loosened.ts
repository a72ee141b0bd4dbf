import type { RetryQuota } from "failbook-runtime/model/playbook.js";
import { DEFAULT_REFUND, DEFAULT_RETRY_COST } from "failbook-runtime/engine/quota.js";
import type { ChangeRule } from "../rule.js";

export const quotaLoosened: ChangeRule = {
  id: "change/quota-loosened",
  severity: "warning",
  description: "The retry quota removed or made looser: more retries reach an upstream that is already failing.",
  check({ baseline, current, report }) {
    const before = baseline.playbook.value.retry_quota;
    if (before === undefined) return;
    const after = current.playbook.value.retry_quota;
    const related = [{ message: `retry_quota in ${baseline.label}`, position: baseline.playbook.doc.locate(["retry_quota"], "key") }];
    if (after === undefined) {
      report({
        message: `the retry quota is gone (capacity ${before.capacity} in ${baseline.label}): during an outage every call now retries up to its own limit, and nothing stops a retry storm. Keep a retry_quota, or say why none is needed in an adr`,
        doc: current.playbook.doc,
        path: [],
        target: "key",
        related,
      });
      return;
    }
    for (const [path, was, now] of loosenings(before, after)) {
      report({
        message: `the retry quota is looser: ${path.join(".")} ${was} → ${now} lets more retries through while an upstream fails. If the upstream can take them, say why in an adr; otherwise keep ${was}`,
        doc: current.playbook.doc,
        path: ["retry_quota", ...path],
        related,
      });
    }
  },
  example: `# baseline: retry_quota: { capacity: 50 }; now:
retry_quota: { capacity: 500 }`,
  fix: "Keep the quota as it was, or say in an adr why the upstream can take more retries while it fails.",
};

/** What lets more retries through: more capacity, cheaper retries, bigger refunds. */
function loosenings(before: RetryQuota, after: RetryQuota): [string[], string, string][] {
  const out: [string[], string, string][] = [];
  if (after.capacity > before.capacity) out.push([["capacity"], String(before.capacity), String(after.capacity)]);
  const cost = (q: RetryQuota) => q.cost ?? DEFAULT_RETRY_COST;
  if (cost(after) < cost(before)) out.push([["cost"], String(cost(before)), String(cost(after))]);
  for (const key of ["cost_by_class", "cost_by_kind"] as const) {
    const b = before[key] ?? {};
    const a = after[key] ?? {};
    for (const name of Object.keys(b)) {
      const now = Object.hasOwn(a, name) ? a[name] : cost(after);
      if (now < b[name]) out.push([Object.hasOwn(a, name) ? [key, name] : [key], String(b[name]), `${now}${Object.hasOwn(a, name) ? "" : ` (${name} now costs the default)`}`]);
    }
    for (const name of Object.keys(a)) if (!Object.hasOwn(b, name) && a[name] < cost(before)) out.push([[key, name], `${cost(before)} (the default)`, String(a[name])]);
  }
  const refund = (q: RetryQuota) => q.refund ?? DEFAULT_REFUND;
  if (refund(after) > refund(before)) out.push([["refund"], String(refund(before)), String(refund(after))]);
  const order = { none: 0, last: 1, all: 2 } as const;
  const recovery = (q: RetryQuota) => q.refund_on_recovery ?? "last";
  if (order[recovery(after)] > order[recovery(before)]) out.push([["refund_on_recovery"], recovery(before), recovery(after)]);
  return out;
}
