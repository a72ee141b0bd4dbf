/**
 * SPEC 16, no pattern hangs: the user's regular expressions (`redact:`, `code_pattern`) run
 * on a linear-time engine, so patterns that backtrack for ever in JavaScript finish on long
 * input; patterns the engine cannot run are refused at load, at their position.
 */
import fc from "fast-check";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compileUserPattern, UnsafePattern } from "../../src/load/pattern.js";
import { failbook } from "../helpers/cli.js";
import { adversarialProject, FIXTURE, REGISTRY } from "./project.js";

/**
 * No wall-clock bound here (a benchmark measures speed, and a shared CI machine makes any
 * bound flaky): a pattern that backtracks 2^30000 ways never finishes, so a regression is
 * caught by the test's own time limit, which is far above any linear run.
 */
const HANG_LIMIT_MS = 120_000;

describe("patterns that hang a backtracking engine finish", () => {
  const long = "a".repeat(30_000);
  // A summary and an error message of 30,000 a's then a mismatch: (a+)+$ backtracks 2^30000 ways in V8.
  const registry = REGISTRY.replace("summary: The upstream was slow.", `summary: ${long}!`);
  const fixture = FIXTURE.replace("message: slow", `message: ${long}!`);

  it.each(["lint", "simulate", "explain timeout", "render", "render --format json", "gen ts --out gen.ts"])(
    "redact: ['(a+)+$'] with %s",
    (command) => {
      const dir = adversarialProject({ "registry.yaml": registry, "fixtures/slow.yaml": fixture }, "redact: ['(a+)+$']\n");
      const r = failbook(command.split(" "), { cwd: dir });
      expect(r.stderr).not.toContain("internal error");
      expect(r.code).toBeLessThan(2);
    },
    HANG_LIMIT_MS,
  );

  it("code_pattern: '^(a+)+$' against a long code", () => {
    const dir = adversarialProject({ "registry.yaml": REGISTRY.replace("code: timeout", `code: ${long}!`).replace("  timeout:", `  ${long}!:`), "playbook.yaml": `apiVersion: failbook/v1\nkind: Playbook\nname: p\nverdicts:\n  unknown_error: { action: escalate_to_human, queue: oncall }\n` }, "code_pattern: '^(a+)+$'\nfixtures: []\n");
    writeFileSync(join(dir, "failbook.yaml"), "registry: registry.yaml\nplaybook: playbook.yaml\ncode_pattern: '^(a+)+$'\n");
    const r = failbook(["lint", "--format", "json"], { cwd: dir });
    const rules = (JSON.parse(r.stdout) as { findings: { rule: string }[] }).findings.map((f) => f.rule);
    expect(rules).toContain("code-format");
  }, HANG_LIMIT_MS);

  it.each([
    ["redact: ['(?<=key=)\\w+']", "failbook.yaml:4:10", "redact pattern uses a backreference or lookaround ((?<=key=)"],
    ["redact: ['(\\w+)=\\1']", "failbook.yaml:4:10", "redact pattern uses a backreference or lookaround (\\1)"],
    ["code_pattern: '^(?!tmp_)[a-z_]+$'", "failbook.yaml:4:15", "code_pattern uses a backreference or lookaround ((?!"],
    ["redact: ['[']", "failbook.yaml:4:10", "redact pattern is not a valid regular expression: Unterminated character class"],
  ])("a pattern the linear engine cannot run is a schema finding at its position: %s", (line, position, message) => {
    const r = failbook(["lint"], { cwd: adversarialProject({}, `${line}\n`) });
    expect(r.code).toBe(1);
    const finding = r.stdout.split("\n").find((l) => l.startsWith(position));
    expect(finding).toContain(message);
    expect(finding).toMatch(/\[schema\]$/);
  });
});

/**
 * Regular expressions built from the pieces that make backtracking explode: nesting, overlap,
 * alternation. Kept small: a search costs the pattern's size times the input's length.
 */
const patternArb = fc.letrec<{ atom: string; piece: string; seq: string; expr: string }>((tie) => ({
  atom: fc.oneof(
    { maxDepth: 3, depthSize: "small", withCrossShrink: true },
    fc.constantFrom("a", "b", "[ab]", ".", "\\w"),
    tie("expr").map((e) => `(${e})`),
    tie("expr").map((e) => `(?:${e})`),
  ),
  piece: fc.tuple(tie("atom"), fc.constantFrom("", "*", "+", "?", "{1,3}", "{2,}", "+?")).map(([a, q]) => a + q),
  seq: fc.array(tie("piece"), { minLength: 1, maxLength: 3 }).map((ps) => ps.join("")),
  expr: fc.oneof(tie("seq"), fc.tuple(tie("seq"), tie("seq")).map(([x, y]) => `${x}|${y}`)),
})).expr.map((e) => e);

const anchored = fc.tuple(fc.boolean(), patternArb, fc.boolean()).map(([start, p, end]) => `${start ? "^" : ""}${p}${end ? "$" : ""}`);

/**
 * Smaller patterns, for the properties that ask JavaScript's own engine as the oracle: even on
 * six characters it backtracks for seconds on a deep one (`((.{1,3}(?:\w+[ab]?)?(?:.{1,3}.*.{2,})+)*b*|...){2,}`
 * took 8.7 s on "!ccacc" while failbook's engine took 0.2 ms), which timed the test out on CI.
 */
const shallowPattern = fc.letrec<{ atom: string; piece: string; seq: string; expr: string }>((tie) => ({
  atom: fc.oneof({ maxDepth: 2, depthSize: "small", withCrossShrink: true }, fc.constantFrom("a", "b", "[ab]", ".", "\\w"), tie("expr").map((e) => `(${e})`), tie("expr").map((e) => `(?:${e})`)),
  piece: fc.tuple(tie("atom"), fc.constantFrom("", "*", "+", "?", "{1,3}", "{2,}", "+?")).map(([a, q]) => a + q),
  seq: fc.array(tie("piece"), { minLength: 1, maxLength: 2 }).map((ps) => ps.join("")),
  expr: fc.oneof(tie("seq"), fc.tuple(tie("seq"), tie("seq")).map(([x, y]) => `${x}|${y}`)),
})).expr;
const shallowAnchored = fc.tuple(fc.boolean(), shallowPattern, fc.boolean()).map(([start, p, end]) => `${start ? "^" : ""}${p}${end ? "$" : ""}`);

/** A long run of what the patterns repeat, then a character that makes a backtracking engine retry. */
const hostileText = (length: number) =>
  fc.tuple(fc.constantFrom("a", "ab", "aab"), fc.constantFrom("!", "b", "c", "")).map(([unit, tail]) => unit.repeat(Math.ceil(length / unit.length)) + tail);


describe("generated patterns (fast-check)", () => {
  it("one search with any generated pattern finishes on 20,000 hostile characters", () => {
    fc.assert(
      fc.property(anchored, hostileText(20_000), (source, input) => {
        const re = compileUserPattern(source, "u");
        expect(re.test(input)).toBe(input.search(re) >= 0);
      }),
      { numRuns: 30 },
    );
  }, HANG_LIMIT_MS);

  // Replacing every match may rescan the text after each one (as in RE2, Go and Rust): at worst
  // quadratic, never exponential: it finishes on texts of the size redaction sees per value.
  it("replacing every match of any generated pattern finishes", () => {
    fc.assert(
      fc.property(anchored, hostileText(2_000), (source, input) => {
        const re = compileUserPattern(source, "gu");
        const out = input.replace(re, "[REDACTED]");
        expect(out.includes("[REDACTED]")).toBe(compileUserPattern(source, "u").test(input));
      }),
      { numRuns: 60 },
    );
  }, HANG_LIMIT_MS);

  // RE2 and JavaScript agree on where the first match starts and whether there is one; they
  // may choose differently among several matches at one place (an empty repetition, say).
  it("on short inputs, where JavaScript's own engine is safe, both find a match at the same place", () => {
    fc.assert(
      fc.property(shallowAnchored, fc.stringMatching(/^[abc!]{0,6}$/), (source, input) => {
        expect(input.search(compileUserPattern(source))).toBe(input.search(new RegExp(source)));
        expect(compileUserPattern(source, "i").test(input.toUpperCase())).toBe(new RegExp(source, "i").test(input.toUpperCase()));
      }),
      { numRuns: 300 },
    );
  });

  it("refuses, rather than runs, what is not regular", () => {
    for (const source of ["(a)\\1", "(?=a)a", "(?<!a)b", "(?<=a)b", "(?!a)b"]) expect(() => compileUserPattern(source, "g")).toThrow(UnsafePattern);
  });
});
