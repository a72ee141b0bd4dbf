import type { RateLimitPolicy } from "failbook-runtime/model/playbook.js";
import type { ChangeRule } from "../rule.js";

/**
 * SPEC 22: a rate limit removed or made looser sends more requests to the upstream than it
 * publishes it takes: the 429s it was there to prevent come back.
 */
export const rateLimitLoosened: ChangeRule = {
  id: "change/rate-limit-loosened",
  severity: "warning",
  description: "A rate limit removed or made looser: a higher rate, a bigger burst, fewer tools paced, or the upstream's headers or the adaptive mode no longer read.",
  example: `# playbooks/playbook.yaml, before
rate_limits: { github: { tools: "github.*", limit: { requests: 5000, per_ms: 3600000 }, from_headers: github } }
# after
rate_limits: { github: { tools: "github.*", limit: { requests: 10000, per_ms: 3600000 } } }`,
  fix: "Keep the limit as tight as the upstream publishes, or record why the upstream now takes more (an ADR, its new published limit).",
  check({ baseline, current, report }) {
    const before = baseline.playbook.value.rate_limits ?? {};
    const after = current.playbook.value.rate_limits ?? {};
    for (const name of Object.keys(before)) {
      const related = [{ message: `rate limit '${name}' in ${baseline.label}`, position: baseline.playbook.doc.locate(["rate_limits", name], "key") }];
      if (!Object.hasOwn(after, name)) {
        report({
          message: `rate limit '${name}' is gone (it paced ${shown(before[name]!.tools)} in ${baseline.label}): every attempt to those tools now goes out as fast as the callers make them, until the upstream answers 429. Keep the limit, or say why none is needed in an adr`,
          doc: current.playbook.doc,
          path: Object.keys(after).length > 0 ? ["rate_limits"] : [],
          target: "key",
          related,
        });
        continue;
      }
      for (const [key, was, now, why] of loosenings(before[name]!, after[name]!)) {
        report({
          message: `rate limit '${name}' is looser: ${key} ${was} → ${now} ${why}. If the upstream takes it, say why in an adr; otherwise keep ${was}`,
          doc: current.playbook.doc,
          path: Object.hasOwn(after[name]!, key) ? ["rate_limits", name, key] : ["rate_limits", name],
          ...(Object.hasOwn(after[name]!, key) ? {} : { target: "key" as const }),
          related,
        });
      }
    }
  },
};

const shown = (tools: string | string[]): string => (typeof tools === "string" ? `'${tools}'` : tools.map((t) => `'${t}'`).join(", "));
const globs = (tools: string | string[]): string[] => (typeof tools === "string" ? [tools] : tools);
const rateText = (p: RateLimitPolicy): string => (p.limit === undefined ? "(none)" : `${p.limit.requests} per ${p.limit.per_ms}ms`);
const rateOf = (p: RateLimitPolicy): number => (p.limit === undefined ? Number.POSITIVE_INFINITY : p.limit.requests / p.limit.per_ms);
const burstOf = (p: RateLimitPolicy): number => p.burst ?? p.limit?.requests ?? Number.POSITIVE_INFINITY;

/** What lets more requests through, with the values before and after and why it matters. */
function loosenings(b: RateLimitPolicy, a: RateLimitPolicy): [string, string, string, string][] {
  const out: [string, string, string, string][] = [];
  if (globs(b.tools).some((g) => !globs(a.tools).includes(g))) out.push(["tools", shown(b.tools), shown(a.tools), "paces fewer tools"]);
  if (rateOf(a) > rateOf(b)) out.push(["limit", rateText(b), rateText(a), "lets more requests through each window"]);
  if (burstOf(a) > burstOf(b)) out.push(["burst", String(burstOf(b)), String(burstOf(a)), "lets a bigger burst through at once"]);
  if (b.from_headers !== undefined && a.from_headers === undefined) out.push(["from_headers", JSON.stringify(b.from_headers), "(none)", "no longer hears what the upstream says is left"]);
  if (b.adaptive !== undefined && a.adaptive === undefined) out.push(["adaptive", b.adaptive, "(none)", "no longer slows down when the upstream throttles"]);
  return out;
}
