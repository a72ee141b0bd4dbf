/**
 * The generated module compiles under strict settings, keeps every promise of its types
 * (checked with @ts-expect-error: an expectation that stops holding is itself an error),
 * and no text from YAML can change what it exports. All modules are checked in one program.
 */
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import type { Registry, Verdict } from "failbook-runtime/model/registry.js";
import { tsString } from "../src/codegen/escape.js";
import { generateTypeScript } from "../src/codegen/typescript.js";
import { exportTags, importTypeScript, propertyTags, STRICTEST, typeCheck, writeTree, type Compiled } from "./helpers/typescript.js";

/** Texts that try to escape a string or a comment, or to smuggle code or JSDoc tags in. */
const EVIL = [
  "*/ export const pwned = 1; /*",
  "`${(globalThis as any).pwnedTemplate = 1}`",
  '" + ((globalThis as any).pwnedQuote = 1) + "',
  "' + ((globalThis as any).pwnedSingle = 1) + '",
  "line\u2028separator\u2029paragraph",
  "</script><script>globalThis.pwnedScript = 1</script>",
  "<!-- an HTML comment opener -->",
  "\n@deprecated forged tag\n@internal\n * @param x",
  "{@link pwned} and oncall@example.com @returns nothing",
  "cr\rcrlf\r\nnul\u0000bell\u0007",
  "\\u002a/ backslash \\ escapes \\n",
  "${not.a.template}",
  "/* nested */ // line",
  "lone \ud800 surrogate",
];
const evil = (i: number) => EVIL[i % EVIL.length];

/** Codes that collide once separators are dropped, reserved words, prototype names, a fixed export. */
const HOSTILE_CODES = ["net.timeout", "net_timeout", "net-timeout", "Net.Timeout", "delete", "class", "__proto__", "constructor", "toString", "make", "123", "a*/b", "x\u2028y", "`${c}`", "</script>"];

function hostileProject(): { registry: Registry; playbook: Playbook } {
  const verdicts: Verdict[] = HOSTILE_CODES.map((code, i) => ({
    code,
    class: i % 2 === 0 ? evil(0) : "plain",
    retryable: i % 3 === 0,
    side_effect: "unknown",
    boundary: evil(i + 1),
    summary: evil(i),
    cause: evil(i + 2),
    recovery: evil(i + 3),
    safe_next_actions: [evil(i + 4), evil(i + 5)],
    unsafe_next_actions: [evil(i + 6)],
    details: {
      type: "object",
      description: evil(i + 7),
      properties: {
        [evil(i)]: { type: "string", description: evil(i + 8) },
        ["__proto__"]: { enum: [evil(i + 9), evil(i + 10), 3, null] },
        "*/": { type: "array", items: { type: "object", properties: { [evil(i + 11)]: { const: evil(i + 12) } }, additionalProperties: false } },
      },
      required: [evil(i)],
      additionalProperties: { type: "integer" },
    },
    match: [{ kind: [evil(i), `kind_${i}`], message_contains: evil(i + 1), tool: `${evil(i + 2)}*?` }],
  }));
  verdicts[1] = { ...verdicts[1], status: "deprecated", replaced_by: "net.timeout" };
  verdicts.push({ code: evil(4), class: "plain", retryable: false, status: "reserved", summary: evil(0) });
  const actions = HOSTILE_CODES.map((code, i) => [code, i % 2 === 0 ? { action: "escalate_to_human", queue: evil(i) } : { action: "retry_with_hint", max_retries: 2, hint: evil(i), backoff_ms: [1, 2] }]);
  return {
    registry: {
      apiVersion: "failbook/v1",
      kind: "Registry",
      name: evil(0),
      revision: 3,
      classes: { [evil(0)]: { description: evil(1) }, plain: {} },
      error_fields: Object.fromEntries([[evil(0), { type: "string", description: evil(2) }], ["__proto__", { type: "integer", description: evil(3) }], ["a b", { type: "boolean" }]]),
      verdicts,
      fallback: "delete",
    },
    playbook: { apiVersion: "failbook/v1", kind: "Playbook", name: evil(1), verdicts: Object.fromEntries(actions) as Playbook["verdicts"] },
  };
}

/** A small registry whose details schemas use every supported JSON Schema construct. */
function contractProject(): { registry: Registry; playbook: Playbook } {
  const verdict = (code: string, extra: Partial<Verdict> = {}): Verdict => ({ code, class: "transient", retryable: true, summary: `${code} summary`, match: [{ kind: code }], ...extra });
  return {
    registry: {
      apiVersion: "failbook/v1",
      kind: "Registry",
      name: "contract",
      revision: 1,
      classes: { transient: {}, permanent: {} },
      error_fields: { decline_code: { type: "string", description: "The card network's reason." }, errno: { type: "integer" }, weight: { type: "number" }, throttling: { type: "boolean" } },
      fallback: "unknown_error",
      verdicts: [
        verdict("rate_limited", {
          details: {
            type: "object",
            required: ["limit", "window"],
            additionalProperties: false,
            properties: {
              limit: { type: "integer" },
              window: { enum: ["second", "minute"] },
              scope: { type: "string" },
              buckets: { type: "array", items: { type: "object", required: ["name"], properties: { name: { type: "string" }, remaining: { type: ["integer", "null"] } } } },
              origin: { type: "object", required: ["region"], additionalProperties: false, properties: { region: { type: "string" }, zone: { anyOf: [{ type: "string" }, { type: "integer" }] } } },
            },
          },
        }),
        verdict("tagged", { details: { type: "object", additionalProperties: { type: "string" } } }),
        verdict("old_rate_limited", { status: "deprecated", replaced_by: "rate_limited" }),
        verdict("later", { status: "reserved" }),
        verdict("unknown_error", { class: "permanent", retryable: false, match: [] }),
      ],
    },
    playbook: {
      apiVersion: "failbook/v1",
      kind: "Playbook",
      name: "contract",
      verdicts: {
        rate_limited: { action: "retry_with_backoff", max_retries: 2, backoff: { strategy: "exponential", base_ms: 100, jitter: "full" } },
        tagged: { action: "fallback", tool: "backup.*" },
        old_rate_limited: { action: "dead_letter", queue: "dlq" },
        unknown_error: { action: "fail" },
      },
    },
  };
}

/** What an adapter author may and may not write against the contract registry's bindings. */
const CONTRACT_USE = `
import {
  classify, envelopeFor, rateLimitedEnvelope, taggedEnvelope, oldRateLimitedEnvelope, unknownErrorEnvelope, PLAYBOOK, VERDICT_INFO,
  ERROR_FIELDS, type ErrorFieldName,
  type AdapterError, type FailureEnvelope, type FailureVerdict, type ReservedVerdict, type ErrorKind, type DetailsByVerdict, type RateLimitedDetails, type CompensationAction,
} from "./contract.ts";

export function describeVerdict(v: FailureVerdict): string {
  switch (v) {
    case "rate_limited": return "a";
    case "tagged": return "b";
    case "old_rate_limited": return "c";
    case "unknown_error": return "d";
    default: { const unreachable: never = v; return unreachable; }
  }
}
export function missesOne(v: FailureVerdict): string {
  switch (v) {
    case "rate_limited": return "a";
    case "tagged": return "b";
    case "unknown_error": return "d";
    // @ts-expect-error old_rate_limited is not handled, so v is not never
    default: { const unreachable: never = v; return unreachable; }
  }
}
// @ts-expect-error a verdict cannot be invented
export const invented: FailureVerdict = "made_up";
// @ts-expect-error reserved verdicts are not FailureVerdicts
export const notYet: FailureVerdict = "later";
export const reserved: ReservedVerdict = "later";
// @ts-expect-error an error kind cannot be misspelt
export const misspelt: AdapterError = { kind: "rate_limted" };
export const kind: ErrorKind = "rate_limited";
export const withFields: AdapterError = { kind: "rate_limited", fields: { decline_code: "do_not_honor", errno: -104, weight: 0.5, throttling: true }, headers: { "X-Should-Retry": "false" }, cause: { kind: "ECONNRESET" } };
// @ts-expect-error a declared field has its declared type
export const badField: AdapterError = { kind: "rate_limited", fields: { errno: "ECONNRESET" } };
// @ts-expect-error a field the registry does not declare
export const strayField: AdapterError = { kind: "rate_limited", fields: { nope: 1 } };
export const fieldNames: readonly ErrorFieldName[] = ERROR_FIELDS;
export const classifiedWithFields: FailureVerdict = classify(withFields);
export const verdict: FailureVerdict = classify({ kind: "anything at all" }, { tool: "x.y" });

export const ok = rateLimitedEnvelope({ message: "slow down", details: { limit: 10, window: "minute", origin: { region: "eu", zone: 3 }, buckets: [{ name: "a", remaining: null }] } });
export const okMinimal = rateLimitedEnvelope({ details: { limit: 1, window: "second" } });
// @ts-expect-error required details property missing
export const noWindow = rateLimitedEnvelope({ details: { limit: 1 } });
// @ts-expect-error enum value not in the schema
export const badWindow = rateLimitedEnvelope({ details: { limit: 1, window: "hour" } });
// @ts-expect-error additionalProperties: false
export const extraProp = rateLimitedEnvelope({ details: { limit: 1, window: "second", surprise: true } });
// @ts-expect-error nested object's required property
export const badNested = rateLimitedEnvelope({ details: { limit: 1, window: "second", origin: { zone: "a" } } });
// @ts-expect-error array item type
export const badItems = rateLimitedEnvelope({ details: { limit: 1, window: "second", buckets: [{ remaining: 1 }] } });
// @ts-expect-error details are required for a verdict that declares them
export const noDetails = rateLimitedEnvelope({});
export const tagged = taggedEnvelope({ details: { team: "payments" } });
// @ts-expect-error additionalProperties: { type: string }
export const badTag = taggedEnvelope({ details: { team: 1 } });
// @ts-expect-error no details on a verdict without a schema
export const strayDetails = unknownErrorEnvelope({ details: {} });
export const old = oldRateLimitedEnvelope();

// envelopeFor: the envelope of a verdict known only at run time, typed by what the verdict allows.
export const fromClassify: FailureEnvelope = envelopeFor(classify({ kind: "x" }), { error: { kind: "x", message: "m" } });
export const forTagged: "tagged" = envelopeFor("tagged", { details: { team: "payments" } }).code;
export const forOld = envelopeFor("old_rate_limited", {});
// @ts-expect-error details are required for a verdict that declares them
export const forTaggedBare = envelopeFor("tagged", {});
// @ts-expect-error the details must be that verdict's
export const forTaggedBad = envelopeFor("tagged", { details: { team: 1 } });
// @ts-expect-error a reserved code has no envelope
export const forReserved = envelopeFor("later", {});

// @ts-expect-error an envelope cannot be built by hand
export const forged: FailureEnvelope = { code: "unknown_error", class: "permanent", retryable: false, side_effect_state: "none", human_action_required: false, retry_after_ms: null, summary: null, message: null, recovery_hint: null, safe_next_actions: [], unsafe_next_actions: [], boundary: null, trace_id: null, details: undefined };
export const neverRetryable: false = unknownErrorEnvelope().retryable;
export const anyEnvelope: FailureEnvelope = ok;
export function limitOf(e: FailureEnvelope): number {
  // the envelope union is discriminated by code: details narrow with it
  return e.code === "rate_limited" ? e.details.limit : 0;
}
export const details: DetailsByVerdict["rate_limited"] = ok.details satisfies RateLimitedDetails;
export const cls: "transient" = VERDICT_INFO.rate_limited.class;
export const retries: number = PLAYBOOK.rate_limited.max_retries;
export const action: CompensationAction = PLAYBOOK.tagged;
export function nextStep(a: CompensationAction): string {
  switch (a.action) {
    case "retry_with_backoff": case "retry_with_hint": return String(a.max_retries);
    case "refresh_evidence": case "restore_checkpoint": case "refresh_credentials": return a.then;
    case "escalate_to_human": case "dead_letter": return a.queue;
    case "issue_reversal": case "deprecate_tool_call": return a.reason;
    case "fallback": return a.tool;
    case "fail": return a.message ?? "";
    default: { const unreachable: never = a; return unreachable; }
  }
}
`;

const FIXED_VALUES = ["ERROR_FIELDS", "ERROR_KINDS", "EXAMPLES", "FAILURE_CLASSES", "FALLBACK_VERDICT", "MATCH_RULES", "PLAYBOOK", "PROJECT", "REGISTRY", "RESERVED_VERDICTS", "VERDICTS", "VERDICT_INFO", "classify", "envelopeFor", "isErrorKind", "isFailureVerdict", "toMcpToolResult"];

describe("generated TypeScript", () => {
  const hostile = hostileProject();
  const contract = contractProject();
  const hostileText = generateTypeScript(hostile, { files: { config: `fail\nbook*/.yaml`, registry: "reg\u2028istry.yaml", playbook: "</script>.yaml" }, command: "failbook gen ts --out '*/x.ts'" }).text;
  const contractText = generateTypeScript(contract).text;
  let dir: string;
  let compiled: Compiled;
  beforeAll(() => {
    dir = writeTree({ "hostile.ts": hostileText, "contract.ts": contractText, "use.ts": CONTRACT_USE });
    compiled = typeCheck(["hostile.ts", "contract.ts", "use.ts"].map((f) => join(dir, f)), STRICTEST);
  });

  it("compiles under strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess, noUnused*, isolatedModules and declaration emit", () => {
    expect(compiled.diagnostics).toEqual([]);
  });

  it("is self-contained: no import of failbook or anything else", () => {
    for (const text of [hostileText, contractText]) expect(text).not.toMatch(/^\s*(import|export \* from|export \{[^}]*\} from)|require\(/m);
  });

  describe("from a hostile registry", () => {
    let mod: Record<string, unknown>;
    beforeAll(async () => {
      mod = await importTypeScript({ "hostile.ts": hostileText }, "hostile.ts");
    });

    it("exports only its fixed names and one envelope constructor per verdict", () => {
      const constructors = Object.keys(mod).filter((k) => !FIXED_VALUES.includes(k));
      expect(Object.keys(mod).filter((k) => FIXED_VALUES.includes(k)).sort()).toEqual(FIXED_VALUES);
      expect(constructors).toHaveLength(HOSTILE_CODES.length);
      const built = constructors.map((name) => {
        expect(name).toMatch(/^[a-z][A-Za-z0-9_]*Envelope$/);
        const make = mod[name] as (input: { details: Record<string, unknown> }) => { code: string };
        return make({ details: {} }).code;
      });
      expect(built.sort()).toEqual([...HOSTILE_CODES].sort());
      expect(mod).not.toHaveProperty("pwned");
    });

    it("ran none of the code YAML text tried to inject", () => {
      for (const name of ["pwned", "pwnedTemplate", "pwnedQuote", "pwnedSingle", "pwnedScript"]) expect(globalThis).not.toHaveProperty(name);
    });

    it("keeps every YAML string exactly, separators, quotes and lone surrogates included", () => {
      const info = mod.VERDICT_INFO as Record<string, { summary: string; safe_next_actions: string[]; class: string }>;
      expect(Object.keys(info).sort()).toEqual([...HOSTILE_CODES].sort());
      for (const v of hostile.registry.verdicts.filter((x) => x.status !== "reserved")) {
        expect(Object.hasOwn(info, v.code)).toBe(true);
        expect(info[v.code].summary).toBe(v.summary);
        expect(info[v.code].safe_next_actions).toEqual(v.safe_next_actions);
        expect(info[v.code].class).toBe(v.class);
      }
      expect((mod.REGISTRY as { name: string }).name).toBe(EVIL[0]);
      expect(mod.RESERVED_VERDICTS).toEqual([evil(4)]);
      const playbook = mod.PLAYBOOK as Record<string, unknown>;
      for (const code of HOSTILE_CODES) expect(playbook[code]).toEqual(hostile.playbook.verdicts[code]);
    });

    it("writes no raw line or paragraph separator, no </script and no <!--", () => {
      expect(hostileText).not.toMatch(/[\u2028\u2029]/);
      expect(hostileText).not.toMatch(/<\/script|<!--/i);
    });

    it("gives codes that differ only by separators or case distinct identifiers", () => {
      const names = hostileText.match(/^export function (\w+)Envelope\(/gm) ?? [];
      expect(new Set(names).size).toBe(HOSTILE_CODES.length);
      expect(hostileText).toMatch(/^export function deleteEnvelope\(/m);
      expect(hostileText).not.toMatch(/^export function netTimeoutEnvelope\(/m);
    });

    it("adds no JSDoc tag from YAML text; only a deprecated verdict is @deprecated", () => {
      const file = join(dir, "hostile.ts");
      const tagsOf = (code: string) => {
        const line = hostileText.split("\n").find((l) => l.startsWith("export function ") && l.includes(`FailureEnvelopeOf<${tsString(code)}>`));
        const name = /^export function (\w+)\(/.exec(line ?? "")?.[1] ?? "";
        return exportTags(compiled.program, file, name);
      };
      for (const code of HOSTILE_CODES.filter((c) => c !== "net_timeout")) expect(tagsOf(code)).toEqual([]);
      const deprecated = tagsOf("net_timeout");
      expect(deprecated.map((t) => t.name)).toEqual(["deprecated"]);
      expect(deprecated[0].text).toContain('"net.timeout"');
    });
  });

  describe("envelope constructors", () => {
    const SECRETS = ["Bearer abcdefghijklmnop", "token=s3cr3tvalue", "sk_live_abcdefghijkl", "deploy-abcdefghij"];
    let mod: Record<string, (...args: unknown[]) => Record<string, unknown>>;
    beforeAll(async () => {
      const text = generateTypeScript(contract, { redactPatterns: ["deploy-[a-z0-9]{10}"] }).text;
      mod = await importTypeScript({ "contract.ts": text }, "contract.ts");
    });

    it("redact the adapter's message, trace id and details as the dispatcher does, the project's patterns included", () => {
      const message = `upstream said ${SECRETS.join(" and ")}`;
      const envelopes = [
        mod.unknownErrorEnvelope!({ error: { kind: "x", message }, trace_id: "trace token=abcdefgh" }),
        mod.envelopeFor!("unknown_error", { message, trace_id: "trace token=abcdefgh" }),
        mod.taggedEnvelope!({ message, details: { team: "payments", note: message } }),
      ];
      for (const envelope of envelopes) {
        const shown = JSON.stringify(envelope);
        for (const secret of SECRETS) expect(shown).not.toContain(secret);
        expect(envelope.message).toBe("upstream said Bearer [REDACTED] and token=[REDACTED] and [REDACTED] and [REDACTED]");
      }
      expect(envelopes[0]!.trace_id).toBe("trace token=[REDACTED]");
      expect(envelopes[2]!.details).toEqual({ team: "payments", note: envelopes[2]!.message });
      // Text with no secret is left exactly as it was.
      expect(mod.unknownErrorEnvelope!({ message: "rate limit: 10/minute" }).message).toBe("rate limit: 10/minute");
    });

    it("envelopeFor builds the same envelope as the verdict's own constructor, and refuses a code that is no verdict", () => {
      const input = { error: { kind: "rate_limited", message: "slow down", retry_after_ms: 10 }, details: { limit: 1, window: "second" } };
      expect(mod.envelopeFor!("rate_limited", input)).toEqual(mod.rateLimitedEnvelope!(input));
      expect(() => mod.envelopeFor!("later", {})).toThrow(/not a verdict of this registry: "later"/);
      expect(() => mod.envelopeFor!("__proto__", {})).toThrow(TypeError);
    });
  });

  describe("deprecation", () => {
    it("marks a deprecated verdict's constructor, info, playbook entry and details with @deprecated naming the replacement", () => {
      const file = join(dir, "contract.ts");
      const tags = exportTags(compiled.program, file, "oldRateLimitedEnvelope");
      expect(tags).toEqual([{ name: "deprecated", text: 'Replaced by "rate_limited": use {@link rateLimitedEnvelope} instead.' }]);
      expect(exportTags(compiled.program, file, "rateLimitedEnvelope")).toEqual([]);
      // The constructor, the facts VERDICT_INFO and PLAYBOOK map over, and the details entry.
      expect(contractText.match(/@deprecated Replaced by "rate_limited"/g)).toHaveLength(3);
      for (const table of ["VERDICT_INFO", "PLAYBOOK"]) {
        expect(propertyTags(compiled.program, file, table, "old_rate_limited"), table).toEqual([{ name: "deprecated", text: 'Replaced by "rate_limited": use {@link rateLimitedEnvelope} instead.' }]);
        expect(propertyTags(compiled.program, file, table, "rate_limited"), table).toEqual([]);
      }
    });
  });
});
