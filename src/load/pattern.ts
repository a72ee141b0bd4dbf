/**
 * User regular expressions (SPEC 16: no pattern hangs). Every pattern a user supplies
 * (`redact:`, `code_pattern`, and later `message_matches`) is compiled here and nowhere else.
 *
 * Why a linear-time engine (re2js, RE2 semantics) rather than refusing at load the patterns a
 * ReDoS checker (recheck) finds vulnerable: recheck, which keeps exact JavaScript semantics,
 * took 0.1 to 2 s per ordinary pattern on a cold start with its portable backend (about
 * 0.1 to 0.6 s with its native binary), paid by every command of a project with patterns,
 * and it flags everyday patterns such as `\d+\.\d+` as quadratic. re2js loads in about 10 ms,
 * compiles a pattern in about 1 ms and matches in time linear in the input, by construction.
 * The price is RE2's syntax: no backreferences and no lookaround; such a pattern is refused
 * at load with its position.
 */
import type { RE2JS } from "re2js";
import { loadVendored } from "./vendor.js";

// Loaded on first use: a project without patterns of its own never pays for the engine.
let engine: typeof RE2JS | undefined;
const re2 = (): typeof RE2JS => (engine ??= loadVendored<typeof import("re2js")>("re2js").RE2JS);

/**
 * A config `redact:` pattern compiled as the redactor runs it in failbook (on the linear-time
 * engine, Unicode mode, global), or undefined when it cannot run (the loader reports that).
 */
export function compileRedactPattern(source: string): RegExp | undefined {
  try {
    return compileUserPattern(source, "gu");
  } catch {
    return undefined;
  }
}

/** The project's `redact:` patterns for `createRedactor`, each on the linear engine; one that cannot run is left out. */
export function linearRedactPatterns(sources: readonly string[] = []): RegExp[] {
  return sources.map(compileRedactPattern).filter((re): re is RegExp => re !== undefined);
}

/** A pattern that cannot be run: its syntax is not a regular expression failbook can run in linear time. */
export class UnsafePattern extends Error {}

/**
 * Compile a user's pattern (JavaScript syntax, flags among `g`, `i`, `m`, `s`, `u`, `y`) to a
 * RegExp whose matching runs on the linear engine: `test`, `exec`, `String#replace`, `match`,
 * `matchAll` and `split` all go through its `exec`. Throws UnsafePattern, saying why, for a
 * pattern the engine cannot run (a syntax error, a backreference, lookaround).
 */
export function compileUserPattern(source: string, flags = ""): RegExp {
  try {
    // The native RegExp only parses here (it never runs this pattern): a syntax error is
    // reported in JavaScript's words, and `source` and `flags` read as the user wrote them.
    new RegExp(source, flags);
  } catch (e) {
    throw new UnsafePattern(`is not a valid regular expression: ${(e as Error).message.replace(/^.*: /, "")}`);
  }
  let linear: RE2JS;
  try {
    linear = re2().compile(re2().translateRegExp(source), re2Flags(flags));
  } catch (e) {
    throw new UnsafePattern(unsupported((e as Error).message));
  }
  return new LinearRegExp(source, flags, linear);
}

/** RE2 refuses what cannot run in linear time: backreferences and lookaround above all. */
function unsupported(message: string): string {
  const construct = /`([^`]*)`/.exec(message)?.[1];
  if (/invalid escape sequence: `\\[1-9]|named capture: `\(\?<[=!]|Perl syntax: `\(\?[=!]/.test(message)) {
    return `uses a backreference or lookaround (${construct}), which cannot run in time linear in its input; rewrite the pattern without it`;
  }
  return `cannot run in time linear in its input (${message.replace(/^error parsing regexp: /, "")}); simplify it`;
}

function re2Flags(flags: string): number {
  let out = 0;
  if (flags.includes("i")) out |= re2().CASE_INSENSITIVE;
  if (flags.includes("m")) out |= re2().MULTILINE;
  if (flags.includes("s")) out |= re2().DOTALL;
  return out;
}

/** A RegExp whose matching is done by RE2: the native engine never runs this pattern. */
class LinearRegExp extends RegExp {
  private readonly linear: RE2JS;
  private matcher?: ReturnType<RE2JS["matcher"]>;
  private matcherInput?: string;

  // Also called by the RegExp built-ins (split, matchAll) to derive a copy, which stays linear.
  constructor(pattern: string | RegExp, flags?: string, linear?: RE2JS) {
    super(pattern, flags);
    this.linear = linear ?? re2().compile(re2().translateRegExp(this.source), re2Flags(this.flags));
  }

  override exec(input: string): RegExpExecArray | null {
    const text = String(input);
    const advancing = this.global || this.sticky;
    const from = advancing ? this.lastIndex : 0;
    if (from > text.length) {
      this.lastIndex = 0;
      return null;
    }
    // One matcher per input: building one reads the whole text, so a global replace must reuse it.
    if (this.matcherInput !== text || !this.matcher) {
      this.matcher = this.linear.matcher(text);
      this.matcherInput = text;
    }
    const m = this.matcher;
    if (!m.find(from) || (this.sticky && m.start() !== from)) {
      if (advancing) this.lastIndex = 0;
      return null;
    }
    const groups: (string | undefined)[] = [];
    for (let g = 0; g <= m.groupCount(); g++) groups.push(m.group(g) ?? undefined);
    const result = Object.assign(groups, { index: m.start(), input: text, groups: undefined as Record<string, string> | undefined }) as RegExpExecArray;
    const named = Object.entries(this.linear.namedGroups());
    if (named.length > 0) result.groups = Object.fromEntries(named.map(([name, g]) => [name, m.group(g) ?? undefined])) as Record<string, string>;
    if (advancing) this.lastIndex = m.end();
    return result;
  }
}
