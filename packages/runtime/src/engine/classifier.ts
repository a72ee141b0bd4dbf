/**
 * The one classifier (SPEC 2.1, 11, 12): match rules compiled into an index, and the
 * first-match lookup over it. The engine, lint, explain, the behaviour diff and the
 * generated bindings all classify through this file.
 *
 * It has no imports and uses the ES2015 library only, because `failbook gen ts` embeds its
 * text verbatim in every generated module: there is no second copy to keep in step.
 *
 * The index buckets each rule under one of its exact-valued fields (kind, provider_code,
 * exact statuses and status classes, side_effect_state, literal tools, header values,
 * declared fields), chosen as the most selective; rules with no such field stay in an
 * ordered residual list. A lookup gathers the error's candidate lists (each in rule order)
 * and returns the earliest rule among them that holds, so its cost follows the candidates,
 * not the size of the registry.
 */

/** A declared error field's value (SPEC 12). */
export type FieldValue = string | number | boolean;

/** What a rule tests, every present field a list ("any of"); all present fields must hold. */
export interface RuleConditions {
  readonly kind?: readonly string[];
  /** Integers, classes such as "5xx", ranges such as "500-599", or "503". */
  readonly http_status?: readonly (number | string)[];
  readonly provider_code?: readonly string[];
  /** Case-insensitive substrings of the message. */
  readonly message_contains?: readonly string[];
  /** Regular expressions over the message; `/.../i` ignores case. */
  readonly message_matches?: readonly string[];
  /** Globs over the call's tool: `*` any run of characters, `?` one. */
  readonly tool?: readonly string[];
  readonly side_effect_state?: readonly string[];
  /** Header name (any case) -> accepted values; "*" accepts any value. */
  readonly headers?: { readonly [name: string]: readonly string[] };
  readonly fields?: { readonly [name: string]: readonly FieldValue[] };
  /** Holds when the error's cause, or its cause, and so on, satisfies it. */
  readonly cause?: RuleConditions;
  /** Holds when this inner rule does not (SPEC 18). */
  readonly not?: RuleConditions;
  /** `retry_after: present`: a header or field of this source yields a valid hint (SPEC 18). */
  readonly retry_after?: HintSource;
}

/** A match rule and the verdict it gives, in registry order. */
export interface ClassifierRule extends RuleConditions {
  readonly verdict: string;
}

/** An adapter error as it arrives (parsed JSON included): every field but kind optional. */
export interface ClassifierInput {
  readonly kind: string;
  readonly message?: string | null | undefined;
  readonly http_status?: number | null | undefined;
  readonly provider_code?: string | null | undefined;
  readonly side_effect_state?: string | null | undefined;
  readonly headers?: { readonly [name: string]: string } | null | undefined;
  /** Declared fields; a field present as undefined counts as absent. */
  readonly fields?: { readonly [name: string]: FieldValue | undefined } | null | undefined;
  readonly cause?: ClassifierInput | null | undefined;
}

/** Causes are followed this deep, no deeper (SPEC 12). */
export const CAUSE_DEPTH = 8;

export interface CompiledGlob {
  readonly source: string;
  /** The literal runs between `*`s, as UTF-16 code units; -1 stands for `?`. */
  readonly parts: readonly (readonly number[])[];
  readonly star: boolean;
}

export interface CompiledConditions {
  readonly kinds: readonly string[] | null;
  readonly exactStatuses: readonly number[] | null;
  /** Inclusive [lo, hi] pairs, flattened. */
  readonly statusRanges: readonly number[];
  readonly providerCodes: readonly string[] | null;
  readonly texts: readonly string[] | null;
  readonly patterns: readonly RegExp[] | null;
  readonly globs: readonly CompiledGlob[] | null;
  readonly states: readonly string[] | null;
  /** [lower-case name, values or null for "*"], in name order. */
  readonly headers: readonly (readonly [string, readonly string[] | null])[] | null;
  readonly fields: readonly (readonly [string, readonly FieldValue[]])[] | null;
  readonly cause: CompiledConditions | null;
  readonly not: CompiledConditions | null;
  readonly hint: HintSource | null;
}

export interface CompiledRule {
  /** The rule's place in registry order. */
  readonly position: number;
  /** The verdict it gives. */
  readonly verdict: string;
  readonly test: CompiledConditions;
  /**
   * What is left to test once the index has offered the rule: every candidate list the
   * rule stands in already holds its bucket's field (a kind, a provider code, a status, a
   * side-effect state, a literal tool), so that field is not tested again. When the index's
   * `quick` array tells what is left (nothing, or a status range), a lookup reads none of
   * it, and this is the rule's own `test`: no copy is kept (2 MB at 10,000 codes).
   */
  candidateTest: CompiledConditions;
}

/** The exact-valued fields a rule may be bucketed under. */
export type BucketField = "kind" | "provider_code" | "field" | "header" | "header_any" | "status" | "tool" | "side_effect_state" | "text" | "residual";

/**
 * The rules under one key: a lone rule as its position, two or more as their positions in
 * order. Most keys hold one rule (a provider code, a kind of its own), and a lookup that
 * hits one reads no list: at 10,000 codes each list read is a cache miss.
 */
export type Bucket = number | number[];

/**
 * Rules by a string value. A Map, not an object without a prototype: an adapter's error
 * brings fresh strings, and V8 finds a fresh string in a Map two to four times faster than
 * in a dictionary object, which must first look the string up among its interned strings.
 */
export type StringBuckets = Map<string, Bucket>;

/**
 * What is left to test of a candidate, by its position (QUICK_STRIDE numbers each): a code,
 * then for QUICK_STATUS two inclusive status ranges (an empty one as 1, 0). The common
 * candidates are told here, in one small array, without reading the rule's objects.
 */
const QUICK_STRIDE = 5;
/** Being offered is holding (a rule of one kind, say). */
const QUICK_HOLDS = 0;
/** Only the status is left to test, and it is one or two ranges. */
const QUICK_STATUS = 1;
/** The rule's candidateTest decides. */
const QUICK_TEST = 2;

export interface ClassifierIndex {
  readonly rules: readonly CompiledRule[];
  readonly kind: StringBuckets;
  readonly providerCode: StringBuckets;
  readonly status: Map<number, Bucket>;
  /** Keyed by the hundreds digit: "5xx" under 5. */
  readonly statusClass: Map<number, Bucket>;
  readonly state: StringBuckets;
  readonly tool: StringBuckets;
  /** Lower-case header name -> value -> rules. */
  readonly header: Map<string, Map<string, Bucket>>;
  /** Lower-case header name -> rules that accept any value ("*"). */
  readonly headerAny: Map<string, Bucket>;
  readonly field: Map<string, Map<FieldValue, Bucket>>;
  /** The entries of `field`, as a list: a lookup walks them with no iterator. */
  readonly fieldEntries: [name: string, byValue: Map<FieldValue, Bucket>][];
  /**
   * Rules told apart by message text alone, by a trigram of each text (lower-cased): a
   * message can only contain the text if it contains the trigram. Trigram key (see
   * `trigramKey`) -> list number. Keys may collide; a collision only adds candidates.
   */
  readonly text: Map<number, number>;
  readonly textLists: number[][];
  /** One byte per low 16 bits of a trigram key in `text`: a cheap "certainly not" before the map. */
  readonly textFilter: Uint8Array;
  /**
   * The kinds the rules bucketed by text admit, or null when one of them admits any kind.
   * Texts mostly narrow a kind ("invalid_request" whose message names the card): the
   * message of an error of another kind is not scanned, since none of those rules can hold.
   */
  textKinds: Set<string> | null;
  /** Rules with no exact-valued field, in order: candidates for every error. */
  readonly residual: number[];
  /** Each candidate's test, told without its objects where it can be (see QUICK_STRIDE). */
  readonly quick: Int32Array;
  /** Each rule's bucket: the field, and for headers and fields the name. */
  readonly bucketOf: readonly (readonly [BucketField, string])[];
  /** Every rule bucketed under a field (for headers and fields: `field name`), in order. */
  readonly bucketed: Map<string, number[]>;
}

// ---------------------------------------------------------------------------------------
// Compiling
// ---------------------------------------------------------------------------------------

/** Compile rules, given in registry order, into an index. */
export function compileClassifier(rules: readonly ClassifierRule[]): ClassifierIndex {
  const compiled: CompiledRule[] = [];
  for (let i = 0; i < rules.length; i++) {
    // The rule itself is not kept: its test holds what a lookup reads (at 10,000 codes, the
    // rules' own objects were 2 MB more in every thread that classifies).
    const source = rules[i] as ClassifierRule;
    const test = compileConditions(source, 0);
    compiled.push({ position: i, verdict: source.verdict, test, candidateTest: test });
  }
  const index: ClassifierIndex = {
    rules: compiled,
    kind: new Map(),
    providerCode: new Map(),
    status: new Map(),
    statusClass: new Map(),
    state: new Map(),
    tool: new Map(),
    header: new Map(),
    headerAny: new Map(),
    field: new Map(),
    fieldEntries: [],
    text: new Map(),
    textLists: [],
    textFilter: new Uint8Array(65536),
    textKinds: new Set(),
    residual: [],
    quick: new Int32Array(compiled.length * QUICK_STRIDE),
    bucketOf: [],
    bucketed: new Map(),
  };
  const anchorOf = textAnchors(compiled);
  const options = compiled.map((rule) => bucketOptions(rule.test, anchorOf));
  // How many rules could go under each key: a rule goes where its keys are rarest.
  const counts = new Map<string, Map<FieldValue, number>>();
  // Indexed loops here and below: the compile runs once, mostly before V8 has optimized it,
  // and unoptimized for...of makes an iterator and a result object a step (8 MB at 10,000 codes).
  for (let r = 0; r < options.length; r++) {
    const list = options[r] as BucketOption[];
    for (let o = 0; o < list.length; o++) {
      const option = list[o] as BucketOption;
      let inner = counts.get(option.bucket);
      if (inner === undefined) counts.set(option.bucket, (inner = new Map()));
      const values = option.values;
      for (let i = 0; i < values.length; i++) inner.set(values[i] as FieldValue, (inner.get(values[i] as FieldValue) || 0) + 1);
    }
  }
  const bucketOf = index.bucketOf as (readonly [BucketField, string])[];
  // One tuple per bucket, shared by its rules (they are read only).
  const tuples = new Map<string, readonly [BucketField, string]>();
  const tupleOf = (field: BucketField, name: string, bucket: string) => {
    let tuple = tuples.get(bucket);
    if (tuple === undefined) tuples.set(bucket, (tuple = [field, name]));
    return tuple;
  };
  for (let position = 0; position < compiled.length; position++) {
    let best: BucketOption | null = null;
    let bestCost = 0;
    const list = options[position] as BucketOption[];
    for (let o = 0; o < list.length; o++) {
      const option = list[o] as BucketOption;
      const inner = counts.get(option.bucket) as Map<FieldValue, number>;
      const values = option.values;
      let cost = 0;
      for (let i = 0; i < values.length; i++) cost = Math.max(cost, inner.get(values[i] as FieldValue) || 0);
      if (best === null || cost < bestCost) {
        best = option;
        bestCost = cost;
      }
    }
    const rule = compiled[position] as CompiledRule;
    if (best === null) {
      index.residual.push(position);
      bucketOf.push(tupleOf("residual", "", "residual"));
    } else {
      bucketOf.push(tupleOf(best.field, best.name, best.bucket));
      insertRule(index, best, position);
      if (best.field === "text") {
        const kinds = rule.test.kinds;
        if (kinds === null) index.textKinds = null;
        else if (index.textKinds !== null) for (let k = 0; k < kinds.length; k++) index.textKinds.add(kinds[k] as string);
      }
      const list = index.bucketed.get(best.bucket);
      if (list === undefined) index.bucketed.set(best.bucket, [position]);
      else list.push(position);
    }
    // What is left to test once the bucket has offered the rule; its conditions object is
    // made only when the quick array cannot tell it (most rules need none).
    const field = best === null ? null : best.field;
    if (quickTest(rule.test, field, index.quick, position * QUICK_STRIDE) === QUICK_TEST && field !== null) rule.candidateTest = withoutBucketField(rule.test, field);
  }
  return index;
}

/**
 * Write what is left to test of a candidate into `quick` at `at` (see QUICK_STRIDE): its
 * conditions less the one its bucket `without` guarantees (as `withoutBucketField` drops
 * it). Returns the code written.
 */
function quickTest(c: CompiledConditions, without: BucketField | null, quick: Int32Array, at: number): number {
  const kinds = without === "kind" ? null : c.kinds;
  const providerCodes = without === "provider_code" ? null : c.providerCodes;
  const states = without === "side_effect_state" ? null : c.states;
  const globs = without === "tool" ? null : c.globs;
  const statusOnly = kinds === null && providerCodes === null && c.texts === null && c.patterns === null && globs === null && states === null && c.headers === null && c.fields === null && c.cause === null && c.not === null && c.hint === null;
  if (!statusOnly) return (quick[at] = QUICK_TEST);
  const exact = without === "status" ? null : c.exactStatuses;
  if (exact === null) return (quick[at] = QUICK_HOLDS);
  const ranges = c.statusRanges;
  // Past two ranges, or past what the array holds exactly, the object test decides.
  if (exact.length * 2 + ranges.length > 4 || !exact.every(isInt32) || !ranges.every(isInt32)) return (quick[at] = QUICK_TEST);
  let k = at + 1;
  for (let i = 0; i < exact.length; i++) {
    quick[k++] = exact[i] as number;
    quick[k++] = exact[i] as number;
  }
  for (let i = 0; i < ranges.length; i++) quick[k++] = ranges[i] as number;
  // The ranges left are empty: 1 to 0 holds no status.
  while (k < at + QUICK_STRIDE) {
    quick[k++] = 1;
    quick[k++] = 0;
  }
  return (quick[at] = QUICK_STATUS);
}

const isInt32 = (s: number): boolean => s === (s | 0);

/**
 * One exact-valued field a rule could be bucketed under, with the values it admits. Statuses
 * are written as numbers, a class "5xx" as -6 (-1 - its digit); texts as trigram keys.
 */
interface BucketOption {
  readonly field: BucketField;
  readonly name: string;
  /** The field, and for headers and fields their name: where its values are counted. */
  readonly bucket: string;
  readonly values: readonly FieldValue[];
}

/** The conditions less the one a bucket of `field` already guarantees (none, for headers, fields and texts). */
function withoutBucketField(c: CompiledConditions, field: BucketField): CompiledConditions {
  switch (field) {
    case "kind":
      return conditions({ ...c, kinds: null });
    case "provider_code":
      return conditions({ ...c, providerCodes: null });
    case "side_effect_state":
      return conditions({ ...c, states: null });
    case "tool":
      return conditions({ ...c, globs: null });
    case "status":
      return conditions({ ...c, exactStatuses: null, statusRanges: NO_RANGES });
    default:
      return c;
  }
}

/**
 * Every CompiledConditions is made by this one object literal, so that all of them share
 * one hidden class. A spread makes a new one for each field it overrides, and a rule test
 * read at every candidate that meets five shapes is read the slow (megamorphic) way.
 */
function conditions(c: CompiledConditions): CompiledConditions {
  return {
    kinds: c.kinds,
    exactStatuses: c.exactStatuses,
    statusRanges: c.statusRanges,
    providerCodes: c.providerCodes,
    texts: c.texts,
    patterns: c.patterns,
    globs: c.globs,
    states: c.states,
    headers: c.headers,
    fields: c.fields,
    cause: c.cause,
    not: c.not,
    hint: c.hint,
  };
}

function insertRule(index: ClassifierIndex, option: BucketOption, p: number): void {
  const values = option.values;
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as FieldValue;
    switch (option.field) {
      case "kind":
        pushPosition(index.kind, v as string, p);
        break;
      case "provider_code":
        pushPosition(index.providerCode, v as string, p);
        break;
      case "side_effect_state":
        pushPosition(index.state, v as string, p);
        break;
      case "tool":
        pushPosition(index.tool, v as string, p);
        break;
      case "status":
        if ((v as number) >= 0) pushPosition(index.status, v as number, p);
        else pushPosition(index.statusClass, -1 - (v as number), p);
        break;
      case "field":
        if (!index.field.has(option.name)) index.fieldEntries.push([option.name, innerMap(index.field, option.name)]);
        pushPosition(innerMap(index.field, option.name), v, p);
        break;
      case "header":
        pushPosition(innerMap(index.header, option.name), v as string, p);
        break;
      case "header_any":
        pushPosition(index.headerAny, option.name, p);
        break;
      case "text": {
        let list = index.text.get(v as number);
        if (list === undefined) {
          list = index.textLists.length;
          index.text.set(v as number, list);
          index.textLists.push([]);
          index.textFilter[(v as number) & 0xffff] = 1;
        }
        appendPosition(index.textLists[list] as number[], p);
        break;
      }
      case "residual":
        break;
    }
  }
}

function appendPosition(list: number[], position: number): void {
  if (list[list.length - 1] !== position) list.push(position);
}

function pushPosition<K>(map: Map<K, Bucket>, key: K, position: number): void {
  const bucket = map.get(key);
  if (bucket === undefined) map.set(key, position);
  else if (typeof bucket !== "number") appendPosition(bucket, position);
  else if (bucket !== position) map.set(key, [bucket, position]);
}

function innerMap<K, V>(map: Map<string, Map<K, V>>, name: string): Map<K, V> {
  let inner = map.get(name);
  if (inner === undefined) {
    inner = new Map();
    map.set(name, inner);
  }
  return inner;
}

/** The key of the trigram at `i`: a small integer, so that no string is made per lookup. */
export function trigramKey(text: string, i: number): number {
  return ((text.charCodeAt(i) & 0x3ff) << 20) | ((text.charCodeAt(i + 1) & 0x3ff) << 10) | (text.charCodeAt(i + 2) & 0x3ff);
}

/** For each message text (lower-cased), its rarest trigram among all the rules' texts. */
function textAnchors(rules: readonly CompiledRule[]): (text: string) => number | null {
  const frequency = new Map<number, number>();
  for (let r = 0; r < rules.length; r++) {
    const texts = (rules[r] as CompiledRule).test.texts;
    if (texts === null) continue;
    for (let t = 0; t < texts.length; t++) {
      const text = texts[t] as string;
      for (let i = 0; i + 3 <= text.length; i++) {
        const g = trigramKey(text, i);
        frequency.set(g, (frequency.get(g) || 0) + 1);
      }
    }
  }
  return (text) => {
    let best: number | null = null;
    let bestCount = 0;
    for (let i = 0; i + 3 <= text.length; i++) {
      const g = trigramKey(text, i);
      const count = frequency.get(g) || 0;
      if (best === null || count < bestCount) {
        best = g;
        bestCount = count;
      }
    }
    return best;
  };
}

/** The exact-valued fields of a rule, in order of preference when equally selective. */
function bucketOptions(c: CompiledConditions, anchorOf: (text: string) => number | null): BucketOption[] {
  const out: BucketOption[] = [];
  if (c.kinds !== null) out.push({ field: "kind", name: "", bucket: "kind", values: c.kinds });
  if (c.providerCodes !== null) out.push({ field: "provider_code", name: "", bucket: "provider_code", values: c.providerCodes });
  if (c.fields !== null) {
    for (let f = 0; f < c.fields.length; f++) {
      const entry = c.fields[f] as readonly [string, readonly FieldValue[]];
      const name = entry[0];
      const values = entry[1];
      out.push({ field: "field", name, bucket: "field " + name, values });
    }
  }
  if (c.headers !== null) {
    for (let h = 0; h < c.headers.length; h++) {
      const entry = c.headers[h] as readonly [string, readonly string[] | null];
      const name = entry[0];
      const values = entry[1];
      if (values === null) out.push({ field: "header_any", name, bucket: "header_any " + name, values: [true] });
      else out.push({ field: "header", name, bucket: "header " + name, values });
    }
  }
  const statuses = indexableStatuses(c);
  if (statuses !== null) out.push({ field: "status", name: "", bucket: "status", values: statuses });
  if (c.globs !== null && c.globs.every((g) => !g.star && (g.parts[0] as readonly number[]).indexOf(-1) < 0)) {
    out.push({ field: "tool", name: "", bucket: "tool", values: c.globs.map((g) => g.source) });
  }
  if (c.states !== null) out.push({ field: "side_effect_state", name: "", bucket: "side_effect_state", values: c.states });
  if (c.texts !== null) {
    const anchors = c.texts.map(anchorOf);
    if (anchors.every((a) => a !== null)) out.push({ field: "text", name: "", bucket: "text", values: anchors as number[] });
  }
  return out;
}

/** The statuses a rule admits, as index keys (exact, or -1 - digit for a class); null when a wide range keeps them open. */
function indexableStatuses(c: CompiledConditions): number[] | null {
  // A negative status would read as a class key: such a rule is left unbucketed by status.
  if (c.exactStatuses === null || c.exactStatuses.some((s) => s < 0)) return null;
  const keys = c.exactStatuses.slice();
  const r = c.statusRanges;
  for (let i = 0; i < r.length; i += 2) {
    const lo = r[i] as number;
    const hi = r[i + 1] as number;
    if (lo % 100 === 0 && hi === lo + 99) keys.push(-1 - lo / 100);
    else if (hi - lo < 100) for (let s = lo; s <= hi; s++) keys.push(s);
    else return null;
  }
  return keys;
}

/** The status ranges of the many conditions that have none: one array, never written. */
const NO_RANGES: readonly number[] = [];

export function compileConditions(rule: RuleConditions, depth = 0): CompiledConditions {
  let exactStatuses: number[] | null = null;
  let statusRanges: number[] | null = null;
  if (rule.http_status !== undefined) {
    exactStatuses = [];
    const statuses = rule.http_status;
    for (let i = 0; i < statuses.length; i++) {
      const m = statuses[i] as number | string;
      // A number is one status (statusRange's first case, without its pair).
      if (typeof m === "number") {
        if (Number.isInteger(m)) exactStatuses.push(m);
        continue;
      }
      const range = statusRange(m);
      if (range === null) continue;
      if (range[0] === range[1]) exactStatuses.push(range[0]);
      else if (statusRanges === null) statusRanges = [range[0], range[1]];
      else statusRanges.push(range[0], range[1]);
    }
  }
  const headers = rule.headers === undefined ? null : compileHeaders(rule.headers);
  const fields: [string, readonly FieldValue[]][] | null = rule.fields === undefined ? null : [];
  if (rule.fields !== undefined && fields !== null) {
    const declared = rule.fields;
    for (const name of Object.keys(declared).sort()) fields.push([name, declared[name] || []]);
  }
  return conditions({
    kinds: rule.kind === undefined ? null : rule.kind,
    exactStatuses,
    statusRanges: statusRanges === null ? NO_RANGES : statusRanges,
    providerCodes: rule.provider_code === undefined ? null : rule.provider_code,
    texts: rule.message_contains === undefined ? null : rule.message_contains.map((t) => t.toLowerCase()),
    patterns: rule.message_matches === undefined ? null : rule.message_matches.map(compilePattern),
    globs: rule.tool === undefined ? null : rule.tool.map(compileGlob),
    states: rule.side_effect_state === undefined ? null : rule.side_effect_state,
    headers,
    fields,
    cause: rule.cause === undefined || depth >= CAUSE_DEPTH ? null : compileConditions(rule.cause, depth + 1),
    // The inner rule tests the same error: it is at the same cause depth.
    not: rule.not === undefined ? null : compileConditions(rule.not, depth),
    hint: rule.retry_after === undefined ? null : rule.retry_after,
  });
}

function compileHeaders(headers: { readonly [name: string]: readonly string[] }): [string, readonly string[] | null][] {
  const byName = new Map<string, string[] | null>();
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    const values = headers[name] || [];
    const any = values.indexOf("*") >= 0;
    const before = byName.get(lower);
    // Two spellings of one name are both tests of that header: both must hold.
    if (before === undefined) byName.set(lower, any ? null : values.slice());
    else if (before !== null) byName.set(lower, any ? before : before.filter((v) => values.indexOf(v) >= 0));
  }
  const out: [string, readonly string[] | null][] = [];
  byName.forEach((values, name) => out.push([name, values]));
  return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** The inclusive range a status matcher names, or null when it names none. */
export function statusRange(m: number | string): [number, number] | null {
  if (typeof m === "number") return Number.isInteger(m) ? [m, m] : null;
  if (typeof m !== "string") return null;
  let match = /^([1-9])xx$/.exec(m);
  if (match !== null) return [Number(match[1]) * 100, Number(match[1]) * 100 + 99];
  match = /^(\d{3})-(\d{3})$/.exec(m);
  if (match !== null) return Number(match[1]) <= Number(match[2]) ? [Number(match[1]), Number(match[2])] : null;
  return /^\d{3}$/.test(m) ? [Number(m), Number(m)] : null;
}

/** `/body/flags` is a regular expression with flags; anything else is the body alone. */
function compilePattern(source: string): RegExp {
  const literal = /^\/([\s\S]*)\/([a-z]*)$/.exec(source);
  try {
    return literal !== null ? new RegExp(literal[1] as string, (literal[2] as string).replace(/[gy]/g, "")) : new RegExp(source);
  } catch {
    // An invalid pattern is a lint finding; here it matches nothing.
    return /(?!)/;
  }
}

export function compileGlob(glob: string): CompiledGlob {
  const parts: number[][] = [[]];
  let star = false;
  for (let i = 0; i < glob.length; i++) {
    const code = glob.charCodeAt(i);
    if (code === 42 /* * */) {
      star = true;
      if ((parts[parts.length - 1] as number[]).length > 0 || parts.length === 1) parts.push([]);
    } else (parts[parts.length - 1] as number[]).push(code === 63 /* ? */ ? -1 : code);
  }
  return { source: glob, parts, star };
}

// ---------------------------------------------------------------------------------------
// Matching
// ---------------------------------------------------------------------------------------

/** Does a part of a glob stand at `at` in `text`? */
function partAt(part: readonly number[], text: string, at: number): boolean {
  for (let k = 0; k < part.length; k++) {
    const code = part[k] as number;
    if (code !== -1 && text.charCodeAt(at + k) !== code) return false;
  }
  return true;
}

/**
 * A glob against a tool name, in time linear in the text for a given glob: the first part
 * is anchored at the start, the last at the end, and each middle part is placed leftmost,
 * which is never worse than any other placement. Nothing backtracks.
 */
export function globHolds(glob: CompiledGlob, text: string): boolean {
  const parts = glob.parts;
  const first = parts[0] as readonly number[];
  if (!glob.star) return first.length === text.length && partAt(first, text, 0);
  const last = parts[parts.length - 1] as readonly number[];
  const end = text.length - last.length;
  if (end < first.length || !partAt(first, text, 0) || !partAt(last, text, end)) return false;
  let at = first.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const part = parts[i] as readonly number[];
    let found = -1;
    for (let p = at; p + part.length <= end; p++) {
      if (partAt(part, text, p)) {
        found = p;
        break;
      }
    }
    if (found < 0) return false;
    at = found + part.length;
  }
  return true;
}

function statusHolds(c: CompiledConditions, status: number): boolean {
  if ((c.exactStatuses as readonly number[]).indexOf(status) >= 0) return true;
  const r = c.statusRanges;
  for (let i = 0; i < r.length; i += 2) if (status >= (r[i] as number) && status <= (r[i + 1] as number)) return true;
  return false;
}

type FieldsInput = { readonly [name: string]: FieldValue | undefined };

/**
 * One error being classified, its fields read once into one fixed shape: adapter errors
 * arrive in many shapes, and reading a property of each of them at every candidate rule
 * is the slow kind of property access. Absent or mistyped fields are null.
 */
interface Probe {
  readonly kind: string | null;
  readonly message: string;
  readonly status: number | null;
  readonly providerCode: string | null;
  readonly state: string | null;
  readonly headers: { readonly [name: string]: string } | null;
  readonly fields: FieldsInput | null;
  readonly cause: ClassifierInput | null;
  readonly tool: string | null;
  lowerMessage: string | null;
  lowerHeaders: Map<string, string> | null;
}

/** An object field of the error, or null (a closure made per probe would be garbage per lookup). */
function objectOrNull<T>(v: T | null | undefined): T | null {
  return v !== null && v !== undefined && typeof v === "object" ? v : null;
}

function newProbe(e: ClassifierInput, tool: string | undefined): Probe {
  const status = e.http_status;
  return {
    kind: typeof e.kind === "string" ? e.kind : null,
    message: typeof e.message === "string" ? e.message : "",
    status: typeof status === "number" && Number.isInteger(status) ? status : null,
    providerCode: typeof e.provider_code === "string" ? e.provider_code : null,
    state: typeof e.side_effect_state === "string" ? e.side_effect_state : null,
    headers: objectOrNull(e.headers),
    fields: objectOrNull(e.fields),
    cause: objectOrNull(e.cause),
    tool: typeof tool === "string" ? tool : null,
    lowerMessage: null,
    lowerHeaders: null,
  };
}

function headersOf(p: Probe): Map<string, string> {
  if (p.lowerHeaders === null) {
    p.lowerHeaders = new Map();
    const h = p.headers;
    if (h !== null) {
      for (const name of Object.keys(h)) {
        const value = h[name];
        if (typeof value === "string") p.lowerHeaders.set(name.toLowerCase(), value);
      }
    }
  }
  return p.lowerHeaders;
}

function fieldOf(p: Probe, name: string): FieldValue | undefined {
  const f = p.fields;
  return f === null || !Object.prototype.hasOwnProperty.call(f, name) ? undefined : f[name];
}

/** Does every field of the rule hold for the error? */
function conditionsHold(c: CompiledConditions, p: Probe, depth: number): boolean {
  if (c.kinds !== null && (p.kind === null || c.kinds.indexOf(p.kind) < 0)) return false;
  if (c.exactStatuses !== null && (p.status === null || !statusHolds(c, p.status))) return false;
  if (c.providerCodes !== null && (p.providerCode === null || c.providerCodes.indexOf(p.providerCode) < 0)) return false;
  if (c.states !== null && (p.state === null || c.states.indexOf(p.state) < 0)) return false;
  // Plain loops, not some(): no closure is made per candidate rule.
  if (c.texts !== null) {
    if (p.lowerMessage === null) p.lowerMessage = p.message.toLowerCase();
    let found = false;
    for (let i = 0; !found && i < c.texts.length; i++) found = p.lowerMessage.indexOf(c.texts[i] as string) >= 0;
    if (!found) return false;
  }
  if (c.patterns !== null) {
    let found = false;
    for (let i = 0; !found && i < c.patterns.length; i++) found = (c.patterns[i] as RegExp).test(p.message);
    if (!found) return false;
  }
  if (c.globs !== null) {
    if (p.tool === null) return false;
    let found = false;
    for (let i = 0; !found && i < c.globs.length; i++) found = globHolds(c.globs[i] as CompiledGlob, p.tool);
    if (!found) return false;
  }
  if (c.headers !== null) {
    const headers = headersOf(p);
    for (const [name, values] of c.headers) {
      const value = headers.get(name);
      if (value === undefined || (values !== null && values.indexOf(value) < 0)) return false;
    }
  }
  if (c.fields !== null) {
    for (const [name, values] of c.fields) {
      const value = fieldOf(p, name);
      if (value === undefined || values.indexOf(value) < 0) return false;
    }
  }
  if (c.cause !== null) {
    const wanted = c.cause;
    let cause = p.cause;
    let found = false;
    for (let d = depth; !found && d < CAUSE_DEPTH && cause !== null; d++) {
      const inner = newProbe(cause, p.tool === null ? undefined : p.tool);
      found = conditionsHold(wanted, inner, d + 1);
      cause = inner.cause;
    }
    if (!found) return false;
  }
  if (c.hint !== null && !hintPresent(c.hint, p)) return false;
  if (c.not !== null && conditionsHold(c.not, p, depth)) return false;
  return true;
}

/** Does a header or field of the source yield a valid hint? An HTTP date does, whatever the time: classifying reads no clock. */
function hintPresent(source: HintSource, p: Probe): boolean {
  if (p.headers !== null) {
    const headers = headersOf(p);
    for (let i = 0; i < source.headers.length; i++) {
      const [name, ms, form] = source.headers[i] as readonly [string, boolean, HintForm];
      const value = headers.get(name);
      if (value === undefined) continue;
      const hint = hintValue(value, ms, source.parse, form);
      if (hint !== null && hint.kind !== "negative" && !(hint.kind === "delay" && hint.zero && source.zeroAbsent)) return true;
    }
  }
  for (let i = 0; i < source.fields.length; i++) {
    const value = fieldOf(p, source.fields[i] as string);
    if (value === undefined) continue;
    const hint = fieldHintValue(value);
    if (hint !== null && hint.kind === "delay" && !(hint.zero && source.zeroAbsent)) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------
// Server hints (SPEC 12, 18): what one header or field says about the delay. Here, not in
// engine/retry-after.ts (which reads through it), because a rule may test
// `retry_after: present` and the generated bindings carry this file alone.
// ---------------------------------------------------------------------------------------

/** How hint values parse: failbook's grammar, JavaScript's `Number`, or `parseFloat`'s numeric prefix. */
export type HintParse = "strict" | "number" | "float";

/**
 * How a listed header's value reads (SPEC 21): a delay (seconds, or milliseconds), a Unix
 * time in seconds or milliseconds (GitHub's `x-ratelimit-reset`), or a duration such as
 * `1m30.5s` (OpenAI's `x-ratelimit-reset-requests`).
 */
export type HintForm = "delay" | "epoch_seconds" | "epoch_ms" | "duration";

/** The retry_after policy a `retry_after: present` test reads, compiled. */
export interface HintSource {
  /** Lower-case header names in the policy's order, each with whether it is read as milliseconds and how it reads. */
  readonly headers: readonly (readonly [string, boolean, HintForm])[];
  /** Declared numeric error fields holding milliseconds. */
  readonly fields: readonly string[];
  readonly parse: HintParse;
  /** `zero: absent`: a 0 hint is none (the OpenAI SDK). */
  readonly zeroAbsent: boolean;
}

/**
 * One value as a hint: a delay in whole milliseconds (floored, at most MAX_HINT_MS; `zero`
 * when the value is exactly 0, not merely below 1 ms), an HTTP date (ms since the epoch),
 * a negative number, or null when it is neither a number nor a date.
 */
export type HintValue = { readonly kind: "delay"; readonly ms: number; readonly zero: boolean } | { readonly kind: "date"; readonly at: number } | { readonly kind: "negative" } | null;

/** Longest hint a value may give: 30 days, the schema's ceiling on any delay. */
export const MAX_HINT_MS = 2592000000;

const STRICT_NUMBER = /^\s*([-+]?(\d+(\.\d*)?|\.\d+))\s*$/;

/**
 * A header's value as a hint: a number of milliseconds when `ms`, else of seconds or an HTTP
 * date; a Unix time (a date) or a duration when its `form` says so.
 */
export function hintValue(value: string, ms: boolean, parse: HintParse, form: HintForm = "delay"): HintValue {
  if (value.length > 100) return null;
  if (form === "duration") return durationHint(value);
  if (form !== "delay") {
    // A Unix time: a date, whatever the time; a negative one or garbage is no hint.
    const match = STRICT_NUMBER.exec(value);
    const at = match === null ? NaN : Math.floor(Number(match[1]) * (form === "epoch_seconds" ? 1000 : 1));
    return isFinite(at) && at >= 0 ? { kind: "date", at } : null;
  }
  let numeral: string | null = null;
  if (parse === "strict") {
    const match = STRICT_NUMBER.exec(value);
    if (match !== null) numeral = match[1] as string;
  } else {
    const n = parse === "number" ? Number(value) : parseFloat(value);
    // Number("") is 0, as the SDK that reads this way finds; a non-finite value is no number.
    if (isFinite(n)) numeral = String(n);
  }
  if (numeral !== null) return decimalHint(numeral, ms ? 0 : 3);
  if (ms) return null;
  const at = parseHttpDate(value);
  return at === null ? null : { kind: "date", at };
}

const DURATION_PART = /(\d+(?:\.\d*)?|\.\d+)(h|ms|m|s|us|\u00b5s|ns)/g;
const DURATION = /^[-+]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:h|ms|m|s|us|\u00b5s|ns))+$/;
const DURATION_MS: { readonly [unit: string]: number } = { h: 3600000, m: 60000, s: 1000, ms: 1, us: 0.001, "\u00b5s": 0.001, ns: 0.000001 };

/** A duration as Go writes one (`1m30.5s`, `6m0s`, `20ms`), which OpenAI's reset headers use. */
function durationHint(value: string): HintValue {
  const text = value.trim();
  if (!DURATION.test(text)) return null;
  if (text.charAt(0) === "-") return { kind: "negative" };
  let total = 0;
  DURATION_PART.lastIndex = 0;
  for (let m = DURATION_PART.exec(text); m !== null; m = DURATION_PART.exec(text)) total += Number(m[1]) * (DURATION_MS[m[2] as string] as number);
  // To the microsecond first: 2.03 s is 2030 ms, where 2.03 * 1000 is 2029.9999999999998.
  return { kind: "delay", ms: Math.min(MAX_HINT_MS, Math.floor(Math.round(total * 1000) / 1000)), zero: total === 0 };
}

/** A declared field's value as a hint in milliseconds: a finite number, else null. */
export function fieldHintValue(value: FieldValue): HintValue {
  return typeof value === "number" && isFinite(value) ? decimalHint(String(value), 0) : null;
}

const DECIMAL = /^([-+]?)(\d*)(?:\.(\d*))?(?:e([-+]?\d+))?$/i;

/**
 * A decimal numeral times 10^shift, floored, computed on its digits: "2.03" seconds is
 * 2030 ms exactly, where 2.03 * 1000 in binary floating point is 2029.9999999999998.
 */
function decimalHint(numeral: string, shift: number): HintValue {
  const match = DECIMAL.exec(numeral);
  if (match === null) return null;
  const fraction = match[3] || "";
  const digits = ((match[2] as string) + fraction).replace(/^0+/, "");
  if (digits === "") return { kind: "delay", ms: 0, zero: true };
  if (match[1] === "-") return { kind: "negative" };
  // How many of the digits stand before the point once it has moved by the exponent and the shift.
  const whole = digits.length - fraction.length + shift + (match[4] === undefined ? 0 : Number(match[4]));
  if (whole > 16) return { kind: "delay", ms: MAX_HINT_MS, zero: false };
  const integer = whole <= 0 ? 0 : Number(digits.length >= whole ? digits.slice(0, whole) : digits + "0".repeat(whole - digits.length));
  return { kind: "delay", ms: Math.min(MAX_HINT_MS, integer), zero: false };
}

// RFC 9110 section 5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms. Read
// field by field, not by Date.parse, whose leniency is the engine's own (V8 takes 31 Feb).
const MONTHS = "JanFebMarAprMayJunJulAugSepOctNovDec";
const IMF_FIXDATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC_850 = /^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\d{2})-(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/** Milliseconds since the epoch of an HTTP date, or null (a date that does not exist, such as 31 Feb, included). */
export function parseHttpDate(value: string): number | null {
  const text = value.trim();
  let m = IMF_FIXDATE.exec(text);
  if (m !== null) return utcMs(Number(m[3]), m[2] as string, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  m = RFC_850.exec(text);
  // A two-digit year is 2000-2049 or 1950-1999, as JavaScript engines read it.
  if (m !== null) return utcMs(Number(m[3]) + (Number(m[3]) < 50 ? 2000 : 1900), m[2] as string, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  m = ASCTIME.exec(text);
  if (m !== null) return utcMs(Number(m[6]), m[1] as string, Number((m[2] as string).trim()), Number(m[3]), Number(m[4]), Number(m[5]));
  return null;
}

/** A UTC time as milliseconds since the epoch (days from the civil date, proleptic Gregorian), or null when out of range. */
function utcMs(year: number, monthName: string, day: number, hour: number, minute: number, second: number): number | null {
  const month = MONTHS.indexOf(monthName) / 3 + 1;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 ? (leap ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  if (day < 1 || day > days || hour > 23 || minute > 59 || second > 60) return null;
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * ((month + 9) % 12) + 2) / 5) + day - 1;
  const epochDays = era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468;
  return ((epochDays * 24 + hour) * 60 + minute) * 60000 + second * 1000;
}

// ---------------------------------------------------------------------------------------
// Lookup
// ---------------------------------------------------------------------------------------

/**
 * The candidates of one lookup, reused since a lookup never runs inside another: the lone
 * rules of the buckets hit, and the lists (each in rule order) of the others.
 */
const candidateSingles: number[] = [];
let singleCount = 0;
const candidateLists: (readonly number[])[] = [];
let candidateCount = 0;
/** The lookup each text list was last added in: a message repeating a trigram adds its list once. */
const textListStamps: number[] = [];
let lookupStamp = 0;

function addCandidates(bucket: Bucket | undefined): void {
  if (bucket === undefined) return;
  if (typeof bucket === "number") candidateSingles[singleCount++] = bucket;
  else if (bucket.length > 0) candidateLists[candidateCount++] = bucket;
}

/** The rules whose bucket the error's values select, plus the residual rules. */
function gatherCandidates(index: ClassifierIndex, p: Probe): void {
  singleCount = 0;
  candidateCount = 0;
  addCandidates(index.residual);
  // An empty bucket map is not asked: even a miss hashes the error's (fresh) string.
  if (p.kind !== null && index.kind.size > 0) addCandidates(index.kind.get(p.kind));
  if (p.providerCode !== null && index.providerCode.size > 0) addCandidates(index.providerCode.get(p.providerCode));
  if (p.status !== null) {
    if (index.status.size > 0) addCandidates(index.status.get(p.status));
    if (index.statusClass.size > 0) addCandidates(index.statusClass.get(Math.floor(p.status / 100)));
  }
  if (p.state !== null && index.state.size > 0) addCandidates(index.state.get(p.state));
  if (p.tool !== null && index.tool.size > 0) addCandidates(index.tool.get(p.tool));
  if (p.headers !== null && (index.header.size > 0 || index.headerAny.size > 0)) {
    headersOf(p).forEach((value, name) => {
      const byValue = index.header.get(name);
      if (byValue !== undefined) addCandidates(byValue.get(value));
      addCandidates(index.headerAny.get(name));
    });
  }
  if (index.text.size > 0 && p.message.length >= 3 && (index.textKinds === null || (p.kind !== null && index.textKinds.has(p.kind)))) {
    lookupStamp++;
    // Most messages are ASCII: their trigrams are folded in place, with no lower-cased copy.
    if (p.lowerMessage !== null || !addTextCandidates(index, p.message, true)) {
      if (p.lowerMessage === null) p.lowerMessage = p.message.toLowerCase();
      addTextCandidates(index, p.lowerMessage, false);
    }
  }
  if (p.fields !== null && index.field.size > 0) {
    // The registry declares few fields: ask for each, rather than list the error's own keys.
    const entries = index.fieldEntries;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i] as [string, Map<FieldValue, Bucket>];
      const value = fieldOf(p, entry[0]);
      if (value !== undefined) addCandidates(entry[1].get(value));
    }
  }
}

/**
 * Add the text lists of the message's trigrams (each list once per lookup). With `fold`,
 * ASCII capitals are lower-cased on the way; a character beyond ASCII stops the scan and
 * returns false (lower-casing it may change the text's length: the caller lower-cases the
 * whole message and scans again). Lists added before it stay: a candidate too many is only
 * tested and dismissed.
 */
function addTextCandidates(index: ClassifierIndex, message: string, fold: boolean): boolean {
  const filter = index.textFilter;
  let key = 0;
  for (let i = 0; i < message.length; i++) {
    let c = message.charCodeAt(i);
    if (fold) {
      if (c >= 65 && c <= 90) c += 32;
      else if (c >= 128) return false;
    }
    // The key of the trigram ending here, as trigramKey makes it, rolled along.
    key = ((key << 10) | (c & 0x3ff)) & 0x3fffffff;
    if (i < 2 || filter[key & 0xffff] === 0) continue;
    const list = index.text.get(key);
    if (list !== undefined && textListStamps[list] !== lookupStamp) {
      textListStamps[list] = lookupStamp;
      addCandidates(index.textLists[list]);
    }
  }
  return true;
}

/**
 * The first rule, in registry order, that holds for the error; null when none does (the
 * registry's fallback applies). Each candidate list is in rule order: its first rule that
 * holds is its best, and a list is left as soon as it passes the best found so far.
 */
export function classifyIndex(index: ClassifierIndex, error: ClassifierInput, tool: string | undefined): CompiledRule | null {
  const p = newProbe(error, tool);
  gatherCandidates(index, p);
  // The lone rules in order: the first that holds is the best among them.
  let best = -1;
  for (let i = 1; i < singleCount; i++) {
    const at = candidateSingles[i] as number;
    let j = i;
    for (; j > 0 && (candidateSingles[j - 1] as number) > at; j--) candidateSingles[j] = candidateSingles[j - 1] as number;
    candidateSingles[j] = at;
  }
  for (let i = 0; i < singleCount; i++) {
    const at = candidateSingles[i] as number;
    if (candidateHolds(index, at, p)) {
      best = at;
      break;
    }
  }
  // Shortest lists first: what they find bounds the scan of the long ones (a long message
  // may bring many short text lists: those are not worth sorting).
  for (let i = 1; i < candidateCount && candidateCount <= 16; i++) {
    const list = candidateLists[i] as readonly number[];
    let j = i;
    for (; j > 0 && (candidateLists[j - 1] as readonly number[]).length > list.length; j--) candidateLists[j] = candidateLists[j - 1] as readonly number[];
    candidateLists[j] = list;
  }
  for (let i = 0; i < candidateCount; i++) {
    const list = candidateLists[i] as readonly number[];
    for (let k = 0; k < list.length; k++) {
      const at = list[k] as number;
      if (best >= 0 && at >= best) break;
      if (candidateHolds(index, at, p)) {
        best = at;
        break;
      }
    }
  }
  return best < 0 ? null : (index.rules[best] as CompiledRule);
}

/** Does the candidate at `at` hold, given the bucket that offered it held? */
function candidateHolds(index: ClassifierIndex, at: number, p: Probe): boolean {
  const quick = index.quick;
  const q = at * QUICK_STRIDE;
  const code = quick[q];
  if (code === QUICK_HOLDS) return true;
  if (code === QUICK_STATUS) {
    const s = p.status;
    return s !== null && ((s >= (quick[q + 1] as number) && s <= (quick[q + 2] as number)) || (s >= (quick[q + 3] as number) && s <= (quick[q + 4] as number)));
  }
  return conditionsHold((index.rules[at] as CompiledRule).candidateTest, p, 0);
}
