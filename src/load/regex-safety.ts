/**
 * `message_matches` patterns, checked at load (SPEC 12, 16). They run on JavaScript's own
 * engine, in failbook and in the generated bindings alike, so that both decide the same; a
 * backtracking engine is only safe on patterns that cannot backtrack catastrophically, so
 * each pattern must be a valid regular expression that the ReDoS checker recheck proves
 * linear. A pattern it finds vulnerable, or cannot decide, is refused with its position.
 *
 * recheck is loaded only for a registry that has such patterns, and each distinct pattern is
 * checked once per process. A check can take seconds (recheck's bound is 10 s): a process that
 * must stay responsive (failbook lsp) defers them, and the load stops at a pattern not yet
 * judged (PatternsUnjudged) until it judged it elsewhere (a worker thread) and loads again.
 */
import { CAUSE_DEPTH } from "failbook-runtime/engine/classifier.js";
import type { PathSegment } from "failbook-runtime/model/finding.js";
import { clip } from "../util/text.js";
import { loadVendored } from "./vendor.js";

export interface PatternProblem {
  message: string;
  path: PathSegment[];
}

/** The flags a `/…/flags` pattern may carry: the others change what `test` means or nothing at all. */
const ALLOWED_FLAGS = /^[imsu]*$/;

/** Every refused `message_matches` pattern of a registry document (rules and their `cause` rules). */
export function messagePatternProblems(registry: unknown): PatternProblem[] {
  if (deferred) {
    const unjudged = new Set<string>();
    eachPattern(registry, (pattern) => verdicts.has(pattern) || unjudged.add(pattern));
    if (unjudged.size > 0) throw new PatternsUnjudged([...unjudged]);
  }
  const problems: PatternProblem[] = [];
  eachPattern(registry, (pattern, path) => {
    const why = refusal(pattern);
    if (why !== undefined) problems.push({ message: `message_matches ${JSON.stringify(clip(pattern, 60))} ${why}`, path: path() });
  });
  return problems;
}

/** Each `message_matches` pattern of a registry document, with its path (made on demand: 20,000 rules, most without a pattern). */
function eachPattern(registry: unknown, visit: (pattern: string, path: () => PathSegment[]) => void): void {
  const verdicts = (registry as { verdicts?: unknown } | null)?.verdicts;
  if (!Array.isArray(verdicts)) return;
  for (let v = 0; v < verdicts.length; v++) {
    const match = (verdicts[v] as { match?: unknown } | null)?.match;
    if (!Array.isArray(match)) continue;
    for (let r = 0; r < match.length; r++) if (mayHoldPattern(match[r])) visitRule(match[r], () => ["verdicts", v, "match", r], visit, 0);
  }
}

function mayHoldPattern(rule: unknown): boolean {
  return rule !== null && typeof rule === "object" && ((rule as { message_matches?: unknown }).message_matches !== undefined || (rule as { cause?: unknown }).cause !== undefined);
}

function visitRule(rule: unknown, path: () => PathSegment[], visit: (pattern: string, path: () => PathSegment[]) => void, depth: number): void {
  if (rule === null || typeof rule !== "object" || depth > CAUSE_DEPTH) return;
  const { message_matches: patterns, cause } = rule as { message_matches?: unknown; cause?: unknown };
  if (typeof patterns === "string") visit(patterns, () => [...path(), "message_matches"]);
  else if (Array.isArray(patterns)) patterns.forEach((p, i) => typeof p === "string" && visit(p, () => [...path(), "message_matches", i]));
  if (cause !== undefined) visitRule(cause, () => [...path(), "cause"], visit, depth + 1);
}

/** Patterns the load met that were not judged yet, while checks are deferred: judge them (judgePattern, elsewhere), record the verdicts (judged), and load again. */
export class PatternsUnjudged extends Error {
  constructor(readonly patterns: string[]) {
    super(`${patterns.length} message_matches pattern(s) not yet checked for ReDoS`);
  }
}

const verdicts = new Map<string, string | undefined>();
let deferred = false;

/** From now on, in this thread, a pattern not yet judged stops the load (PatternsUnjudged) instead of being checked on the spot. */
export function deferPatternChecks(): void {
  deferred = true;
}

/** A verdict reached elsewhere (judgePattern in a worker thread), kept as if reached here. */
export function judged(pattern: string, why: string | undefined): void {
  verdicts.set(pattern, why);
}

/** Why a pattern is refused, or undefined when it may run. */
export function refusal(pattern: string): string | undefined {
  if (verdicts.has(pattern)) return verdicts.get(pattern);
  if (deferred) throw new PatternsUnjudged([pattern]);
  return judgePattern(pattern);
}

/** Judge a pattern here and now, however long recheck takes (up to its bound), and keep the verdict. */
export function judgePattern(pattern: string): string | undefined {
  const why = judge(pattern);
  verdicts.set(pattern, why);
  return why;
}

/** What recheck may take for one distinct pattern before it is refused as unproven. */
const CHECK_TIMEOUT_MS = 10_000;

function judge(pattern: string): string | undefined {
  const literal = /^\/([\s\S]*)\/([a-z]*)$/.exec(pattern);
  const source = literal ? (literal[1] as string) : pattern;
  const flags = literal ? (literal[2] as string) : "";
  if (!ALLOWED_FLAGS.test(flags)) return `has flags '${flags}': only i, m, s and u are allowed (write /pattern/i to ignore case)`;
  try {
    new RegExp(source, flags);
  } catch (e) {
    return `is not a valid regular expression: ${(e as Error).message.replace(/^.*: /, "")}`;
  }
  if (source.length > 1000) return "is longer than 1000 characters; split it into several rules";
  // recheck picks its automaton checker (exact, deterministic) for any pattern of this size
  // but a huge one, which it fuzzes. Its clock only bounds that work: 10 s, so that a loaded
  // machine (a simple pattern can take 1 s there) never refuses a pattern an idle one accepts.
  const result = recheck().checkSync(source, flags, { timeout: CHECK_TIMEOUT_MS, randomSeed: 0 });
  switch (result.status) {
    case "safe":
      return undefined;
    case "vulnerable": {
      const growth = result.complexity.type === "exponential" ? "exponential" : `polynomial (degree ${result.complexity.degree})`;
      return `can take ${growth} time in the message's length (a ReDoS, found by recheck); rewrite it without nested or overlapping repetition, or use message_contains`;
    }
    default:
      return `could not be shown safe from ReDoS (recheck: ${result.error.kind}); simplify it, or use message_contains`;
  }
}

type Recheck = typeof import("recheck");
let module: Recheck | undefined;

function recheck(): Recheck {
  if (module === undefined) {
    // In this process, not in recheck's worker thread or its native binary: a sync check
    // that needs neither starts faster and behaves the same on every machine.
    process.env.RECHECK_SYNC_BACKEND ??= "pure";
    module = loadVendored<Recheck>("recheck");
  }
  return module;
}
