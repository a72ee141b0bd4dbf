/**
 * Classification against a registry (SPEC 2.1): the registry's rules, in file order, go
 * through the one classifier (./classifier.ts); the first that holds wins, nothing holding
 * gives the `fallback`. The compiled index is kept per registry, so a registry is compiled
 * once however many errors it classifies.
 */
import type { AdapterError } from "../model/fixture.js";
import { setOwn } from "../model/json.js";
import { hintPolicyOf, type HintPlaybook } from "../model/playbook.js";
import { statusOf, type MatchRule, type Registry, type Verdict, type VerdictExample } from "../model/registry.js";
import { classifyIndex, compileClassifier, type Bucket, type ClassifierIndex, type ClassifierRule, type CompiledRule, type HintSource, type RuleConditions } from "./classifier.js";
import { hintSourceOf } from "./retry-after.js";

export interface Classification {
  verdict: string;
  /** Where the winning rule stands; absent when the fallback applied. */
  rule?: RulePlace;
  fallback: boolean;
}

/** A match rule's place in the registry: `verdicts[verdict].match[index]`. */
export interface RulePlace {
  verdict: number;
  index: number;
}

/** A registry compiled for classification. */
export interface CompiledRegistry {
  readonly index: ClassifierIndex;
  /** The place of each rule of the index, by its position. */
  readonly places: readonly RulePlace[];
}

/** A registry's compiled classifier, and what it was compiled from; `sealed` when the registry holds no rules to compile again (see `withoutMatchRules`). */
type Compiled = CompiledRegistry & { verdicts: Verdict[]; count: number; playbook: HintPlaybook | undefined; readsHints: boolean; sealed?: true };

const compiledRegistries = new WeakMap<Registry, Compiled>();

/**
 * The registry's compiled classifier. A registry is read as immutable once classified;
 * replacing or growing its verdict list recompiles. The playbook matters only to rules that
 * test `retry_after: present` (it says which headers and fields they read: hintPolicyOf);
 * without one they read the default policy.
 */
export function compiledRegistry(registry: Registry, playbook?: HintPlaybook): CompiledRegistry {
  const known = compiledRegistries.get(registry);
  if (known && known.verdicts === registry.verdicts && known.count === registry.verdicts.length && (!known.readsHints || known.playbook === playbook)) return known;
  if (known?.sealed) throw new Error("a registry without its match rules classifies only with the playbook it was compiled for");
  const { rules, places } = classifierRules(registry, true, playbook);
  const readsHints = rules.some(readsHint);
  const compiled = { index: compileClassifier(rules), places, verdicts: registry.verdicts, count: registry.verdicts.length, playbook, readsHints };
  compiledRegistries.set(registry, compiled);
  return compiled;
}

/**
 * `to` classifies as `from` does, but for the codes its rules give: the caller knows that
 * every verdict's status and match are the same in both, in the same order (failbook lsp
 * after an edit elsewhere in the registry, or one that renamed a verdict). `to` takes
 * `from`'s compiled classifier, when it has one, instead of compiling again, its rules
 * giving `to`'s codes. A renamed verdict whose rules read the playbook's hints (looked up by
 * code) compiles again, as does a rule that reads them under another playbook.
 */
export function carryCompiled(from: Registry, to: Registry): void {
  const known = compiledRegistries.get(from);
  if (from === to || known === undefined || known.sealed || known.verdicts !== from.verdicts || known.count !== from.verdicts.length || to.verdicts.length !== known.count) return;
  const rules = known.index.rules;
  let relabeled: CompiledRule[] | undefined;
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i] as CompiledRule;
    const code = (to.verdicts[(known.places[i] as RulePlace).verdict] as Verdict).code;
    if (rule.verdict === code) continue;
    if (known.readsHints) return;
    relabeled ??= rules.slice();
    // Made as compileClassifier and compiledRegistry make theirs (the same properties in the
    // same order), not spread: a copy of another shape sends the optimised code that reads
    // them back to the interpreter at the first rename.
    relabeled[i] = { position: rule.position, verdict: code, test: rule.test, candidateTest: rule.candidateTest };
  }
  const index = relabeled ? { ...known.index, rules: relabeled } : known.index;
  compiledRegistries.set(to, { index, places: known.places, verdicts: to.verdicts, count: known.count, playbook: known.playbook, readsHints: known.readsHints });
}

/**
 * The registry less its match rules, classifying as `registry` does under `playbook`, for a
 * thread that only dispatches (a replay worker): once compiled, the rules are held by the
 * classifier in a form of its own, and the registry's copy is dead weight (3 MB at 10,000
 * codes). It classifies under this playbook only: there are no rules left to compile again.
 */
export function withoutMatchRules(registry: Registry, playbook: HintPlaybook): Registry {
  const compiled = compiledRegistry(registry, playbook) as Compiled;
  const slim: Registry = { ...registry, verdicts: registry.verdicts.map(({ match: _match, ...verdict }) => verdict) };
  compiledRegistries.set(slim, { ...compiled, verdicts: slim.verdicts, sealed: true });
  return slim;
}

const readsHint = (c: RuleConditions): boolean => c.retry_after !== undefined || (c.cause !== undefined && readsHint(c.cause)) || (c.not !== undefined && readsHint(c.not));

/**
 * The registry's rules in classify order, as the classifier takes them (reserved verdicts
 * never match). With `ownStrings`, for an index that will classify, each string is a copy of
 * its own (see `flat`); a generator, which only writes the rules out, needs none.
 */
export function classifierRules(registry: Registry, ownStrings = false, playbook?: HintPlaybook): { rules: ClassifierRule[]; places: RulePlace[] } {
  const rules: ClassifierRule[] = [];
  const places: RulePlace[] = [];
  const verdicts = registry.verdicts;
  for (let vi = 0; vi < verdicts.length; vi++) {
    const v = verdicts[vi] as Verdict;
    const match = v.match;
    if (match === undefined || match.length === 0 || statusOf(v) === "reserved") continue;
    let hints: HintSource | undefined;
    const hintsOf = () => (hints ??= hintSourceOf(hintPolicyOf(playbook, v.code)));
    for (let ri = 0; ri < match.length; ri++) {
      rules.push(conditionsOf(match[ri] as MatchRule, ownStrings, hintsOf, { verdict: v.code }));
      places.push({ verdict: vi, index: ri });
    }
  }
  return { rules, places };
}

const same = <T>(v: T): T => v;

function listOf<T>(v: T | T[] | undefined, copy: (v: T) => T): T[] | undefined {
  return v === undefined ? undefined : Array.isArray(v) ? v.map(copy) : [copy(v)];
}

/**
 * A string of its own. A YAML parser's strings are slices of the file's text; V8 compares a
 * slice with an adapter's string the slow way at every lookup, and the index keeps these
 * strings for as long as it lives. (Short strings are copies already.)
 */
function flat<T>(v: T): T {
  return typeof v === "string" && v.length >= 13 ? (JSON.parse(JSON.stringify(v)) as T) : v;
}

/**
 * A YAML match rule (scalars or lists) as the classifier's conditions (lists throughout).
 * `hints` gives the policy a `retry_after: present` reads (default: the default policy).
 */
export function toConditions(rule: MatchRule, ownStrings = false, hints: () => HintSource = defaultHints): RuleConditions {
  return conditionsOf(rule, ownStrings, hints, {});
}

/** `toConditions`, written into `into` (a classifier rule's own object, its verdict already set: no copy is made to add it). */
function conditionsOf<T extends object>(rule: MatchRule, ownStrings: boolean, hints: () => HintSource, into: T): T & RuleConditions {
  const copy: <V>(v: V) => V = ownStrings ? flat : same;
  const out = into as T & { -readonly [K in keyof RuleConditions]: RuleConditions[K] };
  if (rule.kind !== undefined) out.kind = listOf(rule.kind, copy);
  if (rule.http_status !== undefined) out.http_status = listOf(rule.http_status, copy);
  if (rule.provider_code !== undefined) out.provider_code = listOf(rule.provider_code, copy);
  if (rule.message_contains !== undefined) out.message_contains = listOf(rule.message_contains, copy);
  if (rule.message_matches !== undefined) out.message_matches = listOf(rule.message_matches, copy);
  if (rule.tool !== undefined) out.tool = listOf(rule.tool, copy);
  if (rule.side_effect_state !== undefined) out.side_effect_state = listOf(rule.side_effect_state, copy);
  if (rule.headers !== undefined) out.headers = mapValues(rule.headers, (v) => listOf(v, copy) as string[]);
  if (rule.fields !== undefined) out.fields = mapValues(rule.fields, (v) => listOf(v, copy) as (string | number | boolean)[]);
  if (rule.cause !== undefined) out.cause = toConditions(rule.cause, ownStrings, hints);
  if (rule.not !== undefined) out.not = toConditions(rule.not, ownStrings, hints);
  if (rule.retry_after === "present") out.retry_after = hints();
  return out;
}

const defaultHints = (): HintSource => hintSourceOf({});

function mapValues<A, B>(record: Record<string, A>, f: (a: A) => B): Record<string, B> {
  const out: Record<string, B> = {};
  for (const [k, v] of Object.entries(record)) setOwn(out, k, f(v));
  return out;
}

/** A classifier bucket's rule positions as a list (the index keeps a lone rule as its number). */
export function bucketRules(bucket: Bucket): readonly number[] {
  return typeof bucket === "number" ? [bucket] : bucket;
}

/** Classify one failed attempt. A failure with no error object classifies as the fallback. */
export function classify(registry: Registry, error: AdapterError | undefined, tool?: string, playbook?: HintPlaybook): Classification {
  if (error) {
    const compiled = compiledRegistry(registry, playbook);
    const rule = classifyIndex(compiled.index, error, tool);
    if (rule !== null) return { verdict: rule.verdict, rule: compiled.places[rule.position], fallback: false };
  }
  return { verdict: registry.fallback, fallback: true };
}

/** Classify a verdict's example (SPEC 13): its `tool` is the call's, the rest the adapter error. */
export function classifyExample(registry: Registry, example: VerdictExample, playbook?: HintPlaybook): Classification {
  const { tool, ...error } = example;
  return classify(registry, error, tool, playbook);
}

const verdictMaps = new WeakMap<Verdict[], { byCode: Map<string, Verdict>; count: number }>();

/** The verdict with this code (the first, should a registry repeat one); builds no classifier index. */
export function verdictByCode(registry: Registry, code: string): Verdict | undefined {
  let known = verdictMaps.get(registry.verdicts);
  if (known === undefined || known.count !== registry.verdicts.length) {
    const byCode = new Map<string, Verdict>();
    for (const v of registry.verdicts) if (!byCode.has(v.code)) byCode.set(v.code, v);
    known = { byCode, count: registry.verdicts.length };
    verdictMaps.set(registry.verdicts, known);
  }
  return known.byCode.get(code);
}
