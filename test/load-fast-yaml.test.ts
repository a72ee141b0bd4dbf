/**
 * The fast YAML path (src/load/fast-yaml.ts) against js-yaml: on every text it either
 * declines or gives exactly js-yaml's documents, and every key and value is located where
 * js-yaml's parse locates it. Texts: the repository's own YAML, the benchmark's catalogue
 * style, random documents in many styles, and random mutations of them (which js-yaml
 * often refuses: then the fast path must decline).
 */
import fc from "fast-check";
import jsyaml from "js-yaml";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { locateOnTape, parseFast, type ImplicitType } from "../src/load/fast-yaml.js";
import { INDEXED_ENTRIES, parseYaml, RESOLVABLE_FIRST } from "../src/load/yaml.js";
import type { PathSegment } from "failbook-runtime/model/finding.js";

const SCHEMA = jsyaml.CORE_SCHEMA.extend([(jsyaml as unknown as { types: { merge: jsyaml.Type } }).types.merge]);
const TYPES = (SCHEMA as unknown as { compiledImplicit: ImplicitType[] }).compiledImplicit;

function jsYaml(text: string): unknown[] | "error" {
  try {
    return jsyaml.loadAll(text, undefined, { schema: SCHEMA });
  } catch {
    return "error";
  }
}

function paths(value: unknown, path: PathSegment[] = [], out: PathSegment[][] = []): PathSegment[][] {
  out.push(path);
  if (value !== null && typeof value === "object") for (const key of Object.keys(value)) paths((value as Record<string, unknown>)[key], [...path, Array.isArray(value) ? Number(key) : key], out);
  return out;
}

/** Declined, or equal to js-yaml in values and in every position; returns whether the fast path read it. */
function agrees(text: string): boolean {
  const fast = parseFast(text, Infinity, TYPES, RESOLVABLE_FIRST);
  const expected = jsYaml(text);
  if (fast === undefined) return false;
  expect(expected, `the fast path read a text js-yaml refuses:\n${text}`).not.toBe("error");
  expect(isDeepStrictEqual(fast.values, expected), `values differ for:\n${text}\nfast: ${JSON.stringify(fast.values)}\njs-yaml: ${JSON.stringify(expected)}`).toBe(true);
  const quick = parseYaml("a.yaml", text, { recordAll: true });
  const slow = parseYaml("a.yaml", text, { recordAll: true, jsYamlOnly: true });
  for (const [i, doc] of quick.documents.entries()) {
    for (const path of paths(doc.value)) {
      for (const target of ["value", "key"] as const) {
        const a = doc.locate(path, target);
        const b = slow.documents[i]!.locate(path, target);
        expect(`${a.line}:${a.column}`, `${JSON.stringify(path)} (${target}) in:\n${text}`).toBe(`${b.line}:${b.column}`);
      }
    }
  }
  // A parse recording the documents alone keeps the starts of the nodes below them on its
  // tape, which locate every path as a complete parse does, and a path that leads nowhere at
  // the deepest node it reaches (unless a key such as "1" on the way makes the values' order
  // differ from the text's).
  const shallow = parseFast(text, 1, TYPES, RESOLVABLE_FIRST, true)!;
  const complete = parseYaml("a.yaml", text, { recordAll: true });
  for (const [i, root] of shallow.roots.entries()) {
    for (const path of paths(fast.values[i])) {
      for (const probe of [path, [...path, "nope"], [...path, 99]]) {
        for (const target of ["value", "key"] as const) {
          const found = locateOnTape(shallow.tape!, root, probe, 0, target);
          if (found === undefined) expect(JSON.stringify(fast.values[i]), `the tape did not locate ${JSON.stringify(probe)} in:\n${text}`).toMatch(/"(0|[1-9][0-9]*)":/);
          else {
            const at = quick.position(found.offset);
            expect(`${at.line}:${at.column} ${found.complete}`, `${JSON.stringify(probe)} (${target}) from the tape in:\n${text}`).toBe(`${complete.documents[i]!.locate(probe, target).line}:${complete.documents[i]!.locate(probe, target).column} ${complete.documents[i]!.has(probe)}`);
          }
        }
      }
    }
  }
  // The shallow parses (the top levels recorded, or the documents alone; a node below them
  // given its frames, from the tape or parsed again, when a path goes through it) locate the
  // same, and say the same of what exists.
  const shallows = [{}, { depth: 1 }, { tape: true }, { depth: 1, tape: true }, { depth: 2, tape: true }].flatMap((options) => [...parseYaml("a.yaml", text, options).documents.entries()]);
  for (const [i, doc] of shallows) {
    for (const path of paths(doc.value)) {
      for (const target of ["value", "key"] as const) expect(doc.locate(path, target), `${JSON.stringify(path)} (${target}) shallow in:\n${text}`).toEqual(slow.documents[i]!.locate(path, target));
      expect(doc.has([...path, "nope"])).toBe(slow.documents[i]!.has([...path, "nope"]));
    }
  }
  return true;
}

// ---- random documents in the styles people write, and some they should not ------------

// Mostly what projects hold, now and then what they should not.
const SCALARS = ["plain", "two words", "-5", "12", "1e3", "true", "False", "null", "~", "yes", "off", "[E12] text", "é ü 日本", "it's", 'say "hi"', "3.50", "0", "svc0.op_1", "x-request-id", "a#b", "a:b"];
const NASTY = [
  "0x1F", "0o17", ".inf", "-.Inf", ".NaN", "NULL", "a: b", "#hash", "a #b", "back\\slash", "tab\there", "line\nbreak", "{x}", "x,y", "- dash",
  "", " lead", "trail ", "@at", "`tick", "%pct", "&anchor", "*alias", "!tag", "|pipe", ">fold", "?q", ":c", "__proto__", "<<", "-0", "1_000",
];
const KEYS = ["code", "class", "kind", "http_status", "x-should-retry", "a b", "é", "K", "match", "examples"];
const NASTY_KEYS = ["1", "true", "null", "__proto__", "<<", "k:v", "#k", "'q'", "-k", "a #b"];

const scalarArb = fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...SCALARS) }, { weight: 1, arbitrary: fc.constantFrom(...NASTY) });
const keyArb = fc.oneof({ weight: 20, arbitrary: fc.constantFrom(...KEYS) }, { weight: 1, arbitrary: fc.constantFrom(...NASTY_KEYS) });

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
const json: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.oneof(scalarArb, fc.constantFrom<Json>(0, 1.5, -3, true, false, null)),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(keyArb, tie("value"), { maxKeys: 4 }),
  ),
})).value;

/** A scalar written plain, single- or double-quoted (quoting as JSON does: YAML reads that too). */
function scalarText(v: Json, style: number): string {
  if (typeof v !== "string") return String(v);
  if (style % 3 === 0) return v;
  if (style % 3 === 1) return `'${v.replace(/'/g, "''")}'`;
  return JSON.stringify(v);
}

function flowText(v: Json, style: number): string {
  if (Array.isArray(v)) return `[${v.map((x, i) => flowText(x, style + i)).join(", ")}]`;
  if (v !== null && typeof v === "object") return `{ ${Object.entries(v).map(([k, x], i) => `${scalarText(k, style + i)}: ${flowText(x, style + i + 1)}`).join(", ")} }`;
  return scalarText(v, style);
}

function blockText(v: Json, indent: string, style: number): string {
  const comment = style % 5 === 0 ? "  # note" : "";
  if (Array.isArray(v)) {
    if (v.length === 0) return `${indent}[]\n`;
    return v.map((x, i) => (x !== null && typeof x === "object" && style % 2 === 0 ? `${indent}- ${blockText(x, `${indent}  `, style + i).trimStart()}` : `${indent}- ${inline(x, style + i)}${comment}\n`)).join("");
  }
  if (v !== null && typeof v === "object") {
    if (Object.keys(v).length === 0) return `${indent}{}\n`;
    return Object.entries(v)
      .map(([k, x], i) => {
        const key = scalarText(k, style + i);
        if (x !== null && typeof x === "object" && style % 3 !== 2) return `${indent}${key}:${comment}\n${style % 7 === 0 ? "\n" : ""}${blockText(x, Array.isArray(x) && style % 4 === 1 ? indent : `${indent}  `, style + i + 1)}`;
        return `${indent}${key}: ${inline(x, style + i)}${comment}\n`;
      })
      .join("");
  }
  return `${indent}${inline(v, style)}\n`;
}

const inline = (v: Json, style: number): string => (v !== null && typeof v === "object" ? flowText(v, style) : scalarText(v, style));

const documentText = fc.tuple(fc.array(fc.tuple(fc.dictionary(keyArb, json, { minKeys: 1, maxKeys: 5 }), fc.nat(1000)), { minLength: 1, maxLength: 3 }), fc.boolean()).map(([docs, marker]) =>
  (marker ? "---\n" : "") + docs.map(([v, style]) => blockText(v, "", style)).join("---\n"),
);

describe("the fast YAML path", () => {
  it("asks the schema's types only about scalars that could resolve: every other first character makes a string, as in js-yaml", () => {
    // Each printable ASCII character, then tails that look like numbers, booleans, nulls and words.
    const firsts = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).filter((c) => c !== " ");
    const tails = ["", "0", "1", "12", "x", "rue", "alse", "ull", "inf", "nan", "Inf", "NaN", ".5", "e3", "_1", "<", "o", "ff", "es", "~"];
    let read = 0;
    for (const first of firsts) {
      for (const tail of tails) {
        const scalar = first + tail;
        for (const text of [`k: ${scalar}\n`, `- ${scalar}\n`, `k: [${scalar}]\n`, `k: { a: ${scalar} }\n`]) {
          const fast = parseFast(text, Infinity, TYPES, RESOLVABLE_FIRST);
          if (fast === undefined) continue;
          read++;
          expect(fast.values, JSON.stringify(text)).toEqual(jsYaml(text));
        }
      }
    }
    expect(read).toBeGreaterThan(3000);
  });

  it("reads the repository's YAML as js-yaml does, or declines it", () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        if (["node_modules", ".git", "dist", ".bench"].includes(name)) continue;
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.ya?ml$/.test(name)) files.push(path);
      }
    };
    for (const dir of ["playbooks", "examples", "docs", "test"]) walk(dir);
    let read = 0;
    for (const file of files) if (agrees(readFileSync(file, "utf8").replace(/^\uFEFF/, ""))) read++;
    // Most of them are of the plain kind it is for.
    expect(read).toBeGreaterThan(files.length / 2);
  });

  it("reads the benchmark catalogue's style (block lists of maps, short maps in flow style)", async () => {
    const { catalogue, toYaml, fixtures } = (await import("../scripts/bench/generate.mjs")) as unknown as {
      catalogue: (n: number) => { verdicts: { code: string; rules: unknown[] }[] };
      fixtures: (cat: unknown, n: number) => unknown[];
      toYaml: (v: unknown) => string;
    };
    const cat = catalogue(60);
    const registry = toYaml({ verdicts: cat.verdicts.map((v) => ({ code: v.code, match: v.rules })) });
    expect(agrees(registry)).toBe(true);
    // A playbook's actions by code: a mapping large enough that its entries on the tape are
    // indexed (INDEXED_ENTRIES), and one whose key "12" JavaScript lists first.
    const actions = Object.fromEntries(cat.verdicts.map((v, i) => [v.code, i % 2 === 0 ? { action: "retry_with_backoff", max_retries: 2, backoff_ms: [100, 200] } : { action: "fail" }]));
    expect(Object.keys(actions).length).toBeGreaterThanOrEqual(INDEXED_ENTRIES);
    expect(agrees(toYaml({ verdicts: actions }))).toBe(true);
    expect(agrees(toYaml({ verdicts: { ...actions, "12": { action: "fail" } } }))).toBe(true);
    expect(agrees(fixtures(cat, 60).map((f) => toYaml(f)).join("---\n"))).toBe(true);
  });

  it("reads a colon inside a plain scalar of a flow collection (host:port, URLs) as js-yaml does: the shipped fixtures' errors are read so", () => {
    for (const text of [
      "- error: { kind: tls_handshake_failed, message: TLS handshake timed out reaching treasury-api.acme.com:443 }\n",
      "a: [10.0.0.7:443, http://x.test/a, a:b:c, 'q']\n",
      "a: { k:v: 1, u: x:y#z, w: a:b }\n",
    ]) {
      expect(agrees(text), text).toBe(true);
    }
    // A colon before a line's end or a bracket stays js-yaml's to read.
    for (const text of ["a: [x:[1]]\n", "a: { k: x:{1} }\n", "a: [x:\n  y]\n"]) expect(parseFast(text, Infinity, TYPES), text).toBeUndefined();
  });

  it("on random documents: declines, or gives js-yaml's values and positions", () => {
    let read = 0;
    fc.assert(
      fc.property(documentText, (text) => {
        if (agrees(text)) read++;
      }),
      { numRuns: 1500, seed: 20261123 },
    );
    // Not a path that declines everything.
    console.log(`fast path read ${read} of 1500 random documents`);
    expect(read).toBeGreaterThan(300);
  });

  it("on random mutations of valid documents (a character inserted, removed or replaced): declines, or agrees", () => {
    const mutation = fc.tuple(documentText, fc.array(fc.tuple(fc.nat(), fc.constantFrom("del", "ins", "rep"), fc.constantFrom(" ", "\n", ":", "-", "#", "'", '"', "[", "]", "{", "}", ",", "a", "\\", "&", "*", "!", "|", "?", "\t", "\r")), { minLength: 1, maxLength: 3 }));
    fc.assert(
      fc.property(mutation, ([text, edits]) => {
        let t = text;
        for (const [at, op, ch] of edits) {
          const i = t.length === 0 ? 0 : at % t.length;
          t = op === "del" ? t.slice(0, i) + t.slice(i + 1) : op === "ins" ? t.slice(0, i) + ch + t.slice(i) : t.slice(0, i) + ch + t.slice(i + 1);
        }
        agrees(t);
      }),
      { numRuns: 3000, seed: 20261123 },
    );
  });

  it("leaves every construct it does not read to js-yaml", () => {
    for (const text of [
      "a: &x 1\nb: *x\n", // anchors and aliases
      "a: !!str 1\n", // tags
      "a: |\n  text\n", // block scalars
      "a: plain\n  continued\n", // multi-line plain scalars
      "a: [1,\n  2]\n", // multi-line flow
      "a: 1\na: 2\n", // a duplicate key (js-yaml's error)
      "__proto__: 1\n", // js-yaml defines it as an own key
      "<<: {a: 1}\n", // merge keys
      "a:\t1\n", // tabs
      "a: 1\r\n", // CRLF
      "%YAML 1.2\n---\na: 1\n", // directives
      "a: 1\n---\n", // a trailing empty document
      "? a\n: 1\n", // complex keys
      "1: one\n", // keys that resolve to numbers
      'a: "\\x41"\n', // escapes beyond JSON's
    ]) {
      expect(parseFast(text, Infinity, TYPES), JSON.stringify(text)).toBeUndefined();
    }
  });

  it("leaves deep nesting to js-yaml, which bounds it and says where: a document built to be deep gets js-yaml's finding, not a stack overflow", () => {
    const block = (depth: number) => Array.from({ length: depth }, (_, i) => `${"  ".repeat(i)}k${i}:\n`).join("") + `${"  ".repeat(depth)}v: 1\n`;
    const flow = (depth: number) => `a: ${"[".repeat(depth)}${"]".repeat(depth)}\n`;
    // Deep enough to decline, yet valid YAML: js-yaml reads it.
    expect(parseFast(block(40), Infinity, TYPES)).toBeUndefined();
    expect(parseYaml("a.yaml", block(40)).error).toBeUndefined();
    for (const text of [block(6000), flow(150), flow(100_000)]) {
      expect(parseFast(text, Infinity, TYPES)).toBeUndefined();
      const error = parseYaml("a.yaml", text).error;
      expect(error).toBeDefined();
      expect(error).toEqual(parseYaml("a.yaml", text, { jsYamlOnly: true }).error);
      expect(error?.message).not.toMatch(/call stack/);
    }
  });
});
