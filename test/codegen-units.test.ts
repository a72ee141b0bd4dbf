/** The pieces of the TypeScript emitter: escaping, identifiers from codes, details schemas -> types. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { schemaToType } from "../src/codegen/details.js";
import { commentSafe, jsDoc, tsString } from "../src/codegen/escape.js";
import { assignVerdictNames, isSafeIdentifier } from "../src/codegen/identifiers.js";
import { FIXED_NAMES } from "../src/codegen/runtime.js";

describe("tsString", () => {
  it.each([
    ["quotes", `"double" and 'single'`],
    ["a backtick template", "`${globalThis.x = 1}`"],
    ["separators", "a\u2028b\u2029c"],
    ["a script close", "</script><script>alert(1)</script>"],
    ["an HTML comment", "<!-- x -->"],
    ["control characters and a lone surrogate", "\u0000\b\r\n\t\ud800"],
    ["a backslash", "C:\\path\\n"],
  ])("keeps %s exactly and leaves nothing that could end or open code", (_what, text) => {
    const literal = tsString(text);
    expect(JSON.parse(literal)).toBe(text);
    expect(literal).not.toMatch(/[\u2028\u2029`\n\r]|\$\{|<\/script|<!--/i);
  });
});

describe("comments", () => {
  it.each([
    ["a comment end", "*/ export const pwned = 1; /*"],
    ["a JSDoc tag at a line start", "\n@deprecated not really"],
    ["a tag after asterisks", " * @param x"],
    ["a tag mid-line", "see @returns this"],
    ["an inline tag", "{@link pwned}"],
    ["separators", "one\u2028two\u2029three\rfour"],
    ["a script close", "</SCRIPT>"],
  ])("jsDoc makes %s inert", (_what, text) => {
    const doc = jsDoc([text]);
    const body = doc.replace(/^\/\*\*/, "").replace(/\*\/\n$/, "");
    expect(body).not.toContain("*/");
    expect(body).not.toMatch(/[\u2028\u2029\r]/);
    expect(body).not.toMatch(/(^|[\s*{])@/);
    expect(body).not.toMatch(/<\/script/i);
  });

  it("keeps an e-mail address readable", () => {
    expect(commentSafe("mail oncall@example.com")).toBe("mail oncall@example.com");
  });
});

describe("identifiers from codes", () => {
  it.each([
    { codes: ["transient_timeout"], code: "transient_timeout", detailsType: "TransientTimeoutDetails", constructor: "transientTimeoutEnvelope" },
    { codes: ["server_error_5xx"], code: "server_error_5xx", detailsType: "ServerError5xxDetails", constructor: "serverError5xxEnvelope" },
    { codes: ["delete"], code: "delete", detailsType: "DeleteDetails", constructor: "deleteEnvelope" },
    { codes: ["403_forbidden"], code: "403_forbidden", detailsType: "V403ForbiddenDetails", constructor: "v403ForbiddenEnvelope" },
    { codes: ["..."], code: "...", detailsType: "VerdictDetails", constructor: "verdictEnvelope" },
  ])("$code -> $detailsType, $constructor", ({ codes, code, detailsType, constructor }) => {
    expect(assignVerdictNames(codes, FIXED_NAMES).get(code)).toMatchObject({ detailsType, constructor });
  });

  it.each([
    { what: "codes that differ only by separators", codes: ["net.timeout", "net_timeout", "net-timeout"] },
    { what: "codes that differ only by case", codes: ["net.timeout", "Net.Timeout"] },
    { what: "a code whose name a fixed export takes", codes: ["make"] },
  ])("gives $what distinct, hashed names", ({ codes }) => {
    const names = assignVerdictNames(codes, FIXED_NAMES);
    const constructors = codes.map((c) => names.get(c)!.constructor);
    expect(new Set(constructors).size).toBe(codes.length);
    for (const c of constructors) expect(c).toMatch(/_[0-9a-f]{8}Envelope$/);
    expect(constructors).not.toContain("makeEnvelope");
  });

  it("gives any set of codes unique, valid names, and never moves a name to another code", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 12 }), fc.string({ minLength: 1, maxLength: 6 }), (codes, extra) => {
        const names = assignVerdictNames(codes, FIXED_NAMES);
        const all = [...names.values()].flatMap((n) => [n.detailsType, n.constructor]);
        expect(new Set(all).size).toBe(all.length);
        for (const n of all) expect(isSafeIdentifier(n) && !FIXED_NAMES.has(n)).toBe(true);
        if (codes.includes(extra)) return;
        const more = assignVerdictNames([...codes, extra], FIXED_NAMES);
        const owner = new Map([...more].map(([code, n]) => [n.constructor, code]));
        for (const [code, n] of names) expect(owner.get(n.constructor) ?? code).toBe(code);
      }),
      { numRuns: 300, seed: 1 },
    );
  });
});

describe("details schema -> type", () => {
  const flat = (t: string) => t.replace(/\s+/g, " ");
  it.each([
    [{ type: "string" }, "string"],
    [{ type: "integer" }, "number"],
    [{ type: ["string", "null"] }, "null | string"],
    [{ type: "string", nullable: true }, "null | string"],
    [{ enum: ["b", "a", 1, null] }, '"a" | "b" | 1 | null'],
    [{ const: "x" }, '"x"'],
    [{ type: "array", items: { enum: ["a", "b"] } }, 'Array<"a" | "b">'],
    [{ type: "array", items: [{ type: "string" }, { type: "number" }], additionalItems: false }, "[string, number]"],
    [{ type: "array" }, "Array<unknown>"],
    [{ type: "object", additionalProperties: false }, "Record<string, never>"],
    [{ type: "object" }, "{ [key: string]: unknown; }"],
    [{ type: "object", properties: { b: { type: "string" }, a: { type: "number" } }, required: ["a"], additionalProperties: false }, "{ a: number; b?: string; }"],
    [{ type: "object", properties: { "not-an-identifier": { type: "string" } }, required: ["not-an-identifier"], additionalProperties: false }, '{ "not-an-identifier": string; }'],
    [{ type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: { type: "integer" } }, "{ a: string; [key: string]: number | string; }"],
    [{ type: "object", properties: { o: { type: "object", properties: { x: { type: "boolean" } }, required: ["x"], additionalProperties: false } }, required: ["o"], additionalProperties: false }, "{ o: { x: boolean; }; }"],
    [{ anyOf: [{ type: "string" }, { enum: [1, 2] }] }, "1 | 2 | string"],
    [{ allOf: [{ enum: ["a", "b"] }, { anyOf: [{ const: "a" }, { type: "number" }] }] }, '("a" | "b") & ("a" | number)'],
    [{ $ref: "#/definitions/x" }, "unknown"],
    [{}, "unknown"],
    [true, "unknown"],
    [false, "never"],
  ])("%j -> %s", (schema, expected) => {
    expect(flat(schemaToType(schema))).toBe(expected);
  });

  it("documents a property with its escaped description", () => {
    const t = schemaToType({ type: "object", properties: { a: { type: "string", description: "*/ export const x = 1" } }, additionalProperties: false });
    expect(t).toContain("/** *\\/ export const x = 1 */");
  });
});
