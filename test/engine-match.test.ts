import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { globCovers, globMatches, ruleCovers, ruleMatches, statusMatches } from "failbook-runtime/engine/match.js";
import type { AdapterError } from "failbook-runtime/model/fixture.js";
import type { MatchRule, SideEffectState, StatusMatcher } from "failbook-runtime/model/registry.js";

// Small alphabets, so that random rules and errors actually meet.
const KINDS = ["timeout", "conflict", "refused"];
const CODES = ["E1", "E2"];
const STATES: SideEffectState[] = ["none", "unknown", "committed"];
// Statuses outside the HTTP range too: a library user may build rules without the schema.
const STATUSES = [99, 100, 404, 409, 429, 499, 500, 503, 509, 510, 599, 600, 700, 1000];
const MATCHERS: StatusMatcher[] = [...STATUSES, "4xx", "5xx", "1xx", "500-509", "510-599", "500-599", "503-503", "599-500", "099", "503", "409"];

const oneOrMany = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | T[]> => fc.oneof(arb, fc.array(arb, { minLength: 1, maxLength: 3 }));
const text = (chars: string[], maxLength: number) => fc.array(fc.constantFrom(...chars), { maxLength }).map((cs) => cs.join(""));

const FIELDS = ["kind", "http_status", "provider_code", "message_contains", "tool", "side_effect_state"] as const;
const ruleFields = {
  kind: oneOrMany(fc.constantFrom(...KINDS)),
  http_status: oneOrMany(fc.constantFrom(...MATCHERS)),
  provider_code: oneOrMany(fc.constantFrom(...CODES)),
  message_contains: oneOrMany(text(["a", "b", "A"], 3)),
  tool: oneOrMany(text(["a", "b", ".", "*", "?"], 4)),
  side_effect_state: oneOrMany(fc.constantFrom(...STATES)),
};
const ruleArb: fc.Arbitrary<MatchRule> = fc.record(ruleFields, { requiredKeys: [] });
const fullRuleArb: fc.Arbitrary<Required<MatchRule>> = fc.record(ruleFields);

const errorArb: fc.Arbitrary<{ error: AdapterError; tool: string | undefined }> = fc.record({
  error: fc.record(
    {
      kind: fc.constantFrom(...KINDS),
      message: text(["a", "b", "A", "B", " "], 5),
      http_status: fc.oneof(fc.constantFrom(...STATUSES), fc.integer({ min: 0, max: 1100 })),
      provider_code: fc.constantFrom(...CODES),
      side_effect_state: fc.constantFrom(...STATES),
    },
    { requiredKeys: ["kind"] },
  ),
  tool: fc.option(text(["a", "b", ".", "*"], 4), { nil: undefined }),
});

/** An error that `b` matches, when b's first values allow one; random fields elsewhere. */
const matching = (b: MatchRule) =>
  errorArb.map(({ error, tool }) => {
    const first = <T>(v: T | T[] | undefined, otherwise: T): T => (v === undefined ? otherwise : Array.isArray(v) ? v[0] : v);
    const status = first(b.http_status, error.http_status ?? 500);
    const message = first(b.message_contains, "");
    return {
      error: {
        ...error,
        kind: first(b.kind, error.kind),
        provider_code: first(b.provider_code, error.provider_code ?? "E1"),
        side_effect_state: first(b.side_effect_state, error.side_effect_state ?? "none"),
        http_status: typeof status === "number" ? status : Number(status.replace("xx", "03").slice(0, 3)),
        message: `${error.message ?? ""}${message}${error.message ?? ""}`,
      },
      tool: b.tool === undefined ? tool : first(b.tool, "").replace(/\*/g, "ab").replace(/\?/g, "."),
    };
  });

/** A rule that matches no more than `a` does: every list cut to its first value, texts made longer, globs narrower. */
function narrowed(a: MatchRule): MatchRule {
  const first = <T>(v: T | T[]): T => (Array.isArray(v) ? v[0] : v);
  const out: MatchRule = {};
  if (a.kind !== undefined) out.kind = first(a.kind);
  if (a.provider_code !== undefined) out.provider_code = first(a.provider_code);
  if (a.side_effect_state !== undefined) out.side_effect_state = first(a.side_effect_state);
  if (a.http_status !== undefined) out.http_status = first(a.http_status);
  if (a.message_contains !== undefined) out.message_contains = `b${first(a.message_contains)}A`;
  if (a.tool !== undefined) out.tool = first(a.tool).replace("*", "a*b");
  return out;
}

/** Independent rules rarely cover each other; a rule narrowed or given more fields is covered. */
const pairArb: fc.Arbitrary<[MatchRule, MatchRule]> = fc.oneof(
  fc.tuple(ruleArb, ruleArb),
  fc.tuple(ruleArb, ruleArb).map(([a, extra]): [MatchRule, MatchRule] => [a, { ...extra, ...a }]),
  fc.tuple(ruleArb, ruleArb).map(([a, extra]): [MatchRule, MatchRule] => [a, { ...extra, ...narrowed(a) }]),
  // The same rule but for one field: where a coverage check on that field alone decides.
  fc
    .tuple(ruleArb, fullRuleArb, fc.constantFrom(...FIELDS))
    .map(([a, other, field]): [MatchRule, MatchRule] => [{ ...a, [field]: a[field] ?? other[field] }, { ...a, [field]: other[field] }]),
);

describe("ruleCovers", () => {
  it("is sound: when a covers b, a matches every error b matches", () => {
    let covered = 0;
    let matched = 0;
    fc.assert(
      fc.property(
        pairArb.chain(([a, b]) => fc.tuple(fc.constant(a), fc.constant(b), fc.array(fc.oneof(errorArb, matching(b)), { minLength: 20, maxLength: 20 }))),
        ([a, b, errors]) => {
          if (!ruleCovers(a, b)) return;
          covered++;
          for (const { error, tool } of errors) {
            if (!ruleMatches(b, error, tool)) continue;
            matched++;
            expect(ruleMatches(a, error, tool), JSON.stringify({ a, b, error, tool })).toBe(true);
          }
        },
      ),
      { numRuns: 4000 },
    );
    // The property is only worth something when covering pairs and matching errors occur.
    expect(covered).toBeGreaterThan(1000);
    expect(matched).toBeGreaterThan(5000);
  });

  it.each<{ a: MatchRule; b: MatchRule; covers: boolean; why: string }>([
    { a: { kind: "timeout" }, b: { kind: "timeout", http_status: 504 }, covers: true, why: "a field only the later rule has narrows it" },
    { a: { kind: "timeout", http_status: 504 }, b: { kind: "timeout" }, covers: false, why: "a field only the earlier rule has narrows the earlier" },
    { a: { kind: ["timeout", "refused"] }, b: { kind: "timeout" }, covers: true, why: "a list holds any of its values" },
    { a: { kind: "timeout" }, b: { kind: ["timeout", "refused"] }, covers: false, why: "the later list has a value the earlier lacks" },
    { a: { http_status: "5xx" }, b: { http_status: 503 }, covers: true, why: "a class covers its statuses" },
    { a: { http_status: "500-599" }, b: { http_status: "5xx" }, covers: true, why: "a range covers the class it spans" },
    { a: { http_status: ["500-509", "510-599"] }, b: { http_status: "5xx" }, covers: true, why: "touching ranges cover together" },
    { a: { http_status: "500-598" }, b: { http_status: "5xx" }, covers: false, why: "599 is left out" },
    { a: { http_status: "500-599" }, b: { http_status: 600 }, covers: false, why: "a status outside the HTTP range is not covered" },
    { a: { http_status: "100-599" }, b: { http_status: "099" }, covers: false, why: "a string status below 100" },
    { a: { tool: "payments.*" }, b: { tool: "payments.refund*" }, covers: true, why: "a wider glob" },
    { a: { tool: "payments.refund*" }, b: { tool: "payments.*" }, covers: false, why: "a narrower glob" },
    { a: { tool: "*.refund" }, b: { tool: "pay?.refund" }, covers: true, why: "a star absorbs a question mark" },
    { a: { tool: "pay?.refund" }, b: { tool: "pay*.refund" }, covers: false, why: "a question mark cannot absorb a star" },
    { a: { message_contains: "idem" }, b: { message_contains: "IDEMPOTENCY key" }, covers: true, why: "a substring, case-insensitively" },
    { a: { message_contains: "idempotency" }, b: { message_contains: "idem" }, covers: false, why: "a longer text" },
    { a: { message_contains: "" }, b: { kind: "timeout" }, covers: true, why: "the empty text is in every message" },
  ])("$why", ({ a, b, covers }) => {
    expect(ruleCovers(a, b)).toBe(covers);
  });
});

describe("globCovers", () => {
  it("is sound: when glob a covers glob b, a matches every text b matches", () => {
    const glob = text(["a", "b", "*", "?"], 5);
    fc.assert(
      fc.property(glob, glob, fc.array(text(["a", "b"], 6), { minLength: 30, maxLength: 30 }), (a, b, texts) => {
        if (!globCovers(a, b)) return;
        for (const t of texts) if (globMatches(b, t)) expect(globMatches(a, t), JSON.stringify({ a, b, t })).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});

describe("statusMatches", () => {
  it.each<{ m: StatusMatcher; status: number | undefined; matches: boolean }>([
    { m: 503, status: 503, matches: true },
    { m: "503", status: 503, matches: true },
    { m: "5xx", status: 599, matches: true },
    { m: "5xx", status: 600, matches: false },
    { m: "500-599", status: 500, matches: true },
    { m: "599-500", status: 550, matches: false },
    { m: "5xx", status: 503.5, matches: false },
    { m: 503, status: undefined, matches: false },
  ])("$m against $status is $matches", ({ m, status, matches }) => {
    expect(statusMatches(m, status)).toBe(matches);
  });
});
