/**
 * `gen py` envelope constructors redact as failbook does: the module's `_redact` runs the
 * built-in secret families (translated from src/engine/secrets.ts) and the project's
 * `redact:` patterns, and gives exactly the text redactSecrets gives (as the TypeScript
 * bindings' constructors call it: the patterns as JavaScript RegExps), on the secret
 * corpus, on near misses and on thousands of random texts mixing them (astral characters,
 * escapes, quotes, line breaks, texts long enough to be redacted line by line).
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { generatePython } from "../src/codegen/python.js";
import { pythonPattern } from "../src/codegen/pyregex.js";
import { FAMILIES, redactSecrets, TRIGGER } from "failbook-runtime/engine/secrets.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import type { Registry } from "failbook-runtime/model/registry.js";
import { callPython, NO_PYTHON_MESSAGE, PYTHON, pyright, python, writeModules } from "./helpers/python.js";
import { anySecret, sampleSecrets, type Secret } from "./helpers/secrets.js";

const REGISTRY: Registry = {
  apiVersion: "failbook/v1",
  kind: "Registry",
  name: "redacting",
  revision: 1,
  classes: { c: {} },
  fallback: "leak",
  verdicts: [{ code: "leak", class: "c", retryable: false, match: [] }],
};
const PLAYBOOK: Playbook = { apiVersion: "failbook/v1", kind: "Playbook", name: "p", verdicts: { leak: { action: "fail" } } };
/** The project's own patterns: ASCII, a class with a quantifier, a group, an astral character under u. */
const OWN = ["deploy-[a-z0-9]{10}", "(?:int|ext)ernal-host-\\d+", "\u{1F511}[^\\s]{3}"];

const token = (n: number, seed: number) => fc.sample(fc.array(fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"), { minLength: n, maxLength: n }), { seed, numRuns: 1 })[0]!.join("");

/** Texts around the families' edges: labels, escapes, separators, near misses that must stay. */
const EDGES = [
  "",
  "token",
  "token=x",
  "token_expired: no",
  "'token_expired': no",
  `access_token=${token(12, 1)}&scope=read`,
  `{"api_key": "${token(16, 2)}", "user": "bob"}`,
  JSON.stringify(JSON.stringify([`"token": "${token(12, 3)}"`])),
  JSON.stringify(`api_key=\t'${token(12, 4)}'`),
  `{ password: ${token(8, 5)}, user: bob }`,
  `X-Api-Key: ${token(20, 6)}`,
  `Authorization:\tBearer ${token(24, 7)}`,
  `"Bearer\\t${token(24, 8)}"`,
  `Bearer\\u{a}${token(24, 9)}`,
  `Bearer\n${token(24, 10)}`,
  `postgres://app:${token(14, 11)}@db:5432/x`,
  `-----BEGIN RSA PRIVATE KEY-----\n${token(64, 12)}\n-----END RSA PRIVATE KEY-----\nnext line`,
  `-----BEGIN PRIVATE KEY-----\\n${token(64, 13)}\\n`,
  `\\\\"client_secret\\\\": \\\\"${token(10, 14)}\\\\"`,
  `DB_PASSWORD%09=%09${token(10, 15)}`,
  `x😀 password=😀${token(8, 16)} 😀 sk-${token(20, 17)}😀`,
  `\u{1F511}abc deploy-abcdefghij internal-host-42 ext-host-1`,
  "secret tokens and passwords are words too",
  // gen py scans the lower-cased text for the trigger's words first: mixed case is found, and a
  // non-ASCII letter that lower-cases to ASCII (the Kelvin sign to k, dotted I to i) is no trigger.
  `PaSsWoRd=${token(10, 18)} BeArEr ${token(24, 19)}`,
  `api\u212Aey=${token(12, 20)} \u0130nternal-host-3 \u212Aey: ${token(12, 21)}`,
];

const FILLER = ["", " ", "\n", "\t", "\\", '"', "'", "=", ": ", "&", ",", "😀", "é", "\u2028", "word", "token", "Secret", "PASSWORD", "api-key", "://", "@", "x".repeat(40), "\u{1F511}", "deploy-", "internal-host-7", "\\n", "%0A"];

const piece: fc.Arbitrary<string> = fc.oneof(
  anySecret.map((s: Secret) => s.text),
  fc.constantFrom(...FILLER),
  fc.constantFrom(...EDGES),
  fc.string({ unit: "grapheme-composite", maxLength: 6 }),
);
const texts = (n: number, seed: number) => fc.sample(fc.array(piece, { maxLength: 12 }).map((parts) => parts.join("")), { seed, numRuns: n });

describe.skipIf(PYTHON === null)("gen py envelope constructors redact", () => {
  let dir = "";
  beforeAll(() => {
    const text = generatePython({ registry: REGISTRY, playbook: PLAYBOOK }, { redactPatterns: OWN }).text;
    const bare = generatePython({ registry: REGISTRY, playbook: PLAYBOOK }).text;
    dir = writeModules({ redacting: text, bare });
  });

  /** Each text through leak_envelope as message, trace_id and details strings, in Python; each must match the library. */
  function check(module: "redacting" | "bare", inputs: readonly string[]): void {
    // As the TypeScript bindings' constructors do: the families, then the patterns with the g and u flags.
    const own = module === "redacting" ? OWN.map((p) => new RegExp(p, "gu")) : [];
    const redact = (text: string) => redactSecrets(text, own);
    const envelopes = callPython(
      dir,
      inputs.map((t) => ({ module, call: "leak_envelope", args: [{ kind: "x", message: t }, { trace_id: t, details: { log: [t, { deep: t }], n: 1, ok: true } }] })),
    ) as { message: string; trace_id: string; details: { log: [string, { deep: string }]; n: number; ok: boolean } }[];
    inputs.forEach((t, i) => {
      const want = redact(t);
      const got = envelopes[i]!;
      expect({ text: t, message: got.message }).toEqual({ text: t, message: want });
      expect(got.trace_id).toBe(want);
      expect(got.details).toEqual({ log: [want, { deep: want }], n: 1, ok: true });
    });
  }

  it("passes pyright --strict (Python 3.9) with the project's patterns in", () => {
    const checked = pyright(dir);
    expect(checked.output).toBe("");
    expect(checked.errors).toBe(0);
  }, 120_000);

  it("redacts the secret corpus and the families' edges exactly as the library", () => {
    const corpus = [1, 2, 3, 4, 5].flatMap((seed) => sampleSecrets(seed * 100).map((s) => s.text));
    const inputs = [...corpus, ...corpus.map((s) => `before ${s} after`), ...EDGES];
    check("redacting", inputs);
    check("bare", inputs);
    // Not vacuous: the corpus is redacted, the project's patterns apply.
    expect(redactSecrets("at deploy-abcdefghij", [new RegExp(OWN[0]!, "gu")])).toBe("at [REDACTED]");
    expect(corpus.every((s) => redactSecrets(s).includes("[REDACTED]"))).toBe(true);
  });

  it("redacts 3,000 random texts mixing secrets, escapes, astral characters and line breaks exactly as the library", () => {
    check("redacting", texts(3000, 42));
  }, 120_000);

  it("gives a text that trips no family back as it came, surrogate code points and all (no round trip through UTF-16)", () => {
    // Python only: a str may hold a surrogate pair as two code points, which JavaScript cannot tell from the character.
    const script = `import sys; sys.path.insert(0, sys.argv[1]); import bare; t = "\\U0001F600 \\ud83d\\ude00 Key: a3"; print(bare._redact(t) == t, bare._redact(t + " token=abcdefgh") == "\\U0001F600 \\U0001F600 Key: a3 token=[REDACTED]")`;
    expect(python(["-c", script, dir]).stdout.trim()).toBe("True True");
  });

  it("redacts long multi-line texts (which the library redacts line by line) exactly as the library", () => {
    const long = texts(40, 7).map((t, i) => Array.from({ length: 30 }, (_, k) => `${k % 3 === 0 ? t : "line ".repeat(50)} ${i}`).join(k(i)));
    expect(long.every((t) => t.length >= 4096)).toBe(true);
    check("redacting", long);
  }, 120_000);
});

const k = (i: number) => (i % 2 === 0 ? "\n" : "\r\n");

describe("the translator's backreferences option", () => {
  it("translates every built-in family and keeps its capturing-group numbering", () => {
    for (const { re } of [...FAMILIES, { re: TRIGGER }]) {
      const translated = pythonPattern(`/${re.source}/${re.flags}`, { backreferences: true });
      expect(translated.ok).toBe(true);
    }
  });

  it.each([
    ["(a)(?:\\1)", "(a)\\1"],
    ["(?=(a))(?:\\1)", "(?=(a))\\1"],
    ["((a)|b)(?:\\1)", "((a)|b)\\1"],
    ["(a)(?:\\1)0", "(a)\\1[0]"],
    ["(a)", "(?<name>a)"],
  ])("writes %s for %s", (python, js) => {
    expect(pythonPattern(js, { backreferences: true })).toEqual({ ok: true, source: python, unicode: false });
  });

  it.each([
    ["(a)?\\1", "may not have participated"],
    ["(?:(a)|b)\\1", "may not have participated"],
    ["((a)|b)\\2", "may not have participated"],
    ["(a)+\\1", "may not have participated"],
    ["(?!(a))\\1", "may not have participated"],
    ["\\1(a)", "before that group has closed"],
    ["(a\\1)", "before that group has closed"],
    ["(a)\\2", "refers to no group"],
    ["(a)\\10", "refers to no group"],
    ["/(a)\\1/i", "under the i flag"],
  ])("refuses %s", (js, reason) => {
    const translated = pythonPattern(js, { backreferences: true });
    expect(translated.ok).toBe(false);
    expect(translated.ok ? "" : translated.reason).toContain(reason);
  });

  it("leaves message_matches as it was: backreferences refused, groups not capturing", () => {
    expect(pythonPattern("(a)\\1")).toEqual({ ok: false, reason: "has a backreference (or a legacy octal escape), which cannot be translated exactly" });
    expect(pythonPattern("(a)b")).toEqual({ ok: true, source: "(?:a)b", unicode: false });
  });

  it.skipIf(PYTHON === null)("matches in Python what JavaScript matches, groups included", () => {
    const cases: [string, string][] = [
      ["(?=(\\w*?k))\\1(?=(\\w*))\\2=(\\w+)", "a tokenkey=v1 x"],
      ["((['\"]))x\\2", `"x" 'x' "x'`],
      ["((a)|b)\\1c", "aac bbc abc"],
    ];
    for (const [js, text] of cases) {
      const translated = pythonPattern(js, { backreferences: true });
      if (!translated.ok) throw new Error(translated.reason);
      const want = [...text.matchAll(new RegExp(js, "g"))].map((m) => [...m].map((g) => g ?? null));
      const r = python(["-c", `import re, json, sys; print(json.dumps([[m.group(0), *m.groups()] for m in re.finditer(sys.argv[1], sys.argv[2], re.ASCII)]))`, translated.source, text]);
      expect(r.stderr).toBe("");
      expect(JSON.parse(r.stdout)).toEqual(want);
    }
  });
});

if (PYTHON === null) {
  describe("gen py envelope constructors redact (Python)", () => {
    it.skip(NO_PYTHON_MESSAGE, () => {});
  });
}
