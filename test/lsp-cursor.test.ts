/**
 * The language server's reading of a position in YAML (src/lsp/cursor.ts): the path, key or
 * value, and the scalar there, on text that parses and on text that is half typed. `|`
 * marks the position in each case.
 */
import { describe, expect, it } from "vitest";
import { cursorAt, nodeExtent } from "../src/lsp/cursor.js";

const cases: { name: string; text: string; path: (string | number)[]; on: "key" | "value"; word?: string }[] = [
  { name: "a top-level value", text: "fallback: unk|nown_error\n", path: ["fallback"], on: "value", word: "unknown_error" },
  { name: "a top-level key", text: "fall|back: x\n", path: ["fallback"], on: "key", word: "fallback" },
  {
    name: "a key of the second item of a block sequence",
    text: "verdicts:\n  - code: a\n    class: x\n    match:\n      - { kind: t }\n  - code: b\n    cl|ass: y\n",
    path: ["verdicts", 1, "class"],
    on: "key",
    word: "class",
  },
  { name: "a compact sequence", text: "verdicts:\n- code: a\n- code: |b\n", path: ["verdicts", 1, "code"], on: "value", word: "b" },
  { name: "a value in a flow mapping item", text: "verdicts:\n  - { code: a, class: tra|nsient, retryable: true }\n", path: ["verdicts", 0, "class"], on: "value", word: "transient" },
  { name: "a key in a flow mapping", text: "x:\n  backoff: { strategy: exponential, ba|se_ms: 2 }\n", path: ["x", "backoff", "base_ms"], on: "key", word: "base_ms" },
  { name: "an item of a flow sequence", text: "a:\n  backoff_ms: [200, 6|00]\n", path: ["a", "backoff_ms", 1], on: "value", word: "600" },
  { name: "a playbook entry's key", text: "verdicts:\n  # why\n  transient_timeout:\n    action: retry\n  rate_lim|ited:\n    action: fail\n", path: ["verdicts", "rate_limited"], on: "key", word: "rate_limited" },
  { name: "a value below a comment and a blank line", text: "verdicts:\n  a:\n\n    # note\n    action: esc|alate_to_human\n", path: ["verdicts", "a", "action"], on: "value", word: "escalate_to_human" },
  { name: "an empty line where a key goes", text: "verdicts:\n  a:\n    action: fail\n    |\n", path: ["verdicts", "a", ""], on: "key" },
  { name: "a half-typed key", text: "verdicts:\n  a:\n    action: fail\n    mess|\n", path: ["verdicts", "a", "mess"], on: "key", word: "mess" },
  { name: "a value after the colon, not typed yet", text: "throttle:\n  class: |\n", path: ["throttle", "class"], on: "value" },
  { name: "a quoted value", text: "expect:\n  verdict: 'tran|sient_timeout'\n", path: ["expect", "verdict"], on: "value", word: "transient_timeout" },
  { name: "a nested event in a fixture's expect", text: "expect:\n  events:\n    - { t: 0, type: attempt }\n    - { t: 5, verdict: rate_li|mited }\n", path: ["expect", "events", 1, "verdict"], on: "value", word: "rate_limited" },
  { name: "the second document of a stream", text: "name: a\n---\nname: b\ncall:\n  tool: cr|m\n", path: ["call", "tool"], on: "value", word: "crm" },
  { name: "a line of a block scalar", text: "verdicts:\n  - code: a\n    cause: >-\n      The remote sys|tem\n", path: ["verdicts", 0, "cause"], on: "value" },
];

describe("cursorAt", () => {
  for (const c of cases) {
    it(c.name, () => {
      const offset = c.text.indexOf("|");
      const text = c.text.replace("|", "");
      const cursor = cursorAt(text, offset);
      expect(cursor.path).toEqual(c.path);
      expect(cursor.on).toBe(c.on);
      if (c.word !== undefined) expect(cursor.word?.text).toBe(c.word);
    });
  }
});

describe("nodeExtent", () => {
  it.each([
    ["a plain value", "a: |payments.declined # why\n", "payments.declined"],
    ["a quoted value, quotes included", "a: |'x y'\n", "'x y'"],
    ["a key", "|transient_timeout:\n", "transient_timeout"],
    ["a flow mapping", "- |{ code: a, class: b }\n", "{ code: a, class: b }"],
    ["a value in a flow mapping", "- { code: |a, class: b }\n", "a"],
  ])("%s", (_name, marked, expected) => {
    const offset = marked.indexOf("|");
    const text = marked.replace("|", "");
    const { start, end } = nodeExtent(text, offset);
    expect(text.slice(start, end)).toBe(expected);
  });
});
