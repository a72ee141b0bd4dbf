/**
 * failbook lsp parses an edit inside the registry's verdicts by parsing again only the
 * verdicts it touched (editedYaml). What it gives must be what a parse of the whole edited
 * text gives, node for node: the same values, every key and value at the same line and
 * column, every offset at the same position; and where that cannot be shown (an edit that
 * reaches outside the list, or text the fast path declines) it must give nothing, so that
 * the whole text is parsed.
 */
import { describe, expect, it } from "vitest";
import { editedYaml, nodesParsed, parseYaml, type YamlSource } from "../src/load/yaml.js";

const verdict = (n: number, extra = "") =>
  [
    `  - code: svc${n}.timeout_${n}`,
    `    class: transient`,
    `    retryable: true`,
    `    summary: Svc${n} timed out (code ${n}).`,
    `    match:`,
    `      - { kind: timeout_${n}, http_status: [502, 503] }`,
    `      - provider_code: Timeout${n}`,
    `        message_contains: timed out`,
    `    examples:`,
    `      - kind: timeout_${n}`,
    `        headers: { x-request-id: "req_${n}" }${extra}`,
  ].join("\n");

const HEAD = ["apiVersion: failbook/v1", "kind: Registry", "name: edits", "revision: 1", "classes:", "  transient: { description: Temporary. }", "verdicts:"].join("\n");
const LIST = [0, 1, 2, 3, 4, 5].map((n) => verdict(n)).join("\n  # between\n");
/** The list in the middle of the file (a key after it), and at its end. */
const MIDDLE = `${HEAD}\n${LIST}\n\nfallback: svc0.timeout_0\n`;
const LAST = `${HEAD.replace("verdicts:", "fallback: svc0.timeout_0\nverdicts:")}\n${LIST}\n# the end\n`;

const nth = (text: string, needle: string, n: number): number => {
  let at = -1;
  for (let i = 0; i <= n; i++) at = text.indexOf(needle, at + 1);
  if (at < 0) throw new Error(`no ${n}th '${needle}'`);
  return at;
};
const insert = (text: string, at: number, what: string) => text.slice(0, at) + what + text.slice(at);
const cut = (text: string, from: number, to: number) => text.slice(0, from) + text.slice(to);

function* paths(v: unknown, prefix: (string | number)[]): Generator<(string | number)[]> {
  yield prefix;
  yield [...prefix, "absent"];
  if (v === null || typeof v !== "object") return void (yield [...prefix, 0]);
  for (const [k, child] of Object.entries(v)) yield* paths(child, [...prefix, Array.isArray(v) ? Number(k) : k]);
}

/** The edited parse equals the whole parse: values, every path's place (value and key), every line's position. */
function expectSame(edited: YamlSource, whole: YamlSource): void {
  expect(edited.error).toBeUndefined();
  expect(whole.error).toBeUndefined();
  expect(edited.text).toBe(whole.text);
  expect(edited.documents.length).toBe(1);
  const [a, b] = [edited.documents[0], whole.documents[0]];
  expect(a.value).toEqual(b.value);
  for (const path of paths(b.value, [])) {
    for (const target of ["value", "key"] as const) expect([path, target, a.locate(path, target)]).toEqual([path, target, b.locate(path, target)]);
    expect([path, a.has(path)]).toEqual([path, b.has(path)]);
  }
  for (let offset = 0; offset <= whole.text.length; offset += 7) expect([offset, edited.position(offset)]).toEqual([offset, whole.position(offset)]);
}

type Edit = [what: string, base: string, edit: (t: string) => string, parsedAgain: [from: number, to: number] | "whole"];

const EDITS: Edit[] = [
  ["a character typed in a summary", MIDDLE, (t) => insert(t, nth(t, "timed out (code", 2), "x"), [2, 3]],
  ["a character typed in the first verdict", MIDDLE, (t) => insert(t, nth(t, "timed out (code", 0), "x"), [0, 1]],
  ["a character typed in the last verdict, the list at the file's end", LAST, (t) => insert(t, nth(t, "timed out (code", 5), "x"), [5, 6]],
  ["a line added inside a verdict (the later ones move down)", MIDDLE, (t) => insert(t, nth(t, "    match:", 1), "    since: 4\n"), [1, 2]],
  ["a verdict's lines removed", MIDDLE, (t) => cut(t, nth(t, "    examples:", 3), nth(t, "  # between", 3)), [3, 4]],
  ["an edit across two verdicts (they become one)", MIDDLE, (t) => cut(t, nth(t, "    match:", 2), nth(t, "    match:", 3)), [2, 3]],
  ["a verdict added at the end of the list, before the next key", MIDDLE, (t) => insert(t, nth(t, "\n\nfallback:", 0), `\n${verdict(6)}`), [5, 7]],
  ["a verdict added at the end of the file", LAST, (t) => insert(t, nth(t, "# the end", 0), `${verdict(6)}\n`), [5, 7]],
  // The text before the edit ends at "  - code: svc": the verdict at that dash is parsed again, with the one added.
  ["a verdict added between two", MIDDLE, (t) => insert(t, nth(t, "  - code:", 3), `${verdict(9)}\n`), [3, 5]],
  ["a comment between verdicts changed", MIDDLE, (t) => insert(t, nth(t, "# between", 1) + 2, "still "), [1, 2]],
  ["a verdict's mapping indented further, consistently", MIDDLE, (t) => t.replace(verdict(2), verdict(2).replace("  - code:", "  -   code:").replace(/\n {4}/g, "\n      ")), [2, 3]],
  ["a verdict's dash moved (the verdict before is read up to that dash)", MIDDLE, (t) => insert(t, nth(t, "- code: svc3", 0), "  "), "whole"],
  ["a line of a verdict indented (a YAML error inside a verdict)", MIDDLE, (t) => insert(t, nth(t, "    retryable:", 2), "  "), "whole"],
  ["a quote left open in a verdict", MIDDLE, (t) => insert(t, nth(t, "Svc2 timed out", 0), '"'), "whole"],
  ["a top-level key typed between two verdicts (the list ends there)", MIDDLE, (t) => insert(t, nth(t, "  - code:", 3), "extra: 1\n"), "whole"],
  ["the first verdict's dash", MIDDLE, (t) => insert(t, nth(t, "- code: svc0", 0), "  "), "whole"],
  ["the key after the list", MIDDLE, (t) => t.replace("fallback: svc0", "fallback: svc1"), "whole"],
  ["a key before the list", MIDDLE, (t) => t.replace("revision: 1", "revision: 2"), "whole"],
  ["an anchor typed", MIDDLE, (t) => insert(t, nth(t, "timed out (code", 2), "&a "), "whole"],
  ["a tab typed", MIDDLE, (t) => insert(t, nth(t, "timed out (code", 2), "\t"), "whole"],
  ["a block scalar (js-yaml's to read)", MIDDLE, (t) => t.replace("    summary: Svc2 timed out (code 2).", "    summary: >-\n      Svc2 timed out."), "whole"],
];

describe("a parse of an edit inside a list's items equals a parse of the whole text", () => {
  it.each(EDITS.map(([what, base, edit, parsedAgain]) => ({ what, base, edit, parsedAgain })))("$what", ({ base, edit, parsedAgain }) => {
    const before = parseYaml("r.yaml", base);
    // Positions asked for before the edit: the line index of the last parse is moved, not found again.
    before.documents[0].locate(["verdicts", 1, "match", 0]);
    const text = edit(base);
    expect(text).not.toBe(base);
    const edited = editedYaml(before, text);
    if (parsedAgain === "whole") {
      expect(edited).toBeUndefined();
      return;
    }
    expect(edited && { key: edited.key, from: edited.from, to: edited.to }).toEqual({ key: "verdicts", from: parsedAgain[0], to: parsedAgain[1] });
    expectSame(edited!.source, parseYaml("r.yaml", text));
    // The items it did not parse again are the last parse's own.
    const [was, now] = [(before.documents[0].value as { verdicts: unknown[] }).verdicts, (edited!.source.documents[0].value as { verdicts: unknown[] }).verdicts];
    expect(now[0] === was[0] || parsedAgain[0] === 0).toBe(true);
    expect(now[now.length - 1] === was[was.length - 1] || parsedAgain[1] === now.length).toBe(true);
  });

  it("keeps the verdicts the last parse read again for a position: an unchanged one, moved or not, is not parsed again", () => {
    const before = parseYaml("r.yaml", MIDDLE);
    for (let v = 0; v < 6; v++) before.documents[0].locate(["verdicts", v, "match", 1, "provider_code"]);
    // Typed into verdict 2: verdicts 0 and 1 stay where they were, 3 to 5 move by a character.
    const text = insert(MIDDLE, nth(MIDDLE, "timed out (code", 2), "x");
    const edited = editedYaml(before, text)!.source;
    const whole = parseYaml("r.yaml", text);
    const parsed = nodesParsed();
    const where = (source: YamlSource, v: number) => [source.documents[0].locate(["verdicts", v, "match", 1, "provider_code"]), source.documents[0].locate(["verdicts", v, "examples", 0, "headers"], "key")];
    for (const v of [0, 1, 3, 4, 5]) expect(where(edited, v)).toEqual(where(whole, v));
    expect(nodesParsed() - parsed, "only the whole parse's verdicts").toBe(5);
    // And on to the next edit: the moved ones move again.
    const next = insert(text, nth(text, "timed out (code", 0), "y");
    const again = editedYaml(edited, next)!.source;
    const wholeAgain = parseYaml("r.yaml", next);
    const parsedNext = nodesParsed();
    for (const v of [1, 2, 3, 4, 5]) expect(where(again, v)).toEqual(where(wholeAgain, v));
    expect(nodesParsed() - parsedNext).toBe(6);
  });

  it("after a series of edits, each parsed from the last", () => {
    let source = parseYaml("r.yaml", MIDDLE);
    let text = MIDDLE;
    const steps = [
      (t: string) => insert(t, nth(t, "timed out (code", 4), "really "),
      (t: string) => insert(t, nth(t, "    match:", 1), "    since: 2\n"),
      (t: string) => insert(t, nth(t, "\n\nfallback:", 0), `\n${verdict(7)}`),
      (t: string) => cut(t, nth(t, "    examples:", 0), nth(t, "  # between", 0)),
      (t: string) => t.replace("timed out (code 3)", "failed (code 3)"),
    ];
    for (const step of steps) {
      text = step(text);
      const edited = editedYaml(source, text);
      expect(edited).toBeDefined();
      expectSame(edited!.source, parseYaml("r.yaml", text));
      source = edited!.source;
      // Every few edits a position is asked for, as a finding would: the index is moved on from it.
      source.documents[0].locate(["fallback"]);
    }
  });

  it("on random edits: whenever it parses only some items, the whole parse agrees", () => {
    // A seeded generator: the same edits every run.
    let seed = 20261126;
    const random = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const snippets = ["x", "\n", "  ", "- ", ": ", " #", "'", "{", "\n  - code: z\n", "\n    class: state", "\n\n", "    ", "-", "&a"];
    let partial = 0;
    for (let i = 0; i < 400; i++) {
      const base = i % 2 ? MIDDLE : LAST;
      const before = parseYaml("r.yaml", base);
      if (i % 3) before.documents[0].locate(["fallback"]);
      const at = random(base.length);
      const text = random(3) === 0 ? cut(base, at, Math.min(base.length, at + 1 + random(40))) : insert(base, at, snippets[random(snippets.length)]);
      if (text === base) continue;
      const edited = editedYaml(before, text);
      if (!edited) continue;
      partial++;
      expectSame(edited.source, parseYaml("r.yaml", text));
    }
    expect(partial).toBeGreaterThan(100);
  });

  it("gives nothing for a file the fast path did not read, or one that did not parse", () => {
    const js = parseYaml("r.yaml", MIDDLE.replace("revision: 1", "revision: !!int 1"));
    expect(editedYaml(js, insert(js.text, nth(js.text, "timed out", 2), "x"))).toBeUndefined();
    const broken = parseYaml("r.yaml", MIDDLE.replace("revision: 1", "revision: [1"));
    expect(broken.error).toBeDefined();
    expect(editedYaml(broken, insert(broken.text, nth(broken.text, "timed out", 2), "x"))).toBeUndefined();
  });
});
