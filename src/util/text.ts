/** Small text helpers shared by messages: edit distance and "did you mean". */

export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

/** Candidates close to `word`, best first (case-insensitive); at most `limit`. */
export function nearest(word: string, candidates: readonly string[], limit = 3): string[] {
  const w = word.toLowerCase();
  const threshold = Math.max(2, Math.floor(w.length / 3));
  const close: { c: string; d: number }[] = [];
  // The last long list's distances for this word, by place: a candidate at the same place is the same text.
  const long = candidates.length >= REMEMBERED_FROM;
  const last = long ? remembered.get(w) : undefined;
  const known = last && last.candidates.length === candidates.length ? last : undefined;
  const distances = long ? new Int32Array(candidates.length) : undefined;
  // A word of at most 32 characters: each candidate's distance a machine word at a time.
  const bits = w.length > 0 && w.length <= 32 && candidates.length >= BIT_PARALLEL_FROM;
  if (bits) setPattern(w);
  for (let i = 0; i < candidates.length; i++) {
    const c = candidates[i] as string;
    let d: number;
    if (known !== undefined && known.candidates[i] === c) d = known.distances[i] as number;
    else {
      const lc = c.toLowerCase();
      const contains = lc.includes(w) || w.includes(lc);
      // Only a distance up to the threshold counts (a text containing the other counts as the
      // threshold at most): past it, the bounded distance need not be exact.
      const bounded = Math.abs(lc.length - w.length) > threshold ? threshold + 1 : bits ? bitParallelLevenshtein(w.length, lc) : boundedLevenshtein(w, lc, threshold);
      d = contains ? Math.min(bounded, threshold) : bounded <= threshold ? bounded : -1;
    }
    if (distances) distances[i] = d;
    if (d >= 0) close.push({ c, d });
  }
  if (bits) clearPattern(w);
  if (distances) {
    if (!remembered.has(w) && remembered.size >= REMEMBERED_WORDS) remembered.delete(remembered.keys().next().value as string);
    remembered.set(w, { candidates: candidates.slice(), distances });
  }
  // By distance, then by text (localeCompare's order): only the distances up to the
  // limit-th are ordered by text, where thousands of codes may lie within the threshold.
  close.sort((x, y) => x.d - y.d);
  const worst = limit > 0 && close.length > limit ? (close[limit - 1] as { d: number }).d : Infinity;
  let end = limit;
  while (end < close.length && (close[end] as { d: number }).d <= worst) end++;
  return close
    .slice(0, end)
    .sort((x, y) => x.d - y.d || (collator ??= new Intl.Collator()).compare(x.c, y.c))
    .slice(0, limit)
    .map((x) => x.c);
}

/**
 * Each word's distances to the candidates of its last long list, by candidate: the language
 * server asks for the closest of 10,000 codes to the same word after every edit while a
 * rename stands (the playbook's entry for the old code), with one code of the list changed.
 */
const remembered = new Map<string, { candidates: readonly string[]; distances: Int32Array }>();
const REMEMBERED_FROM = 1000;
const REMEMBERED_WORDS = 8;

/** `localeCompare`'s order (no locale, no options), made on first use: making one loads ICU's collation data, which a start without a did-you-mean never needs. */
let collator: Intl.Collator | undefined;

let row = new Int32Array(64);

/** Lists this long are worth the pattern's table. */
const BIT_PARALLEL_FROM = 64;
/** For each UTF-16 code unit, the places (bits) where the pattern has it; all zero between calls. */
let patternBits: Uint32Array | undefined;

function setPattern(pattern: string): void {
  const table = (patternBits ??= new Uint32Array(0x10000));
  for (let i = 0; i < pattern.length; i++) table[pattern.charCodeAt(i)] |= 1 << i;
}

function clearPattern(pattern: string): void {
  const table = patternBits as Uint32Array;
  for (let i = 0; i < pattern.length; i++) table[pattern.charCodeAt(i)] = 0;
}

/**
 * The edit distance between the pattern set by setPattern (1 to 32 code units, `length`) and
 * `text`: Myers' bit-parallel algorithm (Hyyrö's form), a column of the table in one 32-bit
 * word, so one step per character of the text where the table takes one per pair.
 */
function bitParallelLevenshtein(length: number, text: string): number {
  const table = patternBits as Uint32Array;
  const last = 1 << (length - 1);
  let pv = -1;
  let mv = 0;
  let score = length;
  for (let i = 0; i < text.length; i++) {
    let eq = table[text.charCodeAt(i)] as number;
    const xv = eq | mv;
    eq |= ((eq & pv) + pv) ^ pv;
    mv |= ~(eq | pv);
    pv &= eq;
    if (mv & last) score++;
    if (pv & last) score--;
    mv = (mv << 1) | 1;
    pv = (pv << 1) | ~(xv | mv);
    mv &= xv;
  }
  return score;
}

/**
 * `levenshtein(a, b)` when it is at most `bound`, else some number above `bound`: the
 * lengths alone, or a row of the table all above it, settle that without the whole table
 * (a did-you-mean over 10,000 codes asks this of each).
 */
function boundedLevenshtein(a: string, b: string, bound: number): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > bound) return bound + 1;
  if (row.length <= b.length) row = new Int32Array(b.length + 1);
  for (let j = 0; j <= b.length; j++) row[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] as number;
    row[0] = i;
    let least = i;
    const ch = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] as number;
      const value = Math.min(above + 1, (row[j - 1] as number) + 1, diagonal + (ch === b.charCodeAt(j - 1) ? 0 : 1));
      row[j] = value;
      diagonal = above;
      if (value < least) least = value;
    }
    // Every path to the last cell passes this row; it only grows from here.
    if (least > bound) return bound + 1;
  }
  return row[b.length] as number;
}

export function closest(word: string, candidates: readonly string[]): string | undefined {
  return nearest(word, candidates, 1)[0];
}

/**
 * At most `max` characters, then an ellipsis. The cut never keeps part of a word: the start
 * of a cut token (`ghp_1a2b…`) would escape the redaction patterns that know the whole.
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max);
  const kept = /\S/.test(text[max]) ? head.replace(/\S+$/, "") : head;
  return kept.trimEnd() + "…";
}

export function plural(n: number, word: string, many = word + "s"): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** The first few terms of a sum of `count` terms, then how many more: "1 + 2 + 4 + … (997 more)". */
export function abbreviatedSum(terms: readonly string[], count: number, shown = 5): string {
  const more = count - Math.min(shown, terms.length);
  return terms.slice(0, shown).join(" + ") + (more > 0 ? ` + … (${more} more)` : "");
}

/** Compared a block at a time: equal blocks of two strings compare at memory speed. */
const BLOCK = 4096;

/**
 * Where `b`, an edit of `a`, differs from it: the characters of `a` from `start` to `oldEnd`
 * became those of `b` from `start` to `newEnd`; the rest of both is the same (the longest
 * common start, then the longest common end that does not reach into it).
 */
export function editedSpan(a: string, b: string): { start: number; oldEnd: number; newEnd: number } {
  const start = commonPrefix(a, b);
  const suffix = commonSuffix(a, b, start);
  return { start, oldEnd: a.length - suffix, newEnd: b.length - suffix };
}

/** The length of the common start of `a` and `b`. */
function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i + BLOCK <= n && a.slice(i, i + BLOCK) === b.slice(i, i + BLOCK)) i += BLOCK;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** The length of the common end of `a` and `b`, not reaching into their first `prefix` characters. */
function commonSuffix(a: string, b: string, prefix: number): number {
  const n = Math.min(a.length, b.length) - prefix;
  let i = 0;
  while (i + BLOCK <= n && a.slice(a.length - i - BLOCK, a.length - i) === b.slice(b.length - i - BLOCK, b.length - i)) i += BLOCK;
  while (i < n && a.charCodeAt(a.length - 1 - i) === b.charCodeAt(b.length - 1 - i)) i++;
  return i;
}
