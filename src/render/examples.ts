/**
 * A verdict's examples as every format shows them (SPEC 13): the adapter error in one line,
 * and how the one classifier decides it, so a reader sees which errors the code is for and
 * which rule recognises each.
 */
import { classifyExample } from "failbook-runtime/engine/classify.js";
import type { AdapterError } from "failbook-runtime/model/fixture.js";
import type { Registry, Verdict, VerdictExample } from "failbook-runtime/model/registry.js";

export interface ExampleView {
  /** The example as written: an adapter error, plus `tool` when it names one. */
  error: VerdictExample;
  /** The verdict it classifies to today (the code itself, unless lint reports example-misclassified). */
  verdict: string;
  /** The winning rule's number (1-based) among that verdict's match rules; null when the fallback applied. */
  rule: number | null;
}

export function exampleViews(verdict: Verdict, registry: Registry): ExampleView[] {
  return (verdict.examples ?? []).map((example) => {
    const got = classifyExample(registry, example);
    return { error: example, verdict: got.verdict, rule: got.rule === undefined ? null : got.rule.index + 1 };
  });
}

/** `kind 429, http_status 429, headers { retry-after: 2 }, tool payments.refund` */
export function exampleText(error: VerdictExample | AdapterError): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(error)) {
    if (value === undefined) continue;
    if (key === "cause") parts.push(`cause (${exampleText(value as AdapterError)})`);
    else if (value !== null && typeof value === "object") parts.push(`${key} { ${Object.entries(value).map(([k, v]) => `${k}: ${String(v)}`).join(", ")} }`);
    else parts.push(`${key} ${typeof value === "string" && key === "message" ? JSON.stringify(value) : String(value)}`);
  }
  return parts.join(", ");
}

/** How the example classifies, said from the point of view of the code it is listed under. */
export function exampleVerdictText(view: ExampleView, code: string): string {
  const how = view.rule === null ? "by the fallback (no rule holds)" : `by match rule #${view.rule}${view.verdict === code ? "" : ` of ${view.verdict}`}`;
  return view.verdict === code ? `classifies here ${how}` : `MISCLASSIFIED: classifies as ${view.verdict} ${how} (lint: example-misclassified)`;
}
