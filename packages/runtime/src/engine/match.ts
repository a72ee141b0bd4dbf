/**
 * Match rules (SPEC 2.1) one at a time: does a rule hold for an adapter error (through the
 * one classifier), and does one rule hold for every error another holds for (exact
 * coverage, which `matcher-shadowed` uses to find rules that can never win).
 */
import type { AdapterError } from "../model/fixture.js";
import type { MatchRule, StatusMatcher } from "../model/registry.js";
import { classifyIndex, compileClassifier, compileConditions, compileGlob, globHolds, statusRange, type CompiledConditions, type CompiledGlob } from "./classifier.js";
import { toConditions } from "./classify.js";

/** Does one rule hold for an error and the call's tool? (A registry of that one rule classifies.) */
export function ruleMatches(rule: MatchRule, error: AdapterError, tool: string | undefined): boolean {
  return classifyIndex(compileClassifier([{ verdict: "", ...toConditions(rule) }]), error, tool) !== null;
}

/** Does `status` fall under `m`: 503, "5xx", "500-599" (or the string "503"). Statuses are integers. */
export function statusMatches(m: StatusMatcher, status: number | undefined): boolean {
  const range = statusRange(m);
  return range !== null && status !== undefined && Number.isInteger(status) && status >= range[0] && status <= range[1];
}

const globs = new Map<string, CompiledGlob>();

/** `*` is any run of characters (dots included), `?` one character; all else is literal. */
export function globMatches(glob: string, text: string): boolean {
  let compiled = globs.get(glob);
  if (compiled === undefined) {
    compiled = compileGlob(glob);
    if (globs.size < 10_000) globs.set(glob, compiled);
  }
  return globHolds(compiled, text);
}

// ---------------------------------------------------------------------------------------
// Coverage: does `a` hold for every (error, tool) that `b` holds for? Field by field, since
// the fields constrain independent parts of the error. Sound: `true` is never a guess.
// ---------------------------------------------------------------------------------------

export function ruleCovers(a: MatchRule, b: MatchRule): boolean {
  return conditionsCover(compileConditions(toConditions(a)), compileConditions(toConditions(b)));
}

export function conditionsCover(a: CompiledConditions, b: CompiledConditions): boolean {
  return (
    exactCovers(a.kinds, b.kinds) &&
    exactCovers(a.providerCodes, b.providerCodes) &&
    exactCovers(a.states, b.states) &&
    statusCovers(a, b) &&
    messageCovers(a.texts, b.texts) &&
    // A regular expression is never taken to hold for everything another rule matches.
    a.patterns === null &&
    toolCovers(a.globs, b.globs) &&
    headersCover(a.headers, b.headers) &&
    fieldsCover(a.fields, b.fields) &&
    (a.cause === null || (b.cause !== null && conditionsCover(a.cause, b.cause))) &&
    // a = A and not A' holds wherever b = B and not B' does if B' holds wherever A' does.
    (a.not === null || (b.not !== null && conditionsCover(b.not, a.not))) &&
    // A hint is taken to be present for another rule's errors only when it reads the same policy.
    (a.hint === null || (b.hint !== null && JSON.stringify(a.hint) === JSON.stringify(b.hint)))
  );
}

/** A field absent from `a` constrains nothing; absent from `b` it admits values `a` may refuse. */
function exactCovers<T>(a: readonly T[] | null, b: readonly T[] | null): boolean {
  if (a === null) return true;
  if (b === null) return false;
  return b.every((v) => a.includes(v));
}

type Range = [number, number];

function rangesOf(c: CompiledConditions): Range[] {
  const out: Range[] = (c.exactStatuses ?? []).map((s): Range => [s, s]);
  for (let i = 0; i < c.statusRanges.length; i += 2) out.push([c.statusRanges[i], c.statusRanges[i + 1]]);
  return out;
}

/** Every range of `b` lies inside the union of `a`'s ranges. */
function statusCovers(a: CompiledConditions, b: CompiledConditions): boolean {
  if (a.exactStatuses === null) return true;
  if (b.exactStatuses === null) return false;
  const union = mergeRanges(rangesOf(a));
  return rangesOf(b).every((r) => union.some(([lo, hi]) => lo <= r[0] && r[1] <= hi));
}

/** Sorted, disjoint ranges; integer ranges that touch (500-509, 510-519) merge into one. */
function mergeRanges(ranges: Range[]): Range[] {
  const out: Range[] = [];
  for (const [lo, hi] of [...ranges].sort((x, y) => x[0] - y[0])) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

/** Any message containing b contains some a exactly when some a is a substring of b (texts are lower-cased). */
function messageCovers(a: readonly string[] | null, b: readonly string[] | null): boolean {
  if (a === null) return true;
  if (a.some((t) => t === "")) return true;
  if (b === null) return false;
  return b.every((tb) => a.some((ta) => tb.includes(ta)));
}

function toolCovers(a: readonly CompiledGlob[] | null, b: readonly CompiledGlob[] | null): boolean {
  if (a === null) return true;
  if (b === null) return false;
  return b.every((gb) => a.some((ga) => globCovers(ga.source, gb.source)));
}

type Named<T> = readonly (readonly [string, T])[] | null;

/** Each header `a` tests, `b` tests too, with values `a` accepts ("*", null here, accepts any). */
function headersCover(a: Named<readonly string[] | null>, b: Named<readonly string[] | null>): boolean {
  if (a === null) return true;
  if (b === null) return false;
  return a.every(([name, values]) => {
    const other = b.find(([n]) => n === name);
    if (other === undefined) return false;
    if (values === null) return true;
    return other[1] !== null && other[1].every((v) => values.includes(v));
  });
}

function fieldsCover(a: Named<readonly (string | number | boolean)[]>, b: Named<readonly (string | number | boolean)[]>): boolean {
  if (a === null) return true;
  if (b === null) return false;
  return a.every(([name, values]) => {
    const other = b.find(([n]) => n === name);
    return other !== undefined && other[1].every((v) => values.includes(v));
  });
}

/**
 * Does glob `a` match every string glob `b` matches? Runs of wildcards are normalised
 * (`*?` is `?*`), then `b`'s wildcards are treated as symbols: only `a`'s `*` may absorb
 * a `b` `*`, and `a`'s `?` absorbs one `b` character or `?`.
 */
export function globCovers(a: string, b: string): boolean {
  const pa = normaliseGlob(a);
  const pb = normaliseGlob(b);
  // Dynamic programming over (i, j), row by row: time |a|·|b|, no recursion to overflow.
  let next = new Array<boolean>(pb.length + 1).fill(false);
  next[pb.length] = true; // i = |a|: only the end of b remains matchable
  for (let i = pa.length - 1; i >= 0; i--) {
    const row = new Array<boolean>(pb.length + 1).fill(false);
    for (let j = pb.length; j >= 0; j--) {
      if (pa[i] === "*") row[j] = next[j] || (j < pb.length && row[j + 1]);
      else if (j === pb.length) row[j] = false;
      else if (pa[i] === "?") row[j] = pb[j] !== "*" && next[j + 1];
      else row[j] = pb[j] === pa[i] && next[j + 1];
    }
    next = row;
  }
  return next[0];
}

function normaliseGlob(g: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < g.length; ) {
    if (g[i] === "*" || g[i] === "?") {
      let q = 0;
      let star = false;
      while (i < g.length && (g[i] === "*" || g[i] === "?")) {
        if (g[i] === "?") q++;
        else star = true;
        i++;
      }
      for (let k = 0; k < q; k++) out.push("?");
      if (star) out.push("*");
    } else out.push(g[i++]);
  }
  return out;
}
