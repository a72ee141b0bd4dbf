/**
 * Match rules (SPEC 2.1): does a rule hold for an adapter error, and does one rule hold
 * for every error another holds for (exact coverage, used to find shadowed rules).
 */
import type { AdapterError } from "../model/fixture.js";
import type { MatchRule, SideEffectState, StatusMatcher } from "../model/registry.js";

const list = <T>(v: T | T[] | undefined): T[] | undefined => (v === undefined ? undefined : Array.isArray(v) ? v : [v]);

/** Does `status` fall under `m`: 503, "5xx", "500-599" (or the string "503"). Statuses are integers. */
export function statusMatches(m: StatusMatcher, status: number | undefined): boolean {
  if (status === undefined || !Number.isInteger(status)) return false;
  const range = statusRange(m);
  return range !== undefined && status >= range[0] && status <= range[1];
}

/** The inclusive range of statuses a matcher names; undefined when it names none. */
function statusRange(m: StatusMatcher): [number, number] | undefined {
  if (typeof m === "number") return Number.isInteger(m) ? [m, m] : undefined;
  const cls = /^([1-5])xx$/.exec(m);
  if (cls) return [Number(cls[1]) * 100, Number(cls[1]) * 100 + 99];
  const range = /^(\d{3})-(\d{3})$/.exec(m);
  if (range) return Number(range[1]) <= Number(range[2]) ? [Number(range[1]), Number(range[2])] : undefined;
  return /^\d{3}$/.test(m) ? [Number(m), Number(m)] : undefined;
}

/** `*` is any run of characters (dots included), `?` one character; all else is literal. */
export function globMatches(glob: string, text: string): boolean {
  return globToRegExp(glob).test(text);
}

const globCache = new Map<string, RegExp>();
function globToRegExp(glob: string): RegExp {
  let re = globCache.get(glob);
  if (!re) {
    const body = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
    re = new RegExp(`^${body}$`, "s");
    globCache.set(glob, re);
  }
  return re;
}

/** Every field of the rule must hold; a list value holds when any of its items does. */
export function ruleMatches(rule: MatchRule, error: AdapterError, tool: string | undefined): boolean {
  const kinds = list(rule.kind);
  if (kinds && !kinds.includes(error.kind)) return false;
  const statuses = list(rule.http_status);
  if (statuses && !statuses.some((m) => statusMatches(m, error.http_status))) return false;
  const codes = list(rule.provider_code);
  if (codes && (error.provider_code === undefined || !codes.includes(error.provider_code))) return false;
  const texts = list(rule.message_contains);
  if (texts) {
    const message = (error.message ?? "").toLowerCase();
    if (!texts.some((t) => message.includes(t.toLowerCase()))) return false;
  }
  const tools = list(rule.tool);
  if (tools && (tool === undefined || !tools.some((g) => globMatches(g, tool)))) return false;
  const states = list(rule.side_effect_state);
  if (states && (error.side_effect_state === undefined || !states.includes(error.side_effect_state))) return false;
  return true;
}

// ---------------------------------------------------------------------------------------
// Coverage: does `a` hold for every (error, tool) that `b` holds for? Field by field, since
// the fields constrain independent parts of the error. Sound: `true` is never a guess.
// ---------------------------------------------------------------------------------------

export function ruleCovers(a: MatchRule, b: MatchRule): boolean {
  return (
    exactCovers(list(a.kind), list(b.kind)) &&
    exactCovers(list(a.provider_code), list(b.provider_code)) &&
    exactCovers(list(a.side_effect_state) as SideEffectState[] | undefined, list(b.side_effect_state)) &&
    statusCovers(list(a.http_status), list(b.http_status)) &&
    messageCovers(list(a.message_contains), list(b.message_contains)) &&
    toolCovers(list(a.tool), list(b.tool))
  );
}

/** A field absent from `a` constrains nothing; absent from `b` it admits values `a` may refuse. */
function exactCovers<T>(a: T[] | undefined, b: T[] | undefined): boolean {
  if (!a) return true;
  if (!b) return false;
  return b.every((v) => a.includes(v));
}

/** Every range of `b` lies inside the union of `a`'s ranges. */
function statusCovers(a: StatusMatcher[] | undefined, b: StatusMatcher[] | undefined): boolean {
  if (!a) return true;
  if (!b) return false;
  const union = mergeRanges(a.map(statusRange).filter((r): r is [number, number] => r !== undefined));
  return b.every((m) => {
    const r = statusRange(m);
    return r === undefined || union.some(([lo, hi]) => lo <= r[0] && r[1] <= hi);
  });
}

/** Sorted, disjoint ranges; integer ranges that touch (500-509, 510-519) merge into one. */
function mergeRanges(ranges: [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  for (const [lo, hi] of [...ranges].sort((x, y) => x[0] - y[0])) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

/** Any message containing b contains some a exactly when some a is a substring of b. */
function messageCovers(a: string[] | undefined, b: string[] | undefined): boolean {
  if (!a) return true;
  if (a.some((t) => t === "")) return true;
  if (!b) return false;
  return b.every((tb) => a.some((ta) => tb.toLowerCase().includes(ta.toLowerCase())));
}

function toolCovers(a: string[] | undefined, b: string[] | undefined): boolean {
  if (!a) return true;
  if (!b) return false;
  return b.every((gb) => a.some((ga) => globCovers(ga, gb)));
}

/**
 * Does glob `a` match every string glob `b` matches? Runs of wildcards are normalised
 * (`*?` is `?*`), then `b`'s wildcards are treated as symbols: only `a`'s `*` may absorb
 * a `b` `*`, and `a`'s `?` absorbs one `b` character or `?`.
 */
export function globCovers(a: string, b: string): boolean {
  const pa = normaliseGlob(a);
  const pb = normaliseGlob(b);
  const memo = new Map<number, boolean>();
  const go = (i: number, j: number): boolean => {
    const key = i * (pb.length + 1) + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let r: boolean;
    if (i === pa.length) r = j === pb.length;
    else if (pa[i] === "*") r = go(i + 1, j) || (j < pb.length && go(i, j + 1));
    else if (j === pb.length) r = false;
    else if (pa[i] === "?") r = pb[j] !== "*" && go(i + 1, j + 1);
    else r = pb[j] === pa[i] && go(i + 1, j + 1);
    memo.set(key, r);
    return r;
  };
  return go(0, 0);
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
