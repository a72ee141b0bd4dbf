import { trigramKey, type Bucket, type ClassifierIndex, type CompiledConditions, type CompiledRule, type StringBuckets } from "failbook-runtime/engine/classifier.js";
import type { FieldValue } from "failbook-runtime/model/registry.js";
import { bucketRules, compiledRegistry, type RulePlace } from "failbook-runtime/engine/classify.js";
import { conditionsCover } from "failbook-runtime/engine/match.js";
import type { LintRule } from "../rule.js";

/**
 * Rules are tried in file order and the first that holds wins, so a rule is dead when one
 * earlier rule holds for every error it holds for. Exact, not a heuristic: coverage is
 * sound, so a finding is never a guess. Reserved verdicts never match and are skipped.
 *
 * A rule is compared only with the earlier rules that could cover it: those in the
 * classifier's buckets its own values select, and the residual rules. Anything bucketed
 * under a field constrains that field, so it can only cover a rule that constrains it to
 * values the bucket holds.
 */
export const matcherShadowed: LintRule = {
  id: "matcher-shadowed",
  severity: "error",
  verdictFields: ["code", "status", "match"],
  description: "A match rule that can never win because an earlier rule always matches first.",
  check({ registry, playbook, report }) {
    const { index, places } = compiledRegistry(registry.value, playbook.value);
    const verdicts = registry.value.verdicts;
    for (const [rule, winner] of shadowedRules(index)) {
      const here = describe(places[rule], verdicts[places[rule].verdict].code);
      const first = describe(places[winner], verdicts[places[winner].verdict].code);
      report({
        message: here.verdict === first.verdict ? redundant(here, first) : shadowed(here, first),
        doc: registry.doc,
        path: ["verdicts", here.verdict, "match", here.index],
        related: [{ message: `rule #${first.index + 1} of '${first.code}', which matches first, is here`, position: registry.doc.locate(["verdicts", first.verdict, "match", first.index]) }],
      });
    }
  },
  example: `# playbooks/registry.yaml
  - code: server_error
    match: [{ http_status: 5xx }]
  - code: gateway_timeout
    match: [{ http_status: 504 }]   # 5xx above always matches first`,
  fix: "Move the narrower rule's verdict before the broader one (rules are tried in file order), narrow the earlier rule, or remove the rule that can never win.",
};

/**
 * Each shadowed rule's position and the position of the first that covers it, by compiled
 * classifier: the analysis reads the rules' tests alone, so an index relabeled after a
 * rename (carryCompiled: the same buckets) has the same answer (failbook lsp, at every edit
 * of a code).
 */
const shadowedByIndex = new WeakMap<StringBuckets, [rule: number, winner: number][]>();

function shadowedRules(index: ClassifierIndex): [rule: number, winner: number][] {
  let known = shadowedByIndex.get(index.kind);
  if (known === undefined) {
    known = [];
    for (const rule of index.rules) {
      const winner = firstCovering(index, rule);
      if (winner !== undefined) known.push([rule.position, winner.position]);
    }
    shadowedByIndex.set(index.kind, known);
  }
  return known;
}

const describe = (place: RulePlace, code: string) => ({ ...place, code });
type Described = ReturnType<typeof describe>;

/** The earliest rule before `rule` that holds for every error `rule` holds for. */
export function firstCovering(index: ClassifierIndex, rule: CompiledRule): CompiledRule | undefined {
  const lists = candidateLists(index, rule.test);
  // A merge of the lists, each in rule order: every candidate once, earliest first.
  const heads = new Array<number>(lists.length).fill(0);
  for (;;) {
    let next = -1;
    for (let i = 0; i < lists.length; i++) {
      const list = lists[i] as readonly number[];
      const h = heads[i] as number;
      if (h < list.length) {
        const position = list[h] as number;
        if (position < rule.position && (next < 0 || position < next)) next = position;
      }
    }
    if (next < 0) return undefined;
    const earlier = index.rules[next] as CompiledRule;
    if (conditionsCover(earlier.test, rule.test)) return earlier;
    for (let i = 0; i < lists.length; i++) if ((lists[i] as readonly number[])[heads[i] as number] === next) (heads[i] as number)++;
  }
}

/**
 * The lists, each in rule order, that hold every rule that could cover `b`: for each field
 * `b` constrains, the bucket of one value `b` admits (a covering rule must admit it too).
 * When `b` admits no value of a field at all it never holds, and every rule bucketed
 * under that field is a candidate.
 */
function candidateLists(index: ClassifierIndex, b: CompiledConditions): (readonly number[])[] {
  const lists: (readonly number[])[] = [index.residual];
  exact(lists, index, b.kinds, index.kind, "kind");
  exact(lists, index, b.providerCodes, index.providerCode, "provider_code");
  exact(lists, index, b.states, index.state, "side_effect_state");
  if (b.exactStatuses !== null) {
    const witness = b.exactStatuses.length > 0 ? b.exactStatuses[0] : b.statusRanges.length > 0 ? b.statusRanges[0] : undefined;
    if (witness === undefined) all(lists, index, "status");
    else {
      add(lists, index.status.get(witness));
      add(lists, index.statusClass.get(Math.floor(witness / 100)));
    }
  }
  if (b.globs !== null) {
    const first = b.globs[0];
    if (first === undefined) all(lists, index, "tool");
    else if (!first.star && !(first.parts[0] as number[]).includes(-1)) add(lists, index.tool.get(first.source));
  }
  if (b.headers !== null) {
    for (const [name, values] of b.headers) {
      add(lists, index.headerAny.get(name));
      if (values === null) continue;
      if (values.length === 0) all(lists, index, `header ${name}`);
      else add(lists, index.header.get(name)?.get(values[0] as string));
    }
  }
  if (b.texts !== null) {
    // A text-bucketed rule covers b only if b's first text contains one of its texts, and so
    // that text's trigram.
    const first = b.texts[0];
    if (first === undefined) all(lists, index, "text");
    else {
      const seen = new Set<number>();
      for (let i = 0; i + 3 <= first.length; i++) {
        const list = index.text.get(trigramKey(first, i));
        if (list !== undefined && !seen.has(list)) {
          seen.add(list);
          add(lists, index.textLists[list]);
        }
      }
    }
  }
  if (b.fields !== null) {
    for (const [name, values] of b.fields) {
      if (values.length === 0) all(lists, index, `field ${name}`);
      else add(lists, index.field.get(name)?.get(values[0] as FieldValue));
    }
  }
  return lists;
}

/** A bucket's rules, when it holds any. */
function add(lists: (readonly number[])[], bucket: Bucket | undefined): void {
  if (bucket !== undefined && (typeof bucket === "number" || bucket.length > 0)) lists.push(bucketRules(bucket));
}

/** Every rule bucketed under `bucket`. */
function all(lists: (readonly number[])[], index: ClassifierIndex, bucket: string): void {
  add(lists, index.bucketed.get(bucket));
}

/** The bucket of one value the rule admits of a string field; every rule bucketed under the field when it admits none. */
function exact(lists: (readonly number[])[], index: ClassifierIndex, values: readonly string[] | null, buckets: StringBuckets, bucket: string): void {
  if (values === null) return;
  if (values.length === 0) all(lists, index, bucket);
  else add(lists, buckets.get(values[0] as string));
}

const redundant = (here: Described, winner: Described) =>
  `match rule #${here.index + 1} of '${here.code}' is redundant: rule #${winner.index + 1} of the same verdict matches every error it matches; remove it, or narrow the earlier rule`;

const shadowed = (here: Described, winner: Described) =>
  `match rule #${here.index + 1} of '${here.code}' can never win: rule #${winner.index + 1} of '${winner.code}', earlier in the file, matches every error it matches and rules are tried in order; move '${here.code}' above '${winner.code}', narrow that rule, or remove this one`;
