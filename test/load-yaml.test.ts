import { describe, expect, it } from "vitest";
import { parseYaml } from "../src/load/yaml.js";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const SRC = [
  "# a comment", //                                  1
  "registry: x", //                                  2
  "verdicts:", //                                    3
  "  - code: a   # trailing", //                     4
  "    match:", //                                   5
  "      - kind: timeout", //                        6
  "      - { kind: [a, b], http_status: 5xx }", //   7
  "  - code: b", //                                  8
  "    summary: >", //                               9
  "      folded", //                                 10
  "empty:", //                                       11
].join("\n");

describe("located YAML", () => {
  const doc = parseYaml("f.yaml", SRC).documents[0];

  it.each([
    { path: [], line: 2, column: 1 },
    { path: ["registry"], line: 2, column: 11 },
    { path: ["verdicts", 0], line: 4, column: 5 },
    { path: ["verdicts", 0, "code"], line: 4, column: 11 },
    { path: ["verdicts", 0, "match", 0, "kind"], line: 6, column: 15 },
    { path: ["verdicts", 0, "match", 1, "kind", 1], line: 7, column: 21 },
    { path: ["verdicts", 0, "match", 1, "http_status"], line: 7, column: 38 },
    { path: ["verdicts", 1, "summary"], line: 9, column: 14 },
  ])("locates the value at $path", ({ path, line, column }) => {
    expect(doc.locate(path)).toEqual({ file: "f.yaml", line, column });
  });

  // Editors show neither a byte order mark nor the CR of a CRLF line end as a column.
  it.each([
    { name: "a BOM", text: "\ufeff" + SRC },
    { name: "CRLF line ends", text: SRC.replace(/\n/g, "\r\n") },
    { name: "both", text: "\ufeff" + SRC.replace(/\n/g, "\r\n") },
  ])("positions stay the same with $name", ({ text }) => {
    const other = parseYaml("f.yaml", text);
    expect(other.text).toBe(text);
    for (const path of [["registry"], ["verdicts", 0, "code"], ["verdicts", 0, "match", 1, "http_status"], ["verdicts", 1, "summary"]]) {
      expect(other.documents[0].locate(path)).toEqual(doc.locate(path));
    }
    expect(parseYaml("f.yaml", text.replace("registry: x", "registry: [x")).error).toMatchObject(parseYaml("f.yaml", SRC.replace("registry: x", "registry: [x")).error ?? {});
  });

  it.each([
    { path: ["verdicts"], line: 3, column: 1 },
    { path: ["verdicts", 0, "match", 1, "http_status"], line: 7, column: 25 },
    { path: ["verdicts", 1, "summary"], line: 9, column: 5 },
  ])("locates the key at $path", ({ path, line, column }) => {
    expect(doc.locate(path, "key")).toEqual({ file: "f.yaml", line, column });
  });

  it("falls back to the nearest existing ancestor for a missing node", () => {
    expect(doc.has(["verdicts", 1, "recovery"])).toBe(false);
    expect(doc.locate(["verdicts", 1, "recovery"])).toEqual({ file: "f.yaml", line: 8, column: 5 });
  });

  it("keeps each document of a multi-document stream apart", () => {
    const docs = parseYaml("m.yaml", "---\nname: one\n---\nname: two\nx: [1]\n").documents;
    expect(docs.map((d) => d.value)).toEqual([{ name: "one" }, { name: "two", x: [1] }]);
    expect(docs[1].locate(["x", 0])).toEqual({ file: "m.yaml", line: 5, column: 5 });
  });

  it.each([
    { text: "a: 1\nb:\n  c: 2\n  c: 3\n", message: "duplicate key 'c'", line: 4, column: 3 },
    { text: 'k: "unterminated\n', message: "double-quoted string opened here is never closed", line: 1, column: 4 },
    { text: "a: 'it''s'\nk: 'unterminated ''quote''\n", message: "single-quoted string opened here is never closed", line: 2, column: 4 },
    { text: "a: [1, 2\n", message: "a flow list '[' opened here is never closed; add the closing ']'", line: 1, column: 4 },
    { text: "a: 1\u0000\n", message: "binary", line: 1, column: 5 },
  ])("reports $message at $line:$column", ({ text, message, line, column }) => {
    const source = parseYaml("bad.yaml", text);
    expect(source.documents).toEqual([]);
    expect(source.error?.message).toContain(message);
    expect(source.error).toMatchObject({ line, column });
  });

  // A registry as people write it: the mistakes below are made on one line of it.
  const REGISTRY = [
    "apiVersion: failbook/v1", // 1
    "kind: Registry",
    "name: shop",
    "revision: 1",
    "classes:", // 5
    "  transient:",
    "    description: may pass",
    "    max_retries: 3",
    "  permanent:",
    "    description: will not", // 10
    "verdicts:",
    "  - code: rate_limited",
    "    class: transient",
    "    retryable: true",
    "    summary: slow down", // 15
    "    match:",
    "      - kind: 429_rate_limited",
    "  - code: card_declined",
    "    class: permanent",
    "    retryable: false", // 20
    "    summary: the card was refused",
    "  - code: write_committed", // 22
    "    class: permanent",
    "    retryable: false",
    "    backoff_hint_ms: [1000, 3000]", // 25
    "fallback: card_declined",
    "",
  ];
  const edit = (line: number, to: string) => REGISTRY.map((l, i) => (i === line - 1 ? to : l)).join("\n");

  it.each([
    { what: "the first list item indented one space too far (reported a line late)", text: edit(12, "   - code: rate_limited"), line: 12, column: 4, message: "indented 3 spaces where its block takes 2; indent it to 2" },
    { what: "a later list item indented one space too far", text: edit(22, "   - code: write_committed"), line: 22, column: 4, message: "indent it to 2" },
    { what: "a key indented one space too far", text: edit(23, "     class: permanent"), line: 23, column: 6, message: "indent it to 4" },
    { what: "a key indented one space short", text: edit(24, "   retryable: false"), line: 24, column: 4, message: "indent it to 4" },
    { what: "a class pulled out to column 0 (reported three lines late)", text: edit(6, "transient:"), line: 6, column: 1, message: "indented 0 spaces, which leaves 'classes:' above it empty; indent it to 2" },
    { what: "an unclosed [ (reported on the next line)", text: edit(25, "    backoff_hint_ms: [1000, 3000"), line: 25, column: 22, message: "a flow list '[' opened here is never closed; add the closing ']' at the end of the line" },
    { what: "an unclosed [ before a comment", text: edit(25, "    backoff_hint_ms: [1000, 3000   # ms"), line: 25, column: 22, message: "never closed" },
    { what: "an unclosed { on the last line", text: edit(26, "fallback: { code: card_declined"), line: 26, column: 11, message: "a flow mapping '{' opened here is never closed; add the closing '}'" },
  ])("points at the line of the mistake: $what", ({ text, line, column, message }) => {
    for (const jsYamlOnly of [false, true]) {
      const source = parseYaml("registry.yaml", text, { jsYamlOnly });
      expect(source.documents).toEqual([]);
      expect(source.error).toMatchObject({ line, column });
      expect(source.error?.message).toContain(message);
    }
  });

  it("keeps the parser's position when no one-line repair explains the error", () => {
    const text = edit(22, "   - code: write_committed").replace("    class: transient", "   class: transient\n      x: [1");
    const source = parseYaml("registry.yaml", text);
    expect(source.error).toBeDefined();
    expect(parseYaml("registry.yaml", text, { jsYamlOnly: true }).error).toEqual(source.error);
  });

  it("refuses an alias bomb instead of expanding it", () => {
    const levels = ["a: &a [x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const cur = String.fromCharCode(97 + i);
      levels.push(`${cur}: &${cur} [${Array(9).fill(`*${prev}`).join(", ")}]`);
    }
    const source = parseYaml("bomb.yaml", levels.join("\n"));
    expect(source.error?.message).toMatch(/alias bomb/);
  });

  it("reads YAML 1.2 core scalars: `off` and `yes` stay strings", () => {
    expect(parseYaml("c.yaml", "a: off\nb: yes\nc: 3\nd: true\n").documents[0].value).toEqual({ a: "off", b: "yes", c: 3, d: true });
  });
});

// The first parse records the top levels only; a deeper path parses the file again
// (src/load/yaml.ts). Every path must land where a parse that records every node puts it.
describe("positions recorded in part", () => {
  const TRICKY = [
    "name: x",
    "list: [1, 2, {a: b, c: [d, e]}]",
    "map: {k: v, \"q\": 'w', n: {deep: {deeper: [1, {x: y}]}}}",
    "? complex key",
    ": value",
    "block:",
    "  - - nested",
    "    - seq",
    "  - key: val",
    "    other:",
    "      - {flow: map}",
    "      - [a, b]",
    "  -",
    "    late: 1",
    "merged:",
    "  <<: {m: 1}",
    "  own: 2",
    "empty:",
    "---",
    "- top",
    "- [seq, [deeper, [deepest]]]",
    "---",
    "{flow: root, a: {b: {c: {d: e}}}}",
    "---",
    "base: &b {x: 1, y: [1, 2]}",
    "other:",
    "  <<: *b",
    "  z: 3",
    "list: [*b, &c {q: r}, *c]",
  ].join("\n");

  function* paths(v: unknown, prefix: (string | number)[]): Generator<(string | number)[]> {
    yield prefix;
    yield [...prefix, "absent"];
    if (v === null || typeof v !== "object") return void (yield [...prefix, 0]);
    for (const [k, child] of Object.entries(v)) yield* paths(child, [...prefix, Array.isArray(v) ? Number(k) : k]);
  }

  const sources = [TRICKY, readFileSync(fileURLToPath(new URL("../playbooks/registry.yaml", import.meta.url)), "utf8")];
  it.each(sources.map((text, i) => ({ i, text })))("source $i: every key and value where the complete record puts it", ({ text }) => {
    const lazy = parseYaml("f.yaml", text);
    const full = parseYaml("f.yaml", text, { recordAll: true });
    expect(lazy.documents.length).toBe(full.documents.length);
    let checked = 0;
    for (const [d, doc] of full.documents.entries()) {
      const other = lazy.documents[d];
      expect(other.value).toEqual(doc.value);
      for (const path of paths(doc.value, [])) {
        for (const target of ["value", "key"] as const) expect([path, target, other.locate(path, target)]).toEqual([path, target, doc.locate(path, target)]);
        expect([path, other.has(path)]).toEqual([path, doc.has(path)]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
  });
});
