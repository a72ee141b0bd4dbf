/**
 * A `message_matches` pattern (a JavaScript regular expression, SPEC 12) as a Python `re`
 * pattern that decides exactly as JavaScript's `RegExp.prototype.test` does, for
 * `failbook gen py`. The two dialects differ in what `.`, `\s`, `\d`, `^`, `$` and
 * case-insensitivity mean, so nothing is passed through: the pattern is parsed and every
 * character set is written out as explicit code-point ranges, anchors as `\A`/`\Z` or
 * explicit look-arounds, and the `i` flag as the case variants JavaScript would accept.
 * The emitted pattern is pure ASCII and is compiled with `re.ASCII` (for `\b` alone).
 *
 * Without the `u` flag JavaScript matches UTF-16 code units; the generated module then runs
 * the pattern over the message with each astral character split into its surrogate pair.
 *
 * What cannot be written exactly is refused with a reason: backreferences (but see
 * `backreferences` below), a look-behind
 * whose width is not fixed (Python allows no other), `\p{…}`, non-ASCII letters (or ranges
 * holding them) under `i`, `\b` under `iu`, and quantified assertions.
 */

export type PythonPattern =
  | { readonly ok: true; readonly source: string; /** false: run over the message's UTF-16 code units. */ readonly unicode: boolean }
  | { readonly ok: false; readonly reason: string };

/** Code-point intervals, inclusive, sorted and merged. */
type Ranges = [number, number][];

const MAX = 0x10ffff;
const LINE_TERMINATORS: Ranges = [[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]];
const DIGITS: Ranges = [[0x30, 0x39]];
const WORD: Ranges = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
/** JavaScript's `\s`: WhiteSpace and LineTerminator. */
const SPACE: Ranges = [[0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff]];
/** Under `iu`, simple case folding also joins U+017F to s and U+212A to k. */
const LONG_S = 0x17f;
const KELVIN = 0x212a;

class Refused extends Error {}

export interface PythonPatternOptions {
  /**
   * Keep capturing groups capturing, with JavaScript's numbering (named groups become plain
   * groups, no group is added), and allow a backreference `\N` when group N is certain to
   * have participated where `\N` stands: it closed before, and nothing between the two
   * (an alternation, an optional or repeated atom, a negative look-around) could have left
   * it unset. Python's re fails such a reference where JavaScript matches the empty string.
   * For patterns whose match or groups are used, not only test() (redaction in gen py).
   */
  backreferences?: boolean;
}

/** Translate one `message_matches` pattern (`/body/flags` or a bare body). */
export function pythonPattern(pattern: string, options: PythonPatternOptions = {}): PythonPattern {
  const literal = /^\/([\s\S]*)\/([a-z]*)$/.exec(pattern);
  const body = literal !== null ? (literal[1] as string) : pattern;
  const flags = literal !== null ? (literal[2] as string).replace(/[gyd]/g, "") : "";
  try {
    new RegExp(body, flags);
  } catch {
    // The classifier makes an invalid pattern match nothing (lint reports it); so does this.
    return { ok: true, source: "(?!)", unicode: false };
  }
  if (!/^[imsu]*$/.test(flags)) return { ok: false, reason: `has flags '${flags}'; only i, m, s and u can be translated` };
  try {
    const parser = new Parser(body, flags, options.backreferences === true);
    return { ok: true, source: parser.parse(), unicode: flags.includes("u") };
  } catch (e) {
    if (e instanceof Refused) return { ok: false, reason: e.message };
    throw e;
  }
}

/**
 * Where a group or a backreference stands: the constructs around it, outermost first. The
 * frames are shared objects, completed as parsing goes on (an alternative learns later that
 * its disjunction had others; a group, that a quantifier follows it).
 */
type Frame = { kind: "alternative"; disjunction: { alternatives: number } } | { kind: "group"; negative: boolean; quantified: boolean };

interface Piece {
  text: string;
  /** Width in units (code points, or code units without `u`); null when it varies. */
  width: number | null;
  /** An assertion: it may not be quantified. */
  assertion: boolean;
}

class Parser {
  private readonly chars: number[];
  private at = 0;
  private readonly unicode: boolean;
  private readonly ignoreCase: boolean;
  private readonly multiline: boolean;
  private readonly dotAll: boolean;
  private readonly backreferences: boolean;
  /** The frames around the current position. */
  private readonly frames: Frame[] = [];
  /** Each capturing group that has closed, by number: the frames around it, its own last. */
  private readonly closed = new Map<number, Frame[]>();
  private groupCount = 0;
  private readonly references: { group: number; frames: Frame[] }[] = [];
  /** The frame of the group parsed last, for the quantifier that may follow it. */
  private lastGroup: Frame | null = null;

  constructor(body: string, flags: string, backreferences = false) {
    this.backreferences = backreferences;
    this.unicode = flags.includes("u");
    this.ignoreCase = flags.includes("i");
    this.multiline = flags.includes("m");
    this.dotAll = flags.includes("s");
    this.chars = [];
    if (this.unicode) for (const ch of body) this.chars.push(ch.codePointAt(0) as number);
    else for (let i = 0; i < body.length; i++) this.chars.push(body.charCodeAt(i));
  }

  parse(): string {
    const piece = this.disjunction();
    if (this.at < this.chars.length) throw new Refused(`has an unexpected '${String.fromCodePoint(this.peek())}'`);
    for (const { group, frames } of this.references) this.checkReference(group, frames);
    return piece.text;
  }

  private peek(offset = 0): number {
    return this.chars[this.at + offset] ?? -1;
  }

  private eat(ch: string): boolean {
    if (this.peek() === ch.charCodeAt(0)) {
      this.at++;
      return true;
    }
    return false;
  }

  private disjunction(): Piece {
    const disjunction = { alternatives: 0 };
    const next = () => {
      disjunction.alternatives++;
      this.frames.push({ kind: "alternative", disjunction });
      const piece = this.alternative();
      this.frames.pop();
      return piece;
    };
    const alternatives = [next()];
    while (this.eat("|")) alternatives.push(next());
    if (alternatives.length === 1) return alternatives[0] as Piece;
    const widths = new Set(alternatives.map((a) => a.width));
    return { text: alternatives.map((a) => a.text).join("|"), width: widths.size === 1 ? (alternatives[0] as Piece).width : null, assertion: false };
  }

  private alternative(): Piece {
    let text = "";
    let width: number | null = 0;
    while (this.at < this.chars.length && this.peek() !== 0x7c /* | */ && this.peek() !== 0x29 /* ) */) {
      const term = this.term();
      text += term.text;
      width = width === null || term.width === null ? null : width + term.width;
    }
    return { text, width, assertion: false };
  }

  private term(): Piece {
    this.lastGroup = null;
    const atom = this.atom();
    const group = this.lastGroup as Frame | null;
    const quantifier = this.quantifier();
    if (quantifier === null) return atom;
    if (group !== null && group.kind === "group") group.quantified = true;
    if (atom.assertion) throw new Refused("quantifies an assertion, which Python's re does not allow");
    const lazy = this.eat("?") ? "?" : "";
    const [min, max] = quantifier;
    if (min > 4294967294 || (max !== null && max > 4294967294)) throw new Refused("repeats more than Python's re allows (4294967294)");
    const text = min === 0 && max === null ? "*" : min === 1 && max === null ? "+" : min === 0 && max === 1 ? "?" : max === null ? `{${min},}` : min === max ? `{${min}}` : `{${min},${max}}`;
    const width = max === min && atom.width !== null ? atom.width * min : atom.width === 0 ? 0 : null;
    return { text: `(?:${atom.text})${text}${lazy}`, width, assertion: false };
  }

  /** `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`; a `{` that starts none of them is a literal (as JavaScript reads it without `u`). */
  private quantifier(): [number, number | null] | null {
    const ch = this.peek();
    if (ch === 0x2a) return this.at++, [0, null];
    if (ch === 0x2b) return this.at++, [1, null];
    if (ch === 0x3f) return this.at++, [0, 1];
    if (ch !== 0x7b) return null;
    const rest = String.fromCodePoint(...this.chars.slice(this.at, this.at + 40));
    const m = /^\{(\d+)(,(\d*))?\}/.exec(rest);
    if (m === null) return null;
    this.at += [...(m[0] as string)].length;
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === "" ? null : Number(m[3]);
    return [min, max];
  }

  private atom(): Piece {
    const ch = this.chars[this.at++] as number;
    switch (ch) {
      case 0x5e /* ^ */:
        return assertion(this.multiline ? `(?:\\A|(?<=${setText(LINE_TERMINATORS)}))` : "\\A");
      case 0x24 /* $ */:
        return assertion(this.multiline ? `(?=${setText(LINE_TERMINATORS)}|\\Z)` : "\\Z");
      case 0x2e /* . */:
        return this.set(this.dotAll ? [[0, MAX]] : complement(LINE_TERMINATORS), false);
      case 0x5b /* [ */:
        return this.characterClass();
      case 0x28 /* ( */:
        return this.group();
      case 0x5c /* \ */:
        return this.atomEscape();
      default:
        return this.literal(ch);
    }
  }

  private group(): Piece {
    let open = "(?:";
    let lookbehind = false;
    let isAssertion = false;
    let capturing = true;
    const frame: Frame = { kind: "group", negative: false, quantified: false };
    if (this.eat("?")) {
      capturing = false;
      if (this.eat(":")) open = "(?:";
      else if (this.eat("=")) [open, isAssertion] = ["(?=", true];
      else if (this.eat("!")) [open, isAssertion] = ["(?!", true];
      else if (this.eat("<")) {
        if (this.eat("=")) [open, isAssertion, lookbehind] = ["(?<=", true, true];
        else if (this.eat("!")) [open, isAssertion, lookbehind] = ["(?<!", true, true];
        else {
          // A named group: without backreferences its name means nothing to test().
          while (this.at < this.chars.length && !this.eat(">")) this.at++;
          capturing = true;
        }
      }
    }
    frame.negative = open === "(?!" || open === "(?<!";
    const number = capturing ? ++this.groupCount : 0;
    if (capturing && this.backreferences) open = "(";
    this.frames.push(frame);
    const inner = this.disjunction();
    this.frames.pop();
    if (!this.eat(")")) throw new Refused("has an unclosed group");
    if (capturing) this.closed.set(number, [...this.frames, frame]);
    this.lastGroup = frame;
    if (lookbehind && inner.width === null) throw new Refused("has a look-behind whose width varies; Python's re allows only fixed-width look-behinds");
    return { text: `${open}${inner.text})`, width: isAssertion ? 0 : inner.width, assertion: isAssertion };
  }

  private atomEscape(): Piece {
    const ch = this.chars[this.at++] as number;
    if (ch === 0x62 /* b */ || ch === 0x42 /* B */) {
      if (this.ignoreCase && this.unicode) throw new Refused("uses \\b or \\B with the i and u flags, whose word characters Python's re does not share");
      // Spelt out: Python's \B never matches in an empty string, JavaScript's does.
      const word = setText(WORD);
      return assertion(ch === 0x62 ? `(?:(?<=${word})(?!${word})|(?<!${word})(?=${word}))` : `(?:(?<=${word})(?=${word})|(?<!${word})(?!${word}))`);
    }
    if (ch >= 0x31 && ch <= 0x39 && this.backreferences) return this.backreference(ch);
    if (ch >= 0x31 && ch <= 0x39) throw new Refused("has a backreference (or a legacy octal escape), which cannot be translated exactly");
    if (ch === 0x6b /* k */ && (this.unicode || this.hasNamedGroups())) throw new Refused("has a backreference, which cannot be translated exactly");
    const set = this.classEscape(ch, false);
    if (set.length === 1 && (set[0] as [number, number])[0] === (set[0] as [number, number])[1]) this.checkCaseless(set);
    return this.set(set, true);
  }

  /** `\N`, its first digit read: a reference to group N, written as Python's `\N` (it is the same group). */
  private backreference(first: number): Piece {
    let digits = String.fromCharCode(first);
    while (this.peek() >= 0x30 && this.peek() <= 0x39) digits += String.fromCharCode(this.chars[this.at++] as number);
    const group = Number(digits);
    if (group > this.totalGroups()) throw new Refused(`has \\${digits}, which refers to no group (a legacy octal escape) and cannot be translated exactly`);
    if (this.ignoreCase) throw new Refused("has a backreference under the i flag, whose case rules Python's re does not share");
    if (!this.closed.has(group)) throw new Refused(`has a backreference to group ${group} before that group has closed, which Python's re does not match as JavaScript does`);
    this.references.push({ group, frames: [...this.frames] });
    // The group keeps its number; (?:…) keeps a digit that follows from extending the number.
    return { text: `(?:\\${group})`, width: null, assertion: false };
  }

  /** Is the group certain to have participated where the reference stands (see PythonPatternOptions)? */
  private checkReference(group: number, at: Frame[]): void {
    const frames = this.closed.get(group) as Frame[];
    let shared = 0;
    while (shared < frames.length && shared < at.length && frames[shared] === at[shared]) shared++;
    for (const frame of frames.slice(shared)) {
      const certain = frame.kind === "alternative" ? frame.disjunction.alternatives === 1 : !frame.negative && !frame.quantified;
      if (!certain) throw new Refused(`has a backreference to group ${group}, which may not have participated (it is optional, repeated, in an alternative or in a negative look-around), which Python's re does not match as JavaScript does`);
    }
  }

  /** How many capturing groups the whole pattern has: `\N` beyond them is an octal escape. */
  private totalGroups(): number {
    let count = 0;
    let inClass = false;
    for (let i = 0; i < this.chars.length; i++) {
      const c = this.chars[i] as number;
      if (c === 0x5c) i++;
      else if (inClass) inClass = c !== 0x5d;
      else if (c === 0x5b) inClass = true;
      else if (c === 0x28 && (this.chars[i + 1] !== 0x3f || (this.chars[i + 2] === 0x3c && this.chars[i + 3] !== 0x3d && this.chars[i + 3] !== 0x21))) count++;
    }
    return count;
  }

  private hasNamedGroups(): boolean {
    return /\(\?<[^=!]/.test(String.fromCodePoint(...this.chars));
  }

  /** The set an escape stands for, in or out of a class; `ch` is the character after `\`. */
  private classEscape(ch: number, inClass: boolean): Ranges {
    switch (ch) {
      case 0x64 /* d */:
        return DIGITS;
      case 0x44 /* D */:
        return complement(DIGITS);
      case 0x73 /* s */:
        return SPACE;
      case 0x53 /* S */:
        return complement(SPACE);
      case 0x77 /* w */:
        return this.wordSet();
      case 0x57 /* W */:
        return complement(this.wordSet());
      case 0x74:
        return single(0x09);
      case 0x6e:
        return single(0x0a);
      case 0x76:
        return single(0x0b);
      case 0x66:
        return single(0x0c);
      case 0x72:
        return single(0x0d);
      case 0x62 /* b, in a class: backspace */:
        return single(0x08);
      case 0x30 /* 0 */:
        if (this.peek() >= 0x30 && this.peek() <= 0x39) throw new Refused("has a legacy octal escape, which cannot be translated exactly");
        return single(0);
      case 0x63 /* c */: {
        const letter = this.peek();
        if ((letter | 0x20) >= 0x61 && (letter | 0x20) <= 0x7a) {
          this.at++;
          return single(letter % 32);
        }
        throw new Refused("has a \\c escape without a letter, which cannot be translated exactly");
      }
      case 0x78 /* x */: {
        const hex = this.hex(2);
        return hex === null ? single(0x78) : single(hex);
      }
      case 0x75 /* u */:
        return single(this.unicodeEscape());
      case 0x70 /* p */:
      case 0x50 /* P */:
        if (this.unicode) throw new Refused("uses a Unicode property escape (\\p{…}), which Python's re does not have");
        return single(ch);
      default:
        if (ch >= 0x31 && ch <= 0x39 && inClass) throw new Refused("has a legacy octal escape, which cannot be translated exactly");
        return single(ch);
    }
  }

  private wordSet(): Ranges {
    return this.ignoreCase && this.unicode ? union(WORD, [[LONG_S, LONG_S], [KELVIN, KELVIN]]) : WORD;
  }

  private hex(digits: number): number | null {
    let value = 0;
    for (let i = 0; i < digits; i++) {
      const d = hexDigit(this.peek(i));
      if (d < 0) return null;
      value = value * 16 + d;
    }
    this.at += digits;
    return value;
  }

  /** `\uXXXX`, a surrogate pair of them under `u`, or `\u{…}` under `u`; else a literal `u`. */
  private unicodeEscape(): number {
    if (this.unicode && this.eat("{")) {
      let value = 0;
      while (!this.eat("}")) value = value * 16 + hexDigit(this.chars[this.at++] ?? -1);
      return value;
    }
    const unit = this.hex(4);
    if (unit === null) return 0x75;
    if (this.unicode && unit >= 0xd800 && unit <= 0xdbff && this.peek() === 0x5c && this.peek(1) === 0x75) {
      const save = this.at;
      this.at += 2;
      const low = this.hex(4);
      if (low !== null && low >= 0xdc00 && low <= 0xdfff) return (unit - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
      this.at = save;
    }
    return unit;
  }

  private characterClass(): Piece {
    const negated = this.eat("^");
    let members: Ranges = [];
    while (!this.eat("]")) {
      if (this.at >= this.chars.length) throw new Refused("has an unclosed character class");
      const from = this.classAtom();
      if (this.peek() === 0x2d /* - */ && this.peek(1) !== 0x5d /* ] */ && this.peek(1) !== -1 && from.length === 1 && (from[0] as [number, number])[0] === (from[0] as [number, number])[1]) {
        const save = this.at;
        this.at++;
        const to = this.classAtom();
        if (to.length === 1 && (to[0] as [number, number])[0] === (to[0] as [number, number])[1]) {
          const lo = (from[0] as [number, number])[0];
          const hi = (to[0] as [number, number])[0];
          this.checkCaseless([[lo, hi]]);
          members = union(members, [[lo, hi]]);
          continue;
        }
        // `[\w-x]`: the `-` is a literal (Annex B).
        this.at = save;
      }
      members = union(members, from);
    }
    const closed = this.closeCase(members);
    return this.set(negated ? complement(closed) : closed, false, true);
  }

  private classAtom(): Ranges {
    const ch = this.chars[this.at++] as number;
    if (ch !== 0x5c) {
      this.checkCaseless(single(ch));
      return single(ch);
    }
    const escaped = this.chars[this.at++] as number;
    if (escaped === 0x2d) return single(0x2d);
    if (escaped === 0x42 /* B */ && !this.unicode) return single(0x42);
    const set = this.classEscape(escaped, true);
    if (set.length === 1 && (set[0] as [number, number])[0] === (set[0] as [number, number])[1]) this.checkCaseless(set);
    return set;
  }

  private literal(ch: number): Piece {
    this.checkCaseless(single(ch));
    return this.set(single(ch), true);
  }

  /** A set as a piece; `close`: add the case variants under `i` (a class closes its members itself). */
  private set(ranges: Ranges, close: boolean, closed = false): Piece {
    const final = close && !closed ? this.closeCase(ranges) : ranges;
    return { text: setText(final), width: 1, assertion: false };
  }

  /** Under `i`: non-ASCII letters cannot be matched as JavaScript would, so they are refused. */
  private checkCaseless(ranges: Ranges): void {
    if (!this.ignoreCase) return;
    for (const [lo, hi] of ranges) {
      for (let c = Math.max(lo, 0x80); c <= hi; c++) {
        if (c >= 0xd800 && c <= 0xdfff) continue;
        const s = String.fromCodePoint(c);
        if (s.toLowerCase() !== s || s.toUpperCase() !== s) throw new Refused(`has the non-ASCII letter '${s}' under the i flag, whose case rules Python's re does not share; spell its cases out, e.g. [${s.toLowerCase()}${s.toUpperCase()}]`);
      }
    }
  }

  /** The members plus their case variants under `i` (ASCII letters; and ſ, K under `iu`). */
  private closeCase(ranges: Ranges): Ranges {
    if (!this.ignoreCase) return ranges;
    const extra: Ranges = [];
    for (const [lo, hi] of ranges) {
      for (let c = Math.max(lo, 0x41); c <= Math.min(hi, 0x7a); c++) {
        if (c <= 0x5a) extra.push([c + 32, c + 32]);
        else if (c >= 0x61) extra.push([c - 32, c - 32]);
      }
    }
    let out = union(ranges, extra);
    if (this.unicode) {
      const has = (c: number) => out.some(([lo, hi]) => c >= lo && c <= hi);
      if (has(0x73) || has(LONG_S)) out = union(out, [[0x53, 0x53], [0x73, 0x73], [LONG_S, LONG_S]]);
      if (has(0x6b) || has(KELVIN)) out = union(out, [[0x4b, 0x4b], [0x6b, 0x6b], [KELVIN, KELVIN]]);
    }
    return out;
  }
}

const assertion = (text: string): Piece => ({ text, width: 0, assertion: true });
const single = (c: number): Ranges => [[c, c]];

function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

function union(a: Ranges, b: Ranges): Ranges {
  const all = [...a, ...b].map(([lo, hi]) => [lo, hi] as [number, number]).sort((x, y) => x[0] - y[0]);
  const out: Ranges = [];
  for (const r of all) {
    const last = out[out.length - 1];
    if (last !== undefined && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
    else out.push(r);
  }
  return out;
}

function complement(ranges: Ranges): Ranges {
  const out: Ranges = [];
  let next = 0;
  for (const [lo, hi] of union(ranges, [])) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX) out.push([next, MAX]);
  return out;
}

/** One code point as Python `re` reads it literally: ASCII letters and digits bare, the rest escaped. */
function pyChar(c: number): string {
  if ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) return String.fromCharCode(c);
  if (c > 0x20 && c < 0x7f) return `\\${String.fromCharCode(c)}`;
  return c <= 0xffff ? `\\u${c.toString(16).padStart(4, "0")}` : `\\U${c.toString(16).padStart(8, "0")}`;
}

/** A set as a Python `re` atom: one escaped character, a class, or `(?!)` when empty. */
function setText(ranges: Ranges): string {
  if (ranges.length === 0) return "(?!)";
  const [lo, hi] = ranges[0] as [number, number];
  if (ranges.length === 1 && lo === hi) return pyChar(lo);
  return `[${ranges.map(([a, b]) => (a === b ? pyChar(a) : b === a + 1 ? pyChar(a) + pyChar(b) : `${pyChar(a)}-${pyChar(b)}`)).join("")}]`;
}
