/** The one sanitiser: what it escapes, per layout, and what it leaves alone. */
import { describe, expect, it } from "vitest";
import { inert, inertJson, inertOutput, inertValue } from "failbook-runtime/util/inert.js";

describe("inert", () => {
  it.each([
    ["plain text stays", "retry with the same key", "retry with the same key"],
    ["C0 but tab", "a\u0000b\u0007c\u001bd\te", "a\\u{0}b\\u{7}c\\u{1b}d\te"],
    ["CR and LF on a line", "a\r\nb", "a\\u{d}\\u{a}b"],
    ["DEL and C1", "a\u007fb\u0085c\u009bd", "a\\u{7f}b\\u{85}c\\u{9b}d"],
    ["bidi embeddings, overrides, isolates", "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069", "\\u{202a}\\u{202b}\\u{202c}\\u{202d}\\u{202e}\\u{2066}\\u{2067}\\u{2068}\\u{2069}"],
    ["line and paragraph separators", "a\u2028b\u2029c", "a\\u{2028}b\\u{2029}c"],
    ["other Unicode stays", "café 😀 שלום", "café 😀 שלום"],
  ])("%s", (_name, input, output) => {
    expect(inert(input)).toBe(output);
  });

  it("keeps line feeds in text layout, and nothing else", () => {
    expect(inert("a\nb\r\nc\u001b", "text")).toBe("a\nb\\u{d}\nc\\u{1b}");
  });

  it("is idempotent", () => {
    const once = inert("\u001b[31m\u202e\nx");
    expect(inert(once)).toBe(once);
  });

  it("inertValue returns the very same value when everything is clean, a copy otherwise", () => {
    const clean = { a: ["x", { b: "y" }], n: 1 };
    expect(inertValue(clean)).toBe(clean);
    expect(inertValue({ a: ["x", { b: "y\u0007" }] })).toEqual({ a: ["x", { b: "y\\u{7}" }] });
  });

  it("inertJson: the same value for a JSON reader, no raw control or bidi character for a terminal", () => {
    const value = { m: "a\u202eb\u0085c\u2028d\u001be" };
    const text = inertJson(value, 2);
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u);
    expect(JSON.parse(text)).toEqual(value);
  });

  it("inertOutput keeps the printer's colours only when colour is on", () => {
    const text = "\u001b[31mred\u001b[39m \u0007 \u001b]0;title\u0007";
    expect(inertOutput(text, true)).toBe("\u001b[31mred\u001b[39m \\u{7} \\u{1b}]0;title\\u{7}");
    expect(inertOutput(text, false)).toBe("\\u{1b}[31mred\\u{1b}[39m \\u{7} \\u{1b}]0;title\\u{7}");
  });
});
