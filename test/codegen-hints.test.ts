/**
 * SPEC 18 in the generated bindings: match rules with `not:` and `retry_after: present` (each
 * verdict reading its own retry action's policy, or the playbook's) classify in the `gen ts`
 * module and the `gen py` module exactly as the library does, on values chosen where
 * JavaScript's Number, parseFloat, exact decimals and HTTP dates are easy to get wrong.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { classify as engineClassify } from "failbook-runtime/engine/classify.js";
import type { AdapterError } from "failbook-runtime/model/fixture.js";
import type { CompensationAction, Playbook } from "failbook-runtime/model/playbook.js";
import type { MatchRule, Registry, Verdict } from "failbook-runtime/model/registry.js";
import { generatePython } from "../src/codegen/python.js";
import { generateTypeScript } from "../src/codegen/typescript.js";
import { callPython, PYTHON, pyright, writeModules } from "./helpers/python.js";
import { importTypeScript } from "./helpers/typescript.js";

const verdict = (code: string, match: MatchRule[]): Verdict => ({ code, class: "c", retryable: true, match });
const retryWith = (retry_after: NonNullable<Extract<CompensationAction, { action: "retry_with_backoff" }>["retry_after"]>): CompensationAction => ({ action: "retry_with_backoff", max_retries: 2, backoff_ms: [100, 200], retry_after });

const REGISTRY: Registry = {
  apiVersion: "failbook/v1",
  kind: "Registry",
  name: "hints",
  revision: 1,
  classes: { c: {} },
  error_fields: { next_retry_delay: { type: "number" }, errno: { type: "string" } },
  fallback: "other",
  verdicts: [
    verdict("aborted_network", [{ kind: "network", cause: { kind: "AbortError" } }]),
    verdict("network", [{ kind: "network", not: { cause: { kind: "AbortError" } } }]),
    verdict("azure_throttled", [{ http_status: 429, retry_after: "present" }]),
    verdict("openai_throttled", [{ http_status: [429, 503], retry_after: "present" }]),
    verdict("pushback", [{ kind: "grpc", retry_after: "present" }, { kind: "grpc", not: { fields: { errno: "EPIPE" } } }]),
    verdict("strict_hint", [{ retry_after: "present", not: { http_status: "5xx" } }]),
    verdict("rate_limit_reset", [{ http_status: 403, retry_after: "present" }]),
    verdict("other", []),
  ],
};

const PLAYBOOK: Playbook = {
  apiVersion: "failbook/v1",
  kind: "Playbook",
  name: "hints",
  retry_after: { headers: ["retry-after"] },
  verdicts: {
    aborted_network: { action: "fail" },
    network: { action: "fail" },
    azure_throttled: retryWith({ headers: ["retry-after-ms", "x-ms-retry-after-ms", "retry-after"], parse: "number" }),
    openai_throttled: retryWith({ headers: ["retry-after-ms", "retry-after"], parse: "float", zero: "absent" }),
    pushback: retryWith({ headers: ["grpc-retry-pushback-ms", "x-amz-retry-after"], ms_headers: ["x-amz-retry-after"], fields: ["next_retry_delay"] }),
    strict_hint: { action: "fail" },
    // SPEC 21: GitHub's reset time (a Unix time) and OpenAI's reset duration.
    rate_limit_reset: retryWith({ headers: [{ name: "x-ratelimit-reset", epoch: "seconds" }, { name: "x-ratelimit-reset-requests", duration: true }, { name: "x-reset-ms", epoch: "ms" }] }),
    other: { action: "fail" },
  },
};

const VALUES = ["2", "2.03", "0", "0.0", "-1", "-0", "", "  ", " 7 ", "\u00a05", "5\u00a0", "\u200b5", "0x10", "0o7", "0b11", "-0x1", "1e3", "1e", "1.e2", ".5", "5.", "+.5e1", "3s", "Infinity", "-Infinity", "1e400", "NaN", "1_0", "12345678901234567890", "0.0004",
  "Wed, 21 Oct 2026 07:28:30 GMT", "Tue, 31 Feb 2026 00:00:00 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Wed, 21 Oct 2026 24:00:00 GMT", " Wed, 21 Oct 2026 07:28:30 GMT ",
  "1m30.5s", "6m0s", "20ms", "2.03s", "1h2m3s", "-1s", "0s", "1.5.5s", "5us", "3\u00b5s", "7ns", "1700000000", "1700000000.5", "1m 5s"];
const HEADERS = ["retry-after", "Retry-After", "retry-after-ms", "x-ms-retry-after-ms", "grpc-retry-pushback-ms", "x-amz-retry-after", "x-other", "x-ratelimit-reset", "X-RateLimit-Reset-Requests", "x-reset-ms"];

const errorArb: fc.Arbitrary<AdapterError> = fc.record(
  {
    kind: fc.constantFrom("network", "grpc", "http"),
    http_status: fc.constantFrom(429, 503, 500, 400, 403),
    headers: fc.dictionary(fc.constantFrom(...HEADERS), fc.constantFrom(...VALUES), { maxKeys: 3 }),
    fields: fc.record({ next_retry_delay: fc.constantFrom(0, -5, 250, 2.5, 1e300, 0.4), errno: fc.constantFrom("EPIPE", "ECONNRESET") }, { requiredKeys: [] }),
    cause: fc.option(fc.record({ kind: fc.constantFrom("AbortError", "socket"), cause: fc.option(fc.constant({ kind: "AbortError" }), { nil: undefined }) }, { requiredKeys: ["kind"] }), { nil: undefined }),
  },
  { requiredKeys: ["kind"] },
) as fc.Arbitrary<AdapterError>;

const samples = fc.sample(errorArb, { numRuns: 3000, seed: 2818 });
const expected = samples.map((error) => engineClassify(REGISTRY, error, undefined, PLAYBOOK).verdict);

describe("not: and retry_after: present in the generated bindings", () => {
  it("the samples reach every verdict, and the playbook's policies matter", () => {
    expect(new Set(expected)).toEqual(new Set(REGISTRY.verdicts.map((v) => v.code)));
    // Without the playbook the rules read the default policy: some errors classify otherwise.
    expect(samples.some((error, i) => engineClassify(REGISTRY, error, undefined).verdict !== expected[i])).toBe(true);
  });

  it("gen ts classify() agrees with the library on 3,000 errors", async () => {
    const text = generateTypeScript({ registry: REGISTRY, playbook: PLAYBOOK }).text;
    const mod = await importTypeScript<{ classify: (e: AdapterError) => string }>({ "gen.ts": text }, "gen.ts");
    samples.forEach((error, i) => expect(mod.classify(error), JSON.stringify(error)).toBe(expected[i]));
  });

  describe.skipIf(PYTHON === null)("gen py", () => {
    let dir = "";
    beforeAll(() => {
      dir = writeModules({ hints: generatePython({ registry: REGISTRY, playbook: PLAYBOOK }).text });
    });

    it("classify() agrees with the library on 3,000 errors", () => {
      const got = callPython(dir, samples.map((error) => ({ module: "hints", call: "classify", args: [error, null] })));
      samples.forEach((error, i) => expect(got[i], JSON.stringify(error)).toBe(expected[i]));
    }, 60_000);

    it("passes pyright --strict", () => {
      const checked = pyright(dir);
      expect(checked.output).toBe("");
      expect(checked.errors).toBe(0);
    }, 120_000);
  });
});
