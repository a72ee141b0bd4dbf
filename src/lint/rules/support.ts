/** Small lookups the rules share: verdicts by code, and the "did you mean" tail of a message. */
import { replaceFix, type FindingFix } from "failbook-runtime/model/finding.js";
import type { CompensationAction } from "failbook-runtime/model/playbook.js";
import type { Registry, Verdict } from "failbook-runtime/model/registry.js";
import { closest } from "../../util/text.js";
import type { RuleContext } from "../rule.js";

// Every rule asks for these; on 10,000 codes building them once per lint run matters.
const indexes = new WeakMap<Registry, ReadonlyMap<string, number>>();
const entries = new WeakMap<Registry, WeakMap<object, readonly PlaybookEntry[]>>();

/** Each code's first verdict, by index: the one classification and generated code use. */
export function verdictIndex(registry: Registry): ReadonlyMap<string, number> {
  let out = indexes.get(registry);
  if (!out) {
    const index = new Map<string, number>();
    const verdicts = registry.verdicts;
    for (let i = 0; i < verdicts.length; i++) if (!index.has(verdicts[i].code)) index.set(verdicts[i].code, i);
    indexes.set(registry, (out = index));
  }
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
export function playbookEntries({ registry, playbook }: Pick<RuleContext, "registry" | "playbook">): readonly PlaybookEntry[] {
  const byPlaybook = entries.get(registry.value) ?? new WeakMap<object, readonly PlaybookEntry[]>();
  entries.set(registry.value, byPlaybook);
  const cached = byPlaybook.get(playbook.value);
  if (cached) return cached;
  const out: PlaybookEntry[] = [];
  // Each code once, at its first verdict, in the registry's order (verdictIndex's), walked by index.
  const first = verdictIndex(registry.value);
  const verdicts = registry.value.verdicts;
  for (let index = 0; index < verdicts.length; index++) {
    const verdict = verdicts[index];
    const code = verdict.code;
    if (first.get(code) !== index || !Object.hasOwn(playbook.value.verdicts, code)) continue;
    out.push({ verdict, index, code, action: playbook.value.verdicts[code] });
  }
  byPlaybook.set(playbook.value, out);
  return out;
}

export interface Suggestion {
  /** ` (did you mean 'x'?)` when a candidate is close, else nothing: the tail of a message. */
  hint: string;
  /** The fix that writes the candidate in place of the word (an editor's quick fix). */
  fix?: FindingFix;
}

/** The closest candidate to a mistyped word, as a message's tail and as a fix. */
export function didYouMean(word: string, candidates: readonly string[]): Suggestion {
  const guess = closest(word, candidates);
  return guess === undefined ? { hint: "" } : { hint: ` (did you mean '${guess}'?)`, fix: replaceFix(guess) };
}
