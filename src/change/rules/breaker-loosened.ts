import { BREAKER_DEFAULTS } from "failbook-runtime/engine/policies/circuit.js";
import type { CircuitBreakerPolicy } from "failbook-runtime/model/playbook.js";
import type { ChangeRule } from "../rule.js";

export const breakerLoosened: ChangeRule = {
  id: "change/breaker-loosened",
  severity: "warning",
  description: "A circuit breaker removed or made looser: it opens later, or lets traffic through sooner, to an upstream that is already failing.",
  example: `# playbooks/playbook.yaml, before
circuit_breakers: { payments: { tools: "payments.*", failure_ratio: 0.5, minimum_throughput: 20, sampling_ms: 30000, break_ms: 5000 } }
# after
circuit_breakers: { payments: { tools: "payments.*", failure_ratio: 0.9, minimum_throughput: 200, sampling_ms: 30000, break_ms: 1000 } }`,
  fix: "Keep the breaker as tight as before, or record why it may open later (an ADR); a looser breaker sends more attempts to an upstream that is already failing.",
  check({ baseline, current, report }) {
    const before = baseline.playbook.value.circuit_breakers ?? {};
    const after = current.playbook.value.circuit_breakers ?? {};
    for (const name of Object.keys(before)) {
      const related = [{ message: `breaker '${name}' in ${baseline.label}`, position: baseline.playbook.doc.locate(["circuit_breakers", name], "key") }];
      if (!Object.hasOwn(after, name)) {
        report({
          message: `breaker '${name}' is gone (it guarded ${shown(before[name].tools)} in ${baseline.label}): during an outage every attempt to those tools now reaches the upstream. Keep the breaker, or say why none is needed in an adr`,
          doc: current.playbook.doc,
          path: Object.keys(after).length > 0 ? ["circuit_breakers"] : [],
          target: "key",
          related,
        });
        continue;
      }
      for (const [key, was, now] of loosenings(before[name], after[name])) {
        report({
          message: `breaker '${name}' is looser: ${key} ${was} → ${now} ${WHY[key]}. If the upstream can take it, say why in an adr; otherwise keep ${was}`,
          doc: current.playbook.doc,
          path: Object.hasOwn(after[name], key) ? ["circuit_breakers", name, key] : ["circuit_breakers", name],
          ...(Object.hasOwn(after[name], key) ? {} : { target: "key" as const }),
          related,
        });
      }
    }
  },
};

type Key = "tools" | "failure_ratio" | "minimum_throughput" | "sampling_ms" | "sampling_attempts" | "break_ms" | "max_break_ms" | "counts";

const WHY: Record<Key, string> = {
  tools: "guards fewer tools",
  failure_ratio: "needs more failures to open",
  minimum_throughput: "needs more attempts to open",
  sampling_ms: "counts fewer attempts, so it opens later",
  sampling_attempts: "counts fewer attempts, so it opens later",
  break_ms: "sends traffic to a failing upstream sooner",
  max_break_ms: "sends traffic to a failing upstream sooner after each reopening",
  counts: "counts fewer failures",
};

const shown = (tools: string | string[]): string => (typeof tools === "string" ? `'${tools}'` : tools.map((t) => `'${t}'`).join(", "));
const globs = (tools: string | string[]): string[] => (typeof tools === "string" ? [tools] : tools);

/** What makes a breaker open later or close sooner, with the values before and after. */
function loosenings(b: CircuitBreakerPolicy, a: CircuitBreakerPolicy): [Key, string, string][] {
  const out: [Key, string, string][] = [];
  const dropped = globs(b.tools).filter((g) => !globs(a.tools).includes(g));
  if (dropped.length > 0) out.push(["tools", shown(b.tools), shown(a.tools)]);
  const more = (key: "failure_ratio" | "minimum_throughput", fallback: number) => {
    const was = b[key] ?? fallback;
    const now = a[key] ?? fallback;
    if (now > was) out.push([key, String(was), String(now)]);
  };
  const less = (key: "sampling_ms" | "break_ms", fallback: number) => {
    const was = b[key] ?? fallback;
    const now = a[key] ?? fallback;
    if (now < was) out.push([key, String(was), String(now)]);
  };
  more("failure_ratio", BREAKER_DEFAULTS.failure_ratio);
  more("minimum_throughput", BREAKER_DEFAULTS.minimum_throughput);
  less("sampling_ms", BREAKER_DEFAULTS.sampling_ms);
  const bound = (p: CircuitBreakerPolicy) => p.sampling_attempts ?? Number.POSITIVE_INFINITY;
  if (bound(a) < bound(b)) out.push(["sampling_attempts", b.sampling_attempts === undefined ? "(none)" : String(b.sampling_attempts), String(a.sampling_attempts)]);
  less("break_ms", BREAKER_DEFAULTS.break_ms);
  const longest = (p: CircuitBreakerPolicy) => p.max_break_ms ?? p.break_ms ?? BREAKER_DEFAULTS.break_ms;
  if (b.max_break_ms !== undefined && longest(a) < longest(b)) out.push(["max_break_ms", String(b.max_break_ms), a.max_break_ms === undefined ? "(none)" : String(a.max_break_ms)]);
  if (b.counts !== undefined && a.counts !== undefined && b.counts.some((c) => !a.counts!.includes(c))) out.push(["counts", `[${b.counts.join(", ")}]`, `[${a.counts.join(", ")}]`]);
  return out;
}
