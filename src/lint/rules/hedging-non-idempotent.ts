import type { LintRule } from "../rule.js";
import { toolGlobs } from "./tools-mentioned.js";

/**
 * SPEC 18: hedging sends the same call several times at once, so it is only for calls that
 * are safe to repeat. The runtime never hedges a call that is not idempotent: a hedging glob
 * that reaches a tool the playbook declares `idempotent: false` says one thing and does another.
 */
export const hedgingNonIdempotent: LintRule = {
  id: "hedging-non-idempotent",
  severity: "error",
  verdictFields: [],
  description: "A hedging tools glob that matches a tools: entry declared idempotent: false (the runtime never hedges those calls).",
  example: `# playbooks/playbook.yaml
hedging: { tools: "payments.*", max_attempts: 3, delay_ms: 200 }
tools:
  payments.charge: { idempotent: false }`,
  fix: "Narrow the hedging tools to calls that are safe to send twice (reads, searches, calls with an idempotency key), or make the tool idempotent and drop idempotent: false.",
  check({ playbook, report }) {
    const hedging = playbook.value.hedging;
    if (hedging === undefined) return;
    const globs = toolGlobs(hedging.tools);
    const tools = playbook.value.tools ?? {};
    for (const [i, glob] of globs.entries()) {
      for (const entry of Object.keys(tools)) {
        if (tools[entry].idempotent !== false || !globsOverlap(glob, entry)) continue;
        report({
          message: `hedging tools '${glob}' reach '${entry}', which the playbook's tools: declares idempotent: false: hedging sends a call several times at once, so the runtime never hedges those calls; narrow the glob to tools that are safe to repeat, or make '${entry}' idempotent`,
          doc: playbook.doc,
          path: typeof hedging.tools === "string" ? ["hedging", "tools"] : ["hedging", "tools", i],
          related: [{ message: `tools entry '${entry}' declares it idempotent: false here`, position: playbook.doc.locate(["tools", entry], "key") }],
        });
      }
    }
  },
};

/** Does some tool name match both globs (`*` any run of characters, `?` one)? */
export function globsOverlap(a: string, b: string): boolean {
  const seen = new Set<number>();
  const width = b.length + 1;
  const from = (i: number, j: number): boolean => {
    if (i === a.length && j === b.length) return true;
    const key = i * width + j;
    if (seen.has(key)) return false;
    seen.add(key);
    const starA = a[i] === "*";
    const starB = b[j] === "*";
    if (starA && from(i + 1, j)) return true;
    if (starB && from(i, j + 1)) return true;
    if (i === a.length || j === b.length || (starA && starB)) return false;
    // Both take one character: literals must agree; a star stays to take more.
    if (!starA && !starB && a[i] !== "?" && b[j] !== "?" && a[i] !== b[j]) return false;
    return from(starA ? i : i + 1, starB ? j : j + 1);
  };
  return from(0, 0);
}
