/**
 * Differential test: the generated classify(), compiled and imported, names the same verdict
 * as the engine's classifier (src/engine/classify.ts) for the shipped fixtures' errors and
 * for thousands of random adapter errors, on registries that use every matcher form.
 */
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { classify as engineClassify } from "failbook-runtime/engine/classify.js";
import { loadProject } from "../src/load/project.js";
import type { AdapterError } from "failbook-runtime/model/fixture.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import type { MatchRule, Registry, SideEffectState, Verdict } from "failbook-runtime/model/registry.js";
import { generateTypeScript } from "../src/codegen/typescript.js";
import { REPO } from "./helpers/cli.js";
import { importTypeScript } from "./helpers/typescript.js";

type GeneratedClassify = (error: AdapterError | undefined, call?: { tool?: string }) => string;

async function compiledClassify(registry: Registry, playbook?: Playbook): Promise<GeneratedClassify> {
  const actions = Object.fromEntries(registry.verdicts.map((v) => [v.code, { action: "fail" as const }]));
  const text = generateTypeScript({ registry, playbook: playbook ?? { apiVersion: "failbook/v1", kind: "Playbook", name: "p", verdicts: actions } }).text;
  const mod = await importTypeScript<{ classify: GeneratedClassify }>({ "gen.ts": text }, "gen.ts");
  return mod.classify;
}

/** Every failed response in a fixture, with the tool of the call it answers. */
function failedResponses(node: unknown, tool?: string, out: { error?: AdapterError; tool?: string }[] = []) {
  if (Array.isArray(node)) {
    for (const item of node) failedResponses(item, tool, out);
    return out;
  }
  if (node === null || typeof node !== "object") return out;
  const o = node as Record<string, unknown>;
  const call = o.call as { tool?: string } | undefined;
  const here = call?.tool ?? tool;
  for (const [key, value] of Object.entries(o)) {
    if ((key === "responses" || key === "fallback_responses") && Array.isArray(value)) {
      for (const r of value as { status?: string; error?: AdapterError }[]) if (r.status === "error") out.push({ error: r.error, tool: here });
    } else failedResponses(value, here, out);
  }
  return out;
}

describe("generated classify() agrees with the engine", () => {
  it("on every failed response of the shipped fixtures", async () => {
    const { project } = loadProject({ cwd: REPO });
    const registry = project.registry!.value;
    const classify = await compiledClassify(registry, project.playbook!.value);
    const cases = project.fixtures.flatMap((f) => failedResponses(f.value));
    expect(cases.length).toBeGreaterThan(0);
    for (const c of [...cases, { error: undefined, tool: "any.tool" }]) {
      expect(classify(c.error, { tool: c.tool }), JSON.stringify(c)).toBe(engineClassify(registry, c.error, c.tool).verdict);
    }
  });

  const KINDS = ["timeout", "read_timeout", "409_conflict", "x", "5xx", "Timeout"];
  const TOOLS = ["payments.refund", "payments.", "abc.x", "a.c.z", "aXc.q", "a\nc.x", "\n.q", "x.refund", "[a-z]+.(x)", "a+b.c", "", "payments\nrefund"];
  const STATES: SideEffectState[] = ["none", "unknown", "committed"];
  const WORDS = ["idempotency", "IDEMPOTENCY", "Dup", "äÖ", "ÄÖ", "evidence", " ", "İ", "x"];

  const verdict = (code: string, match: MatchRule[], extra: Partial<Verdict> = {}): Verdict => ({ code, class: "c", retryable: false, match, ...extra });
  /** A registry with lists, status classes, ranges, string statuses, globs, message_contains, reserved and deprecated verdicts. */
  const MIXED: Registry = {
    apiVersion: "failbook/v1",
    kind: "Registry",
    name: "mixed",
    revision: 1,
    classes: { c: {} },
    fallback: "fallback_verdict",
    verdicts: [
      verdict("reserved_first", [{ kind: "timeout" }], { status: "reserved" }),
      verdict("timeouts", [{ kind: ["timeout", "read_timeout"], http_status: ["5xx", 408] }, { message_contains: ["Idempotency", "dup"], tool: "payments.*" }]),
      verdict("range", [{ http_status: "500-503", provider_code: ["E1", "E2"] }]),
      verdict("globbed", [{ tool: ["a?c.*", "*.refund"], side_effect_state: ["committed", "unknown"] }]),
      verdict("old", [{ http_status: ["429", 401], message_contains: "" }], { status: "deprecated", replaced_by: "range" }),
      verdict("unicode", [{ kind: "x", message_contains: "äö" }, { message_contains: "i̇" }]),
      verdict("regexy", [{ tool: "[a-z]+.(x)" }, { tool: "a+b.?" }]),
      verdict("none_state", [{ side_effect_state: "none", http_status: "4xx" }]),
      verdict("fallback_verdict", []),
    ],
  };

  const errorArb: fc.Arbitrary<{ error?: AdapterError; tool?: string }> = fc.record(
    {
      error: fc.option(
        fc.record(
          {
            kind: fc.oneof(fc.constantFrom(...KINDS), fc.string({ maxLength: 6 })),
            message: fc.array(fc.oneof(fc.constantFrom(...WORDS), fc.string({ maxLength: 4 })), { maxLength: 4 }).map((w) => w.join("")),
            http_status: fc.oneof(fc.constantFrom(401, 408, 429, 500, 503, 504, 599, 600, 99, 500.5, 599.9), fc.integer({ min: 100, max: 599 })),
            provider_code: fc.constantFrom("E1", "E2", "E3"),
            side_effect_state: fc.constantFrom(...STATES),
          },
          { requiredKeys: ["kind"] },
        ),
        { nil: undefined, freq: 10 },
      ),
      tool: fc.option(fc.oneof(fc.constantFrom(...TOOLS), fc.string({ maxLength: 8 })), { nil: undefined, freq: 6 }),
    },
    { requiredKeys: [] },
  );

  describe("on random adapter errors", () => {
    let classify: GeneratedClassify;
    beforeAll(async () => {
      classify = await compiledClassify(MIXED);
    });

    it("for 3000 errors against a registry that uses every matcher form", () => {
      const seen = new Set<string>();
      fc.assert(
        fc.property(errorArb, ({ error, tool }) => {
          const expected = engineClassify(MIXED, error, tool).verdict;
          seen.add(expected);
          expect(classify(error, tool === undefined ? undefined : { tool })).toBe(expected);
        }),
        { numRuns: 3000, seed: 20261122 },
      );
      // The arbitrary reaches every verdict except the reserved one, which never matches.
      expect([...seen].sort()).toEqual(MIXED.verdicts.filter((v) => v.status !== "reserved").map((v) => v.code).sort());
    });
  });

  it("for random registries and errors", async () => {
    const status = fc.oneof(fc.integer({ min: 100, max: 599 }), fc.constantFrom("1xx", "2xx", "3xx", "4xx", "5xx", "500-599", "400-451", "503", "429"));
    const listOr = <T>(a: fc.Arbitrary<T>) => fc.oneof(a, fc.array(a, { minLength: 1, maxLength: 3 }));
    const ruleArb: fc.Arbitrary<MatchRule> = fc.record(
      {
        kind: listOr(fc.constantFrom(...KINDS)),
        http_status: listOr(status),
        provider_code: listOr(fc.constantFrom("E1", "E2", "E3")),
        message_contains: listOr(fc.constantFrom(...WORDS, "")),
        tool: listOr(fc.constantFrom("*", "payments.*", "?.*", "a?c.*", "*.refund", "[a-z]+.(x)", "payments.refund", "*\n*")),
        side_effect_state: listOr(fc.constantFrom(...STATES)),
      },
      { requiredKeys: [] },
    );
    const registryArb = fc.array(fc.record({ rules: fc.array(ruleArb, { maxLength: 3 }), status: fc.constantFrom("active", "active", "reserved", "deprecated") as fc.Arbitrary<Verdict["status"]> }), { minLength: 1, maxLength: 6 }).map(
      (specs): Registry => ({
        ...MIXED,
        verdicts: [...specs.map((s, i) => verdict(`v${i}`, s.rules, { status: s.status })), verdict("fallback_verdict", [])],
      }),
    );
    const samples = fc.sample(fc.tuple(registryArb, fc.array(errorArb, { minLength: 100, maxLength: 100 })), { numRuns: 25, seed: 7 });
    for (const [registry, errors] of samples) {
      const classify = await compiledClassify(registry);
      for (const { error, tool } of errors) expect(classify(error, { tool }), JSON.stringify({ error, tool, registry: registry.verdicts })).toBe(engineClassify(registry, error, tool).verdict);
    }
  });

  it("at 1,200 codes whose rules are a third kind-only, a third provider_code + http_status without kind, a third mixed", async () => {
    const verdicts: Verdict[] = [];
    for (let i = 0; i < 1200; i++) {
      const shape = i % 3;
      const match: MatchRule[] =
        shape === 0
          ? [{ kind: `kind_${i}` }, { kind: [`alt_${i}`, "shared_kind"], side_effect_state: "none" }]
          : shape === 1
            ? [{ provider_code: `Code${i}`, http_status: 400 + (i % 100) }, { provider_code: [`code_${i}`], http_status: "5xx" }]
            : [
                { kind: "http_error", http_status: ["500-503", 429], message_contains: `m${i % 17}` },
                { kind: `mixed_${i}`, headers: { "X-Should-Retry": i % 2 ? "true" : "*" }, fields: { decline_code: [`d${i % 13}`, i % 5] }, tool: `svc${i % 9}.*` },
              ];
      verdicts.push(verdict(`svc${Math.floor(i / 100)}.err_${i}`, match, i % 97 === 0 ? { status: "reserved" } : {}));
    }
    verdicts.push(verdict("fallback_verdict", []));
    const registry: Registry = { ...MIXED, verdicts };
    const classify = await compiledClassify(registry);
    // Errors aimed at one verdict's rules (its kind, its provider code and status, its
    // headers and fields), each field kept or swapped for noise, so that some hold and some miss.
    const noise = <T>(value: T, other: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant(value), weight: 3 }, { arbitrary: other, weight: 1 });
    const errors = fc.sample(
      fc.integer({ min: 0, max: 1199 }).chain((i) =>
        fc.record(
          {
            kind: noise(i % 3 === 1 ? "http_error" : fc.sample(fc.constantFrom(`kind_${i}`, `alt_${i}`, `mixed_${i}`, "http_error"), { numRuns: 1, seed: i })[0], fc.constantFrom("shared_kind", "timeout", `kind_${i + 1}`)),
            provider_code: noise(i % 2 ? `Code${i}` : `code_${i}`, fc.constantFrom("Code1", "nothing")),
            http_status: noise(400 + (i % 100), fc.integer({ min: 100, max: 999 })),
            message: fc.integer({ min: 0, max: 20 }).map((m) => `upstream said m${m}`),
            side_effect_state: fc.constantFrom(...STATES),
            headers: fc.dictionary(fc.constantFrom("x-should-retry", "X-SHOULD-RETRY", "retry-after"), fc.constantFrom("true", "false")),
            fields: fc.dictionary(fc.constantFrom("decline_code", "errno"), fc.oneof(fc.constant(`d${i % 13}`), fc.constant(i % 5), fc.integer({ min: 0, max: 6 }).map(String))),
          },
          { requiredKeys: ["kind"] },
        ),
      ),
      { numRuns: 5000, seed: 1123 },
    );
    const tools = ["svc3.op", "svc8.refund", "other.x", undefined];
    const seen = new Set<string>();
    errors.forEach((error, i) => {
      const tool = tools[i % tools.length];
      const expected = engineClassify(registry, error as AdapterError, tool).verdict;
      seen.add(expected);
      expect(classify(error as AdapterError, { tool }), JSON.stringify({ error, tool })).toBe(expected);
    });
    // Worth something only when the errors reach many verdicts of every shape.
    expect(seen.size).toBeGreaterThan(300);
  });

  it("embeds the engine's classifier verbatim (functions private to the module)", () => {
    const text = generateTypeScript({ registry: MIXED, playbook: { apiVersion: "failbook/v1", kind: "Playbook", name: "p", verdicts: Object.fromEntries(MIXED.verdicts.map((v) => [v.code, { action: "fail" as const }])) } }).text;
    const source = readFileSync(join(REPO, "packages/runtime/src/engine/classifier.ts"), "utf8").replace(/^\/\*\*[\s\S]*?\*\/\n/, "").replace(/^export (function|const) /gm, "$1 ");
    expect(text).toContain(source);
  });
});
