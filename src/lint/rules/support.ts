/** Small lookups the rules share: verdicts by code, and the "did you mean" tail of a message. */
import type { CompensationAction } from "../../model/playbook.js";
import type { Registry, Verdict } from "../../model/registry.js";
import { closest } from "../../util/text.js";
import type { RuleContext } from "../rule.js";

/** Each code's first verdict, by index: the one classification and generated code use. */
export function verdictIndex(registry: Registry): Map<string, number> {
  const out = new Map<string, number>();
  for (const [i, v] of registry.verdicts.entries()) if (!out.has(v.code)) out.set(v.code, i);
  return out;
}

export interface PlaybookEntry {
  verdict: Verdict;
  /** The verdict's index in the registry's list. */
  index: number;
  code: string;
  action: CompensationAction;
}

/** Every registry verdict (first of its code) that has a playbook action, in registry order. */
export function playbookEntries({ registry, playbook }: Pick<RuleContext, "registry" | "playbook">): PlaybookEntry[] {
  const out: PlaybookEntry[] = [];
  for (const [code, index] of verdictIndex(registry.value)) {
    if (!Object.hasOwn(playbook.value.verdicts, code)) continue;
    out.push({ verdict: registry.value.verdicts[index], index, code, action: playbook.value.verdicts[code] });
  }
  return out;
}

/** ` (did you mean 'x'?)` when a candidate is close, else nothing: the tail of a message. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const guess = closest(word, candidates);
  return guess === undefined ? "" : ` (did you mean '${guess}'?)`;
}
