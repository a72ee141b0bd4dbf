/** What the change rules and the changelog share: matching verdicts across sides, and value comparison. */
import type { CompensationAction } from "failbook-runtime/model/playbook.js";
import type { Verdict } from "failbook-runtime/model/registry.js";
import { clip } from "../util/text.js";
import type { ChangeContext, Side } from "./rule.js";

/** A verdict present on both sides, with its index in each registry. */
export interface VerdictPair {
  code: string;
  before: Verdict;
  beforeIndex: number;
  after: Verdict;
  afterIndex: number;
}

/** The first verdict of each code, by code. */
export function verdictIndex(side: Side): Map<string, number> {
  const out = new Map<string, number>();
  for (const [i, v] of side.registry.value.verdicts.entries()) if (!out.has(v.code)) out.set(v.code, i);
  return out;
}

/** Verdicts kept from the baseline, in current file order. */
export function verdictPairs(baseline: Side, current: Side): VerdictPair[] {
  const before = verdictIndex(baseline);
  const out: VerdictPair[] = [];
  for (const [code, afterIndex] of verdictIndex(current)) {
    const beforeIndex = before.get(code);
    if (beforeIndex === undefined) continue;
    out.push({ code, before: baseline.registry.value.verdicts[beforeIndex], beforeIndex, after: current.registry.value.verdicts[afterIndex], afterIndex });
  }
  return out;
}

/** Report at a field of a kept verdict, with the same field in the baseline as the related position. */
export function reportAtField(ctx: ChangeContext, p: VerdictPair, field: keyof Verdict, message: string, was: string): void {
  ctx.report({
    message,
    doc: ctx.current.registry.doc,
    path: ["verdicts", p.afterIndex, field],
    related: [{ message: `${was} in ${ctx.baseline.label}`, position: ctx.baseline.registry.doc.locate(["verdicts", p.beforeIndex, field]) }],
  });
}

/** Structural equality of parsed YAML values; key order does not matter. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** A value as a reviewer reads it in one line: scalars plain, structures as compact JSON. */
export function showValue(v: unknown): string {
  if (v === undefined) return "(none)";
  if (typeof v === "string") return v;
  const text = JSON.stringify(v) ?? String(v);
  return clip(text, 79);
}

/** The keys whose values differ, as `key before → after`, in a stable order. */
export function fieldChanges(before: object, after: object, ignore: readonly string[] = []): string[] {
  const b = before as Record<string, unknown>;
  const a = after as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])].filter((k) => !ignore.includes(k));
  return keys.filter((k) => !sameValue(b[k], a[k])).map((k) => `${k} ${showValue(b[k])} → ${showValue(a[k])}`);
}

/** The registry without its revision: what revision-not-bumped compares. */
export function withoutRevision(side: Side): Record<string, unknown> {
  const { revision: _revision, ...rest } = side.registry.value;
  return rest;
}

/** `retry_with_backoff → escalate_to_human`, or the parameters that changed. */
export function describeChange(before: CompensationAction, after: CompensationAction): string {
  if (before.action !== after.action) return `${before.action} → ${after.action}`;
  return fieldChanges(before, after).join(", ");
}
