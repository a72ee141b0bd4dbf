/**
 * The one classifier (src/engine/classifier.ts): the index must decide exactly as trying
 * every rule in order would, whatever fields the rules use (kind-less rules, statuses,
 * globs, headers, declared fields, causes); matcher-shadowed's candidate search must find
 * exactly the earliest covering rule a full scan finds; globs match in linear time.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classifyIndex, compileClassifier, compileConditions, compileGlob, globHolds, type ClassifierInput, type ClassifierRule, type HintSource } from "failbook-runtime/engine/classifier.js";
import { conditionsCover } from "failbook-runtime/engine/match.js";
import { firstCovering } from "../src/lint/rules/matcher-shadowed.js";

const KINDS = ["timeout", "conflict", "http_error"];
const CODES = ["E1", "E2", "ThrottlingException"];
const STATES = ["none", "unknown", "committed"];
const STATUS_MATCHERS: (number | string)[] = [408, 429, 500, 503, 599, 600, 999, "5xx", "4xx", "9xx", "500-503", "400-599", "599-500", "503"];
const HEADERS = ["x-should-retry", "Retry-After", "stripe-should-retry"];
const HEADER_VALUES = ["true", "false", "1", "0"];
/** What `retry_after: present` reads: OpenAI's headers, a field, a 0 hint as none. */
const HINTS: HintSource = { headers: [["retry-after-ms", true], ["retry-after", false]], fields: ["errno"], parse: "strict", zeroAbsent: true };
const FIELD_VALUES: (string | number | boolean)[] = ["insufficient_funds", "ECONNRESET", 1, 0, true, false, "1"];

const oneOrMore = <T>(arb: fc.Arbitrary<T>) => fc.array(arb, { minLength: 1, maxLength: 3 });
const text = (chars: string[], maxLength: number) => fc.array(fc.constantFrom(...chars), { maxLength }).map((cs) => cs.join(""));

/** A rule of one to three fields, so that random rules and errors meet. */
const conditionsArb = (depth: number): fc.Arbitrary<Omit<ClassifierRule, "verdict">> =>
  fc.tuple(allConditionsArb(depth), fc.shuffledSubarray(["kind", "http_status", "provider_code", "message_contains", "message_matches", "tool", "side_effect_state", "headers", "fields", "cause", "not", "retry_after"], { minLength: 1, maxLength: 3 })).map(
    ([all, keys]) => Object.fromEntries(keys.filter((k) => k in all).map((k) => [k, all[k as keyof typeof all]])),
  );

const allConditionsArb = (depth: number): fc.Arbitrary<Omit<ClassifierRule, "verdict">> =>
  fc.record(
    {
      kind: oneOrMore(fc.constantFrom(...KINDS)),
      http_status: oneOrMore(fc.constantFrom(...STATUS_MATCHERS)),
      provider_code: oneOrMore(fc.constantFrom(...CODES)),
      message_contains: oneOrMore(text(["a", "b", "A"], 4)),
      message_matches: oneOrMore(fc.constantFrom("^a", "b$", "/A+/i", "[")),
      tool: oneOrMore(fc.oneof(text(["a", "b", ".", "*", "?"], 4), fc.constantFrom("pay.refund", "pay.*"))),
      side_effect_state: oneOrMore(fc.constantFrom(...STATES)),
      headers: fc.dictionary(fc.constantFrom(...HEADERS), oneOrMore(fc.constantFrom(...HEADER_VALUES, "*")), { minKeys: 1, maxKeys: 2 }),
      fields: fc.dictionary(fc.constantFrom("decline_code", "errno", "retryable"), oneOrMore(fc.constantFrom(...FIELD_VALUES)), { minKeys: 1, maxKeys: 2 }),
      retry_after: fc.constant(HINTS),
      ...(depth < 2 ? { cause: conditionsArb(depth + 1) } : {}),
      ...(depth < 1 ? { not: conditionsArb(2) } : {}),
    },
    { requiredKeys: [] },
  );

const rulesArb = fc.array(
  conditionsArb(0).map((c) => c as ClassifierRule),
  { minLength: 1, maxLength: 40 },
).map((rules) => rules.map((r, i) => ({ ...r, verdict: `v${i % 7}` })));

const errorArb = (depth: number): fc.Arbitrary<ClassifierInput> =>
  fc.record(
    {
      kind: fc.constantFrom(...KINDS, "other"),
      message: text(["a", "b", "A", " "], 9),
      http_status: fc.oneof(fc.constantFrom(408, 429, 500, 503, 599, 600, 950, 503.5), fc.integer({ min: 100, max: 999 })),
      provider_code: fc.constantFrom(...CODES),
      side_effect_state: fc.constantFrom(...STATES),
      headers: fc.dictionary(fc.constantFrom(...HEADERS, "x-should-retry", "X-SHOULD-RETRY", "date"), fc.constantFrom(...HEADER_VALUES), { maxKeys: 3 }),
      fields: fc.dictionary(fc.constantFrom("decline_code", "errno", "retryable", "undeclared"), fc.constantFrom(...FIELD_VALUES), { maxKeys: 3 }),
      ...(depth < 3 ? { cause: errorArb(depth + 1) } : {}),
    },
    { requiredKeys: ["kind"] },
  );
const toolArb = fc.option(fc.oneof(text(["a", "b", "."], 5), fc.constantFrom("pay.refund", "pay.x")), { nil: undefined });

/** The semantics of SPEC 2.1 without an index: every rule in order. */
function scan(rules: readonly ClassifierRule[], error: ClassifierInput, tool: string | undefined): number {
  // One rule a registry: the index then has nothing to skip.
  return rules.findIndex((r) => classifyIndex(compileClassifier([r]), error, tool) !== null);
}

describe("the classifier index", () => {
  it("returns the first rule that holds, as a full scan does, on random rules and errors", () => {
    let matched = 0;
    fc.assert(
      fc.property(rulesArb, fc.array(fc.tuple(errorArb(0), toolArb), { minLength: 30, maxLength: 30 }), (rules, errors) => {
        const index = compileClassifier(rules);
        for (const [error, tool] of errors) {
          const expected = scan(rules, error, tool);
          const got = classifyIndex(index, error, tool);
          expect(got === null ? -1 : got.position, JSON.stringify({ rules, error, tool })).toBe(expected);
          if (expected >= 0) matched++;
        }
      }),
      { numRuns: 300, seed: 20261123 },
    );
    expect(matched).toBeGreaterThan(1000);
  });

  it("buckets kind-less rules by provider code and status, not into the residual list", () => {
    const rules: ClassifierRule[] = [];
    for (let i = 0; i < 3000; i++) rules.push({ verdict: `v${i}`, provider_code: [`P${i}`], http_status: [400 + (i % 100)] });
    rules.push({ verdict: "by_text", message_contains: ["boom"] });
    const index = compileClassifier(rules);
    expect(index.residual).toEqual([]);
    expect(index.bucketOf[3000]).toEqual(["text", ""]);
    expect(classifyIndex(index, { kind: "x", provider_code: "P2999", http_status: 499 }, undefined)?.verdict).toBe("v2999");
    expect(classifyIndex(index, { kind: "x", provider_code: "P2999", http_status: 400, message: "Boom" }, undefined)?.verdict).toBe("by_text");
  });

  it("scans a message for texts only when a text rule admits the error's kind, and always when one admits any kind", () => {
    // Many rules share the kind, so each is bucketed under its text.
    const shared = Array.from({ length: 20 }, (_, i): ClassifierRule => ({ verdict: `param_${i}`, kind: ["invalid_request"], message_contains: [`parameter p${i} `] }));
    const narrowed = compileClassifier([...shared, { verdict: "card", kind: ["invalid_request"], message_contains: ["card number"] }, { verdict: "other", kind: ["other"] }]);
    expect(narrowed.textKinds).toEqual(new Set(["invalid_request"]));
    const verdictOf = (index: typeof narrowed, kind: string) => classifyIndex(index, { kind, message: "Bad CARD NUMBER given" }, undefined)?.verdict ?? null;
    expect(verdictOf(narrowed, "invalid_request")).toBe("card");
    expect(verdictOf(narrowed, "other")).toBe("other");
    expect(verdictOf(narrowed, "api_error")).toBe(null);
    const open = compileClassifier([...shared, { verdict: "card", kind: ["invalid_request"], message_contains: ["card number"] }, { verdict: "any", message_contains: ["card number"] }]);
    expect(open.textKinds).toBe(null);
    expect(verdictOf(open, "invalid_request")).toBe("card");
    expect(verdictOf(open, "api_error")).toBe("any");
  });

  it("compares header names in any case and header values exactly; '*' is any value", () => {
    const index = compileClassifier([
      { verdict: "no_retry", headers: { "X-Should-Retry": ["false"] } },
      { verdict: "has_retry_after", headers: { "retry-after": ["*"] } },
    ]);
    const verdictOf = (headers: Record<string, string>) => classifyIndex(index, { kind: "k", headers }, undefined)?.verdict ?? null;
    expect(verdictOf({ "x-should-retry": "false" })).toBe("no_retry");
    expect(verdictOf({ "X-SHOULD-RETRY": "false", "Retry-After": "3" })).toBe("no_retry");
    expect(verdictOf({ "x-should-retry": "FALSE" })).toBe(null);
    expect(verdictOf({ "RETRY-AFTER": "" })).toBe("has_retry_after");
  });

  it("looks through causes, at most 8 deep", () => {
    const index = compileClassifier([{ verdict: "socket", cause: { fields: { errno: ["ECONNRESET"] } } }]);
    const nest = (depth: number): ClassifierInput => (depth === 0 ? { kind: "socket", fields: { errno: "ECONNRESET" } } : { kind: "wrapper", cause: nest(depth - 1) });
    expect(classifyIndex(index, nest(1), undefined)?.verdict).toBe("socket");
    expect(classifyIndex(index, nest(8), undefined)?.verdict).toBe("socket");
    expect(classifyIndex(index, nest(9), undefined)).toBe(null);
    const cyclic: { kind: string; cause?: unknown } = { kind: "loop" };
    cyclic.cause = cyclic;
    expect(classifyIndex(index, cyclic as ClassifierInput, undefined)).toBe(null);
  });

  it("not: holds when the inner rule does not, inner causes included (the AWS SDK stops at an AbortError)", () => {
    const index = compileClassifier([{ verdict: "transient", kind: ["network"], not: { cause: { kind: ["AbortError"] } } }]);
    expect(classifyIndex(index, { kind: "network" }, undefined)?.verdict).toBe("transient");
    expect(classifyIndex(index, { kind: "network", cause: { kind: "socket", cause: { kind: "AbortError" } } }, undefined)).toBe(null);
    expect(classifyIndex(index, { kind: "network", cause: { kind: "socket" } }, undefined)?.verdict).toBe("transient");
  });

  it.each<[string, ClassifierInput, boolean]>([
    ["a seconds header", { kind: "k", headers: { "Retry-After": "2" } }, true],
    ["an HTTP date, whatever the time", { kind: "k", headers: { "retry-after": "Wed, 21 Oct 2015 07:28:00 GMT" } }, true],
    ["a 0 hint under zero: absent", { kind: "k", headers: { "retry-after-ms": "0" } }, false],
    ["a 0 hint, then a readable header", { kind: "k", headers: { "retry-after-ms": "0", "retry-after": "1" } }, true],
    ["an unparseable value", { kind: "k", headers: { "retry-after": "soon" } }, false],
    ["a negative value", { kind: "k", headers: { "retry-after": "-1" } }, false],
    ["a header the policy does not list", { kind: "k", headers: { "x-ms-retry-after-ms": "100" } }, false],
    ["a listed numeric field", { kind: "k", fields: { errno: 250 } }, true],
    ["a listed field that is no number", { kind: "k", fields: { errno: "250" } }, false],
    ["no hint at all", { kind: "k" }, false],
  ])("retry_after: present with %s: %s", (_what, error, holds) => {
    const index = compileClassifier([{ verdict: "throttled", retry_after: HINTS }]);
    expect(classifyIndex(index, error, undefined) !== null).toBe(holds);
  });

  it("treats field values by type: 1 is not '1', true is not 'true'", () => {
    const index = compileClassifier([{ verdict: "one", fields: { code: [1] } }, { verdict: "yes", fields: { flag: [true] } }]);
    expect(classifyIndex(index, { kind: "k", fields: { code: 1 } }, undefined)?.verdict).toBe("one");
    expect(classifyIndex(index, { kind: "k", fields: { code: "1" } }, undefined)).toBe(null);
    expect(classifyIndex(index, { kind: "k", fields: { flag: "true" } }, undefined)).toBe(null);
  });

  it("indexes rules told apart by message text alone, and stays linear on a message that repeats itself", () => {
    const rules: ClassifierRule[] = [];
    for (let i = 0; i < 500; i++) rules.push({ verdict: `v${i}`, kind: ["invalid_request"], message_contains: [`parameter [E${i}] is invalid`] });
    rules.push({ verdict: "aaa", kind: ["invalid_request"], message_contains: ["aaab"] });
    const index = compileClassifier(rules);
    expect(index.kind.get("invalid_request") ?? []).toEqual([]);
    const verdictOf = (message: string) => classifyIndex(index, { kind: "invalid_request", message }, undefined)?.verdict ?? null;
    expect(verdictOf("The PARAMETER [E417] IS INVALID here")).toBe("v417");
    expect(verdictOf("parameter [E9999] is invalid")).toBe(null);
    const started = performance.now();
    expect(verdictOf("a".repeat(200_000))).toBe(null);
    expect(verdictOf(`${"a".repeat(200_000)}b`)).toBe("aaa");
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe("message texts beyond ASCII", () => {
  // The lookup folds ASCII capitals itself and lower-cases a message only when it holds other
  // characters (some of which change length when lower-cased, as İ does): the same first rule either way.
  it("classify as a full scan does when messages and texts hold accented, dotted and sharp letters", () => {
    const chars = ["a", "b", "A", "É", "é", "İ", "i", "ß", "Σ", " "];
    const textRules = fc.array(
      fc.record({ message_contains: oneOrMore(text(chars, 4).filter((t) => t.length >= 3)) }, { requiredKeys: ["message_contains"] }),
      { minLength: 1, maxLength: 20 },
    ).map((rules) => rules.map((r, i): ClassifierRule => ({ ...r, verdict: `v${i}` })));
    let matched = 0;
    fc.assert(
      fc.property(textRules, fc.array(text(chars, 12), { minLength: 20, maxLength: 20 }), (rules, messages) => {
        const index = compileClassifier(rules);
        for (const message of messages) {
          const expected = scan(rules, { kind: "x", message }, undefined);
          const got = classifyIndex(index, { kind: "x", message }, undefined);
          expect(got === null ? -1 : got.position, JSON.stringify({ rules, message })).toBe(expected);
          if (expected >= 0) matched++;
        }
      }),
      { numRuns: 300, seed: 20261124 },
    );
    expect(matched).toBeGreaterThan(300);
  });
});

describe("matcher-shadowed's candidate search", () => {
  it("finds the earliest covering rule a comparison with every earlier rule finds", () => {
    let found = 0;
    fc.assert(
      fc.property(rulesArb, (rules) => {
        const index = compileClassifier(rules);
        for (const rule of index.rules) {
          const brute = index.rules.slice(0, rule.position).find((a) => conditionsCover(a.test, rule.test));
          expect(firstCovering(index, rule)?.position, JSON.stringify(rules)).toBe(brute?.position);
          if (brute) found++;
        }
      }),
      { numRuns: 400, seed: 7 },
    );
    expect(found).toBeGreaterThan(100);
  });

  it("is sound with headers, declared fields and causes: a rule that covers another holds for every error the other holds for", () => {
    const holds = (rule: Omit<ClassifierRule, "verdict">, error: ClassifierInput, tool: string | undefined) => classifyIndex(compileClassifier([{ ...rule, verdict: "v" }]), error, tool) !== null;
    // b drawn from a plus more fields, or from a's own values: so that covering pairs occur.
    const pairArb = fc.oneof(
      fc.tuple(conditionsArb(0), conditionsArb(0)),
      fc.tuple(conditionsArb(0), conditionsArb(0)).map(([a, extra]) => [a, { ...extra, ...a }] as const),
    );
    let covered = 0;
    let matched = 0;
    fc.assert(
      fc.property(pairArb, fc.array(fc.tuple(errorArb(0), toolArb), { minLength: 40, maxLength: 40 }), ([a, b], errors) => {
        if (!conditionsCover(compileConditions(a as ClassifierRule), compileConditions(b as ClassifierRule))) return;
        covered++;
        for (const [error, tool] of errors) {
          if (!holds(b, error, tool)) continue;
          matched++;
          expect(holds(a, error, tool), JSON.stringify({ a, b, error, tool })).toBe(true);
        }
      }),
      { numRuns: 1500, seed: 12 },
    );
    expect(covered).toBeGreaterThan(300);
    expect(matched).toBeGreaterThan(50);
  });

  it("also when rules repeat, so that most rules are covered", () => {
    const arb = fc.array(conditionsArb(1), { minLength: 2, maxLength: 6 }).chain((pool) =>
      fc.array(fc.constantFrom(...pool), { minLength: 5, maxLength: 30 }).map((rules) => rules.map((r, i) => ({ ...r, verdict: `v${i}` }) as ClassifierRule)),
    );
    fc.assert(
      fc.property(arb, (rules) => {
        const index = compileClassifier(rules);
        for (const rule of index.rules) {
          const brute = index.rules.slice(0, rule.position).find((a) => conditionsCover(a.test, rule.test));
          expect(firstCovering(index, rule)?.position).toBe(brute?.position);
        }
      }),
      { numRuns: 200, seed: 11 },
    );
  });

  it("takes no regular expression to cover another rule", () => {
    expect(conditionsCover(compileConditions({ message_matches: [".*"] }), compileConditions({ message_matches: [".*"] }))).toBe(false);
    expect(conditionsCover(compileConditions({ kind: ["a"] }), compileConditions({ kind: ["a"], message_matches: ["x"] }))).toBe(true);
  });
});

describe("globs", () => {
  /** The glob as the regular expression it means: `*` any run, `?` one UTF-16 unit. */
  const reference = (glob: string, textIn: string) =>
    new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[\\s\\S]*").replace(/\?/g, "[\\s\\S]")}$`).test(textIn);

  it("match as the equivalent regular expression does", () => {
    fc.assert(
      fc.property(text(["a", "b", "*", "?", "."], 7), text(["a", "b", ".", "\n"], 9), (glob, t) => {
        expect(globHolds(compileGlob(glob), t), JSON.stringify({ glob, t })).toBe(reference(glob, t));
      }),
      { numRuns: 5000, seed: 3 },
    );
  });

  it("never backtrack: a glob built to explode a backtracking matcher runs in linear time", () => {
    const glob = compileGlob(`${"*a".repeat(30)}*b`);
    const started = performance.now();
    for (let i = 0; i < 100; i++) expect(globHolds(glob, "a".repeat(5000))).toBe(false);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
