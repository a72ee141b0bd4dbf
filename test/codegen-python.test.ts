/**
 * `gen py`: the module compiles (py_compile), passes pyright --strict for Python 3.9, and its
 * classify() returns the library's verdict for thousands of random adapter errors (headers,
 * declared fields, cause chains, messages, message_matches), at 1,000+ codes with kindless
 * rules too. Codes that are no Python identifier still make a valid module; every text from
 * YAML arrives in Python exactly, and secrets do not arrive at all.
 */
import fc from "fast-check";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { classify as engineClassify } from "failbook-runtime/engine/classify.js";
import { generatePython } from "../src/codegen/python.js";
import { pythonPattern } from "../src/codegen/pyregex.js";
import { CodegenError } from "../src/codegen/typescript.js";
import { loadProject } from "../src/load/project.js";
import type { AdapterError } from "failbook-runtime/model/fixture.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import type { MatchRule, Registry, SideEffectState, Verdict } from "failbook-runtime/model/registry.js";
import { REPO } from "./helpers/cli.js";
import { callPython, NO_PYTHON_MESSAGE, PYTHON, python, pyright, writeModules } from "./helpers/python.js";

const verdict = (code: string, match: MatchRule[], extra: Partial<Verdict> = {}): Verdict => ({ code, class: "c", retryable: false, match, ...extra });
const failAll = (registry: Registry): Playbook => ({ apiVersion: "failbook/v1", kind: "Playbook", name: "p", verdicts: Object.fromEntries(registry.verdicts.map((v) => [v.code, { action: "fail" as const }])) });
const module = (registry: Registry, playbook?: Playbook) => generatePython({ registry, playbook: playbook ?? failAll(registry) }).text;

const STATES: SideEffectState[] = ["none", "unknown", "committed"];

/** Every matcher form of SPEC 2.1 and 12, kindless rules among them. */
const MIXED: Registry = {
  apiVersion: "failbook/v1",
  kind: "Registry",
  name: "mixed",
  revision: 1,
  classes: { c: {} },
  error_fields: { decline_code: { type: "string" }, errno: { type: "integer" }, retryable_trait: { type: "boolean" }, ratio: { type: "number" } },
  fallback: "fallback_verdict",
  verdicts: [
    verdict("reserved_first", [{ kind: "timeout" }], { status: "reserved" }),
    verdict("timeouts", [{ kind: ["timeout", "read_timeout"], http_status: ["5xx", 408] }, { message_contains: ["Idempotency", "dup"], tool: "payments.*" }]),
    verdict("range", [{ http_status: "500-503", provider_code: ["E1", "E2"] }]),
    verdict("should_retry", [{ headers: { "X-Should-Retry": "true" } }, { headers: { "retry-after": "*", "Retry-After-Ms": ["0", "10"] } }]),
    verdict("declined", [{ fields: { decline_code: ["insufficient_funds", "expired"] } }, { fields: { errno: [1, 2], retryable_trait: true } }]),
    verdict("truthy", [{ fields: { ratio: 1 } }, { fields: { retryable_trait: false, ratio: [0.5, 2] } }]),
    verdict("caused", [{ cause: { kind: "ECONNRESET" } }, { kind: "wrapped", cause: { cause: { provider_code: "E3", headers: { "x-deep": "*" } } } }]),
    verdict("globbed", [{ tool: ["a?c.*", "*.refund", "?😀*"], side_effect_state: ["committed", "unknown"] }]),
    verdict("patterns", [
      { message_matches: ["^rate limit(ed)? \\d+$", "/QUOTA\\s+exceeded/i"] },
      { message_matches: "/^line two$/m" },
      { message_matches: "/a.b/s" },
      { message_matches: "x.y" },
      { message_matches: "/\\bword\\b/" },
      { message_matches: "/(?<=pre)fix/" },
      { message_matches: "/é+|😀{2}/u" },
      { message_matches: "/[^\\w\\s]{3}/" },
      { message_matches: "/k[s-t]/iu" },
    ]),
    verdict("old", [{ http_status: ["429", 401], message_contains: "" }], { status: "deprecated", replaced_by: "range" }),
    verdict("unicode", [{ kind: "x", message_contains: "äö" }, { message_contains: "i̇" }, { message_contains: "Σ😀z" }]),
    verdict("regexy", [{ tool: "[a-z]+.(x)" }, { tool: "a+b.?" }]),
    verdict("none_state", [{ side_effect_state: "none", http_status: "4xx" }]),
    // Holds for every error, whatever it carries (an empty header test): reached by what no rule above takes.
    verdict("anything", [{ headers: {} }]),
    verdict("fallback_verdict", []),
  ],
};

const KINDS = ["timeout", "read_timeout", "x", "wrapped", "ECONNRESET", "Timeout", ""];
const TOOLS = ["payments.refund", "abc.x", "a.c.z", "aXc.q", "x.refund", "[a-z]+.(x)", "a+b.c", "", "x😀yz", "😀😀", "a\nc.x"];
const WORDS = ["idempotency", "IDEMPOTENCY", "Dup", "äÖ", "ÄÖ", " ", "İ", "x", "rate limit 42", "rate limited 7", "quota  EXCEEDED", "line two", "\n", "\r", "\u2028", "a\nb", "x😀y", "word", "words", "prefix", "éé", "😀😀", "!?#", "KS", "\u212as", "ſ", "σ😀Z", "ΣΑ"];

const causeArb: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  error: fc.record(
    {
      kind: fc.constantFrom(...KINDS),
      provider_code: fc.constantFrom("E1", "E2", "E3"),
      headers: fc.dictionary(fc.constantFrom("x-deep", "X-Deep"), fc.constantFrom("1", "")),
      cause: fc.oneof({ depthSize: "small", withCrossShrink: true }, fc.constant(undefined), tie("error")),
    },
    { requiredKeys: [] },
  ),
})).error;

const errorArb = fc.record(
  {
    error: fc.option(
      fc.record(
        {
          kind: fc.oneof(fc.constantFrom(...KINDS), fc.string({ maxLength: 5 })),
          message: fc.array(fc.oneof(fc.constantFrom(...WORDS), fc.string({ maxLength: 4 })), { maxLength: 4 }).map((w) => w.join("")),
          http_status: fc.oneof(fc.constantFrom(401, 408, 429, 500, 503, 504, 599, 600, 99, 500.5, -1), fc.integer({ min: 100, max: 999 })),
          provider_code: fc.constantFrom("E1", "E2", "E3"),
          side_effect_state: fc.constantFrom(...STATES),
          headers: fc.dictionary(fc.constantFrom("x-should-retry", "X-Should-Retry", "RETRY-AFTER", "retry-after-ms", "Retry-After-Ms", "x-other"), fc.constantFrom("true", "false", "0", "10", "*", "")),
          fields: fc.dictionary(
            fc.constantFrom("decline_code", "errno", "retryable_trait", "ratio", "undeclared"),
            fc.oneof(fc.constantFrom("insufficient_funds", "expired", "1", "true"), fc.constantFrom(1, 2, 0.5, 1.5, 0), fc.boolean()),
          ),
          cause: causeArb,
        },
        { requiredKeys: ["kind"] },
      ),
      { nil: undefined, freq: 12 },
    ).chain((error) => fc.oneof({ arbitrary: fc.constant<unknown>(error), weight: 30 }, fc.constantFrom<unknown>([], [{ kind: "timeout" }], "", "text", 0, 1, true, false))),
    tool: fc.option(fc.oneof(fc.constantFrom(...TOOLS), fc.string({ maxLength: 6 })), { nil: undefined, freq: 5 }),
  },
  { requiredKeys: [] },
);

const WEIRD_CODES = ["class", "1st.failure", "a-b", "a.b", "a_b", "A_B", "é", "__proto__", "none", "classify", "make.envelope", "x\"y", "q'\\n", "tab\there", "line\nbreak", "bidi\u202eevil", "NUL\u0000"];
const WEIRD: Registry = { ...MIXED, error_fields: { "weird name": { type: "string" }, class: { type: "integer" } }, verdicts: [...WEIRD_CODES.map((c, i) => verdict(c, [{ kind: `k${i}` }], { summary: `summary of ${c}` })), verdict("fallback_verdict", [])] };

const TRICKY = 'say """hi""" \\ \'q\' \n next\r\u2028 \u202e rtl \u0000 😀 ${x} </script> # not a comment';
const TRICKY_REGISTRY: Registry = {
  ...MIXED,
  name: 'reg"istry\n',
  verdicts: [
    verdict("tricky", [{ kind: TRICKY, message_contains: TRICKY }], { summary: TRICKY, recovery: "use token=abcd1234efgh5678 now", safe_next_actions: [TRICKY, "Bearer abcdefghijklmnop"] }),
    verdict("fallback_verdict", []),
  ],
};
const trickyModule = () => module(TRICKY_REGISTRY, { ...failAll(TRICKY_REGISTRY), verdicts: { tricky: { action: "escalate_to_human", queue: TRICKY }, fallback_verdict: { action: "fail", message: "password=hunter22" } } });

/** No kinds, no reserved codes, no declared fields: the empty vocabularies must still type-check. */
const BARE: Registry = {
  apiVersion: "failbook/v1",
  kind: "Registry",
  name: "bare",
  revision: 1,
  classes: { c: {} },
  fallback: "a",
  verdicts: [verdict("a", [{ provider_code: "X" }, { message_matches: "/^é+|\\d{3}$/u" }], { retryable: true }), verdict("f", [], { status: "deprecated", replaced_by: "a" })],
};
const bareModule = () =>
  module(BARE, { apiVersion: "failbook/v1", kind: "Playbook", name: "p", verdicts: { a: { action: "retry_with_backoff", max_retries: 2, backoff: { strategy: "exponential", base_ms: 100, jitter: 0.25 } }, f: { action: "fallback", tool: "x.y" } } });

/** The Python verdict of each (module, error, tool). */
function pythonVerdicts(dir: string, cases: { module: string; error?: unknown; tool?: string }[]): string[] {
  return callPython(
    dir,
    cases.map((c) => ({ module: c.module, call: "classify", args: [c.error ?? null, c.tool ?? null] })),
  ) as string[];
}

describe.skipIf(PYTHON === null)("gen py", () => {
  let shippedDir = "";
  beforeAll(() => {
    const { project } = loadProject({ cwd: REPO });
    shippedDir = writeModules({ shipped: generatePython(project).text, mixed: module(MIXED), weird: module(WEIRD), tricky: trickyModule(), bare: bareModule() });
  });

  it("compiles with py_compile and passes pyright --strict (Python 3.9) with zero errors", () => {
    const compiled = python(["-m", "py_compile", ...["shipped", "mixed", "weird", "tricky", "bare"].map((m) => join(shippedDir, `${m}.py`))]);
    expect(compiled.stderr).toBe("");
    expect(compiled.code).toBe(0);
    const checked = pyright(shippedDir);
    expect(checked.output).toBe("");
    expect(checked.errors).toBe(0);
  }, 120_000);

  it("agrees with the library on every failed response of the shipped fixtures", () => {
    const { project } = loadProject({ cwd: REPO });
    const registry = project.registry!.value;
    const cases: { module: string; error?: AdapterError; tool?: string }[] = [];
    const walk = (node: unknown, tool?: string): void => {
      if (Array.isArray(node)) return node.forEach((n) => walk(n, tool));
      if (node === null || typeof node !== "object") return;
      const o = node as Record<string, unknown>;
      const here = (o.call as { tool?: string } | undefined)?.tool ?? tool;
      for (const [key, value] of Object.entries(o)) {
        if ((key === "responses" || key === "fallback_responses") && Array.isArray(value)) {
          for (const r of value as { status?: string; error?: AdapterError }[]) if (r.status === "error") cases.push({ module: "shipped", error: r.error, tool: here });
        } else walk(value, here);
      }
    };
    project.fixtures.forEach((f) => walk(f.value));
    expect(cases.length).toBeGreaterThan(10);
    cases.push({ module: "shipped", error: undefined, tool: "any.tool" });
    expect(pythonVerdicts(shippedDir, cases)).toEqual(cases.map((c) => engineClassify(registry, c.error, c.tool).verdict));
  });

  it("agrees with the library on 4,000 random errors (headers, fields, causes, messages, patterns, globs)", () => {
    const samples = fc.sample(errorArb, { numRuns: 4000, seed: 20261123 });
    const expected = samples.map(({ error, tool }) => engineClassify(MIXED, error as AdapterError | undefined, tool).verdict);
    const got = pythonVerdicts(
      shippedDir,
      samples.map(({ error, tool }) => ({ module: "mixed", error, tool })),
    );
    for (let i = 0; i < samples.length; i++) expect(got[i], JSON.stringify(samples[i])).toBe(expected[i]);
    // Worth something only when the errors reach every verdict that can match.
    expect([...new Set(expected)].sort()).toEqual(MIXED.verdicts.filter((v) => v.status !== "reserved").map((v) => v.code).sort());
  }, 60_000);

  it("agrees with the library on random registries", () => {
    const status = fc.oneof(fc.integer({ min: 100, max: 599 }), fc.constantFrom("1xx", "4xx", "5xx", "500-599", "400-451", "503", "429"));
    const listOr = <T>(a: fc.Arbitrary<T>) => fc.oneof(a, fc.array(a, { minLength: 1, maxLength: 3 }));
    const ruleArb: fc.Arbitrary<MatchRule> = fc.record(
      {
        kind: listOr(fc.constantFrom(...KINDS)),
        http_status: listOr(status),
        provider_code: listOr(fc.constantFrom("E1", "E2", "E3")),
        message_contains: listOr(fc.constantFrom(...WORDS, "")),
        message_matches: listOr(fc.constantFrom("^rate", "/limit\\s\\d/i", "\\bword\\b", "/^x$/m", "😀.", "/😀./u")),
        tool: listOr(fc.constantFrom("*", "payments.*", "?.*", "a?c.*", "*.refund", "payments.refund", "*\n*")),
        side_effect_state: listOr(fc.constantFrom(...STATES)),
        headers: fc.dictionary(fc.constantFrom("X-Should-Retry", "retry-after"), listOr(fc.constantFrom("true", "*", "0"))),
        fields: fc.dictionary(fc.constantFrom("decline_code", "errno", "retryable_trait"), listOr(fc.constantFrom<string | number | boolean>("expired", 1, 2, true, false))),
        cause: fc.record({ kind: fc.constantFrom(...KINDS), provider_code: fc.constantFrom("E1", "E3") }, { requiredKeys: [] }),
      },
      { requiredKeys: [] },
    );
    const registryArb = fc
      .array(fc.record({ rules: fc.array(ruleArb, { maxLength: 3 }), status: fc.constantFrom("active", "active", "reserved", "deprecated") as fc.Arbitrary<Verdict["status"]> }), { minLength: 1, maxLength: 6 })
      .map((specs): Registry => ({ ...MIXED, verdicts: [...specs.map((s, i) => verdict(`v${i}`, s.rules, { status: s.status })), verdict("fallback_verdict", [])] }));
    const samples = fc.sample(fc.tuple(registryArb, fc.array(errorArb, { minLength: 100, maxLength: 100 })), { numRuns: 25, seed: 7 });
    const modules: Record<string, string> = {};
    const cases: { module: string; error?: unknown; tool?: string }[] = [];
    const expected: string[] = [];
    samples.forEach(([registry, errors], r) => {
      modules[`random_${r}`] = module(registry);
      for (const { error, tool } of errors) {
        cases.push({ module: `random_${r}`, error, tool });
        expected.push(engineClassify(registry, error as AdapterError | undefined, tool).verdict);
      }
    });
    const got = pythonVerdicts(writeModules(modules), cases);
    for (let i = 0; i < cases.length; i++) expect(got[i], JSON.stringify(cases[i])).toBe(expected[i]);
  }, 60_000);

  it("agrees with the library at 1,500 codes, a third of their rules without kind", () => {
    const verdicts: Verdict[] = [];
    for (let i = 0; i < 1500; i++) {
      const shape = i % 3;
      const match: MatchRule[] =
        shape === 0
          ? [{ kind: `kind_${i}` }, { kind: [`alt_${i}`, "shared_kind"], side_effect_state: "none" }]
          : shape === 1
            ? [{ provider_code: `Code${i}`, http_status: 400 + (i % 100) }, { provider_code: [`code_${i}`], http_status: "5xx" }, { message_contains: `text ${i} here` }]
            : [
                { kind: "http_error", http_status: ["500-503", 429], message_contains: `m${i % 17}` },
                { kind: `mixed_${i}`, headers: { "X-Should-Retry": i % 2 ? "true" : "*" }, fields: { decline_code: [`d${i % 13}`, i % 5] }, tool: `svc${i % 9}.*` },
                { fields: { errno: i }, cause: { provider_code: `Code${i - 1}` } },
              ];
      verdicts.push(verdict(`svc${Math.floor(i / 100)}.err_${i}`, match, i % 97 === 0 ? { status: "reserved" } : {}));
    }
    verdicts.push(verdict("fallback_verdict", []));
    const registry: Registry = { ...MIXED, verdicts };
    const noise = <T>(value: T, other: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant(value), weight: 3 }, { arbitrary: other, weight: 1 });
    const errors = fc.sample(
      fc.integer({ min: 0, max: 1499 }).chain((i) =>
        fc.record(
          {
            kind: noise(i % 3 === 2 ? "http_error" : `kind_${i}`, fc.constantFrom("shared_kind", `mixed_${i}`, `alt_${i}`)),
            provider_code: noise(i % 2 ? `Code${i}` : `code_${i}`, fc.constantFrom("Code1", "nothing")),
            http_status: noise(400 + (i % 100), fc.integer({ min: 100, max: 999 })),
            message: fc.constantFrom(`upstream said m${i % 17}`, `the text ${i} here`, "", "TEXT 3 HERE"),
            side_effect_state: fc.constantFrom(...STATES),
            headers: fc.dictionary(fc.constantFrom("x-should-retry", "X-SHOULD-RETRY"), fc.constantFrom("true", "false")),
            fields: fc.dictionary(fc.constantFrom("decline_code", "errno"), fc.oneof(fc.constant(`d${i % 13}`), fc.constant(i % 5), fc.constant(i))),
            cause: fc.option(fc.record({ kind: fc.constant("inner"), provider_code: fc.constant(`Code${i - 1}`) }), { nil: undefined }),
          },
          { requiredKeys: ["kind"] },
        ),
      ),
      { numRuns: 4000, seed: 1123 },
    );
    const tools = ["svc3.op", "svc8.refund", "other.x", undefined];
    const cases = errors.map((error, i) => ({ module: "large", error, tool: tools[i % tools.length] }));
    const expected = cases.map((c) => engineClassify(registry, c.error as AdapterError, c.tool).verdict);
    const got = pythonVerdicts(writeModules({ large: module(registry) }), cases);
    for (let i = 0; i < cases.length; i++) expect(got[i], JSON.stringify(cases[i])).toBe(expected[i]);
    expect(new Set(expected).size).toBeGreaterThan(300);
  }, 120_000);

  it("makes a valid module from codes that are no Python identifier, with distinct constructor names", () => {
    const text = module(WEIRD);
    const names = [...text.matchAll(/^def (\w+_envelope)\(/gm)].map((m) => m[1]).filter((n) => n !== "make_envelope");
    expect(names.length).toBe(WEIRD_CODES.length + 1);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain("class_envelope");
    expect(text).not.toMatch(/[^\x00-\x7f]/);
    const dir = shippedDir;
    // Each constructor builds its own code's envelope; classify returns the code itself.
    const calls = WEIRD_CODES.map((code, i) => ({ module: "weird", call: "classify", args: [{ kind: `k${i}` }, null] }));
    expect(callPython(dir, calls)).toEqual(WEIRD_CODES);
    const envelopes = callPython(dir, names.map((name) => ({ module: "weird", call: name as string, args: [] }))) as { code: string }[];
    expect(envelopes.map((e) => e.code).sort()).toEqual([...WEIRD_CODES, "fallback_verdict"].sort());
  });

  it("carries every text exactly (quotes, backslashes, line breaks, controls, astral) and redacts secrets", () => {
    const text = trickyModule();
    expect(text).not.toContain("abcd1234efgh5678");
    expect(text).not.toContain("hunter22");
    expect(text).not.toContain("abcdefghijklmnop");
    const dir = shippedDir;
    const [info, playbook, verdictOf] = callPython(dir, [
      { module: "tricky", call: "VERDICT_INFO.get", args: ["tricky"] },
      { module: "tricky", call: "PLAYBOOK.get", args: ["tricky"] },
      { module: "tricky", call: "classify", args: [{ kind: TRICKY, message: `>${TRICKY.toUpperCase()}<` }, null] },
    ]) as [{ summary: string; recovery: string; safe_next_actions: string[] }, { queue: string }, string];
    expect(info.summary).toBe(TRICKY);
    expect(info.recovery).toBe("use token=[REDACTED] now");
    expect(info.safe_next_actions).toEqual([TRICKY, "Bearer [REDACTED]"]);
    expect(playbook.queue).toBe(TRICKY);
    expect(verdictOf).toBe("tricky");
  });

  it("is deterministic and names its source, the command and its manifest", () => {
    const a = module(MIXED);
    expect(module(MIXED)).toBe(a);
    expect(a.split("\n")[0]).toBe("# @generated by `failbook gen py`. DO NOT EDIT: changes are overwritten on the next generation.");
    expect(a).toMatch(/\n# failbook-manifest: \{"verdicts":\{/);
  });
});

describe.skipIf(PYTHON === null)("message_matches in Python's re", () => {
  it("decides as JavaScript's RegExp on 10,000 random patterns and messages (flags i, m, s, u; astral, line terminators, case)", () => {
    const ALPHABET = ["a", "A", "b", "s", "S", "k", "K", "\u017f", "\u212a", "é", "É", "😀", "\n", "\r", "\u2028", " ", "\u00a0", "\ufeff", "1", "_", "-", "\ud83d", "ı", "İ"];
    const atom = fc.constantFrom(
      "a", "A", "s", "k", "é", "😀", ".", "\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "[a-c]", "[^a]", "[^\\w]", "[\\s\\S]", "[A-Z]", "[s-t]", "[😀-😁]", "\\u017f",
      "\\x41", "\\u{1F600}", "(?:a|b)", "(a|1)", "(?<n>b)", "[-a]", "[a-]", "\\.", "\\-", "\\n", "\\t", "[]", "[^]", "{", "}", "]", "\\ud83d",
    );
    const assertion = fc.constantFrom("^", "$", "\\b", "\\B", "(?=a)", "(?!s)", "(?<=a)", "(?<!\\d)");
    const quantifier = fc.constantFrom("", "", "*", "+", "?", "{2}", "{1,3}", "{0,}", "*?", "+?");
    const term = fc.oneof(fc.tuple(atom, quantifier).map(([a, q]) => a + q), assertion);
    const patternArb = fc.tuple(fc.array(term, { minLength: 1, maxLength: 5 }), fc.array(term, { maxLength: 3 }), fc.subarray(["i", "m", "s", "u"]));
    const messageArb = fc.array(fc.constantFrom(...ALPHABET), { maxLength: 8 }).map((parts) => parts.join(""));
    const cases: { source: string; unicode: boolean; message: string; expected: boolean }[] = [];
    let refused = 0;
    for (const [[left, right, flags], messages] of fc.sample(fc.tuple(patternArb, fc.array(messageArb, { minLength: 10, maxLength: 10 })), { numRuns: 1000, seed: 42 })) {
      const body = right.length > 0 ? `${left.join("")}|${right.join("")}` : left.join("");
      let js: RegExp;
      try {
        js = new RegExp(body, flags.join(""));
      } catch {
        continue;
      }
      const translated = pythonPattern(`/${body}/${flags.join("")}`);
      if (!translated.ok) {
        refused++;
        continue;
      }
      for (const message of messages) cases.push({ source: translated.source, unicode: translated.unicode, message, expected: js.test(message) });
    }
    expect(cases.length).toBeGreaterThan(5_000);
    expect(refused).toBeLessThan(500);
    expect(cases.some((c) => c.expected) && cases.some((c) => !c.expected)).toBe(true);
    const script = String.raw`
import json, re, sys
def utf16(text):
    return "".join(ch if ord(ch) < 0x10000 else chr(0xD800 + ((ord(ch) - 0x10000) >> 10)) + chr(0xDC00 + ((ord(ch) - 0x10000) & 0x3FF)) for ch in text)
for line in sys.stdin:
    c = json.loads(line)
    text = c["message"] if c["unicode"] else utf16(c["message"])
    print(json.dumps(re.compile(c["source"], re.ASCII).search(text) is not None))
`;
    const r = python(["-c", script], cases.map((c) => JSON.stringify(c)).join("\n") + "\n");
    expect(r.stderr).toBe("");
    const got = r.stdout.trimEnd().split("\n").map((l) => JSON.parse(l) as boolean);
    for (let i = 0; i < cases.length; i++) expect(got[i], JSON.stringify(cases[i])).toBe(cases[i]!.expected);
  }, 120_000);
});

describe("gen py refuses what Python cannot decide exactly", () => {
  it.each([
    ["(a)\\1", "backreference"],
    ["/(?<=a+)b/", "look-behind whose width varies"],
    ["/\\p{L}/u", "Unicode property escape"],
    ["/é/i", "non-ASCII letter"],
    ["/\\bx/iu", "\\b or \\B with the i and u flags"],
  ])("%s", (pattern, reason) => {
    const registry: Registry = { ...MIXED, verdicts: [verdict("p", [{ kind: "k" }, { message_matches: ["ok", pattern] }]), verdict("fallback_verdict", [])] };
    let error: unknown;
    try {
      module(registry);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CodegenError);
    const problem = (error as CodegenError).problems[0]!;
    expect(problem.rule).toBe("python-pattern");
    expect(problem.path).toEqual(["verdicts", 0, "match", 1, "message_matches", 1]);
    expect(problem.message).toContain(reason);
  });

  it("but not on a reserved verdict, which never matches", () => {
    const registry: Registry = { ...MIXED, verdicts: [verdict("p", [{ message_matches: "(a)\\1" }], { status: "reserved" }), verdict("fallback_verdict", [])] };
    expect(() => module(registry)).not.toThrow();
  });
});

if (PYTHON === null) {
  describe("gen py (Python)", () => {
    it.skip(NO_PYTHON_MESSAGE, () => {});
  });
}
