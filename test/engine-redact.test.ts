/** The redactor: every family of SPEC 16, never the project's vocabulary, linear time, cheap when clean. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRedactor, REDACTED, redactValue, rememberRedactions, type Redactor } from "failbook-runtime/engine/redact.js";
import { holdsTrigger, TRIGGER } from "failbook-runtime/engine/secrets.js";
import { anySecret, FAMILIES, leaks } from "./helpers/secrets.js";

const redact = createRedactor();
// Built at run time so that no scanner mistakes the test for a leaked key.
const token = (n: number) => "Zq3" + "x9K".repeat(Math.ceil(n / 3)).slice(0, n - 3);

describe("built-in families", () => {
  it.each(Object.entries(FAMILIES))("%s: every generated secret goes, in every surrounding", (_name, family) => {
    const around = fc.constantFrom(["", ""], ["error: ", " (retry later)"], ["\t", "\n"], ['{"message":"', '"}'], ["url=", "&next=1"], ["(", ")"]);
    fc.assert(
      fc.property(family, around, (secret, [before, after]) => {
        const out = redact(before + secret.text + after);
        expect(leaks(out, [secret])).toEqual([]);
        expect(out).toContain(REDACTED);
      }),
      { numRuns: 60 },
    );
  });

  it.each([
    ["access_token=" + token(12) + "&scope=read", `access_token=${REDACTED}&scope=read`],
    ["client_secret=" + token(12), `client_secret=${REDACTED}`],
    ["DB_PASSWORD=" + token(10), `DB_PASSWORD=${REDACTED}`],
    [`password="${token(6)} ${token(6)}"`, `password="${REDACTED}"`],
    [`{"api_key": "${token(16)}", "user": "bob"}`, `{"api_key": "${REDACTED}", "user": "bob"}`],
    // JSON inside JSON (a diff's value in diff --format json) doubles every backslash.
    [JSON.stringify(JSON.stringify([`"token": "${token(12)}"`])), JSON.stringify(JSON.stringify([`"token": "${REDACTED}"`]))],
    [JSON.stringify(`api_key=\t'${token(12)}'`), JSON.stringify(`api_key=\t'${REDACTED}'`)],
    [`{ password: ${token(8)}, user: bob }`, `{ password: ${REDACTED}, user: bob }`],
    [`X-Api-Key: ${token(20)}`, `X-Api-Key: ${REDACTED}`],
    [`Authorization:\tBearer ${token(24)}`, `Authorization:\tBearer ${REDACTED}`],
    [`"Bearer\\t${token(24)}"`, `"Bearer\\t${REDACTED}"`],
    [`Bearer\\u{a}${token(24)}`, `Bearer\\u{a}${REDACTED}`],
    [`postgres://app:${token(14)}@db:5432/x`, `postgres://${REDACTED}@db:5432/x`],
    [`-----BEGIN RSA PRIVATE KEY-----\n${token(64)}\n-----END RSA PRIVATE KEY-----\nnext line`, `${REDACTED}\nnext line`],
    [`-----BEGIN PRIVATE KEY-----\\n${token(64)}\\n`, REDACTED],
  ])("%j becomes %j", (input, output) => {
    expect(redact(input)).toBe(output);
  });

  it("keeps the project's vocabulary and ordinary text", () => {
    for (const text of [
      "rule 1 of token_expired: { kind: token_expired }",
      "code 'token_expired': no playbook action",
      "verdict password_reset_required -> escalate_to_human",
      "https://api.example.com:8443/v1/charges",
      "the bound token has expired",
      "risk-assessment-framework-approach",
      "task_live_update",
      "Authorization header missing",
      "idempotency_key: 4f1c2d",
    ]) {
      expect(redact(text)).toBe(text);
    }
  });

  it("is idempotent: redacting twice changes nothing more", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(anySecret.map((s) => s.text), fc.string())), (parts) => {
        const once = redact(parts.join(" "));
        expect(redact(once)).toBe(once);
      }),
      { numRuns: 200 },
    );
  });
});

describe("the trigger scan", () => {
  // holdsTrigger is TRIGGER.test without the regular expression on most texts: it must never say
  // "no trigger" where the expression finds one, or a secret would pass unredacted.
  const words = TRIGGER.source.split("|").map((w) => w.replace(/\[(.)[^\]]*\]\??/g, "$1").replace(/\\(.)/g, "$1"));
  const piece = fc.oneof(
    fc.constantFrom(...words, ...words.map((w) => w.toUpperCase()), "sK-", "Rk_", "A3T", "ghS_", "xoxB-", "api-KEY", "Access_key", "::/", "\u017f", "\u212a", "\u0131"),
    fc.string({ maxLength: 6 }),
    fc.string({ unit: "binary", maxLength: 4 }),
  );

  it("agrees with TRIGGER.test on every text", () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), (parts) => {
        const text = parts.join("");
        expect(holdsTrigger(text)).toBe(TRIGGER.test(text));
      }),
      { numRuns: 3000 },
    );
  });

  it.each(words)("finds %s, in either case, at the start, the end and inside a text", (word) => {
    for (const w of [word, word.toUpperCase()]) for (const text of [w, `x${w}`, `order-42 ${w}-x`]) expect(holdsTrigger(text)).toBe(true);
  });

  it("finds none in clean keys and texts", () => {
    for (const text of ["order-42-update", "refund-9931", "call_1_attempt", "crm.update_record", "upstream took too long", ""]) expect(holdsTrigger(text)).toBe(false);
  });
});

describe("config patterns", () => {
  it("redact what they match, after the built-in families", () => {
    const r = createRedactor(["deploy-[a-z0-9]{8}"]);
    expect(r("session deploy-abcd1234 expired")).toBe(`session ${REDACTED} expired`);
  });

  it("a pattern that matches the empty string cannot garble the text", () => {
    expect(createRedactor(["x*", "\\b"])("abc def")).toBe("abc def");
  });

  it("an invalid pattern redacts nothing and breaks nothing (lint reports it)", () => {
    expect(createRedactor(["(unclosed"])("abc")).toBe("abc");
  });
});

describe("linear time", () => {
  // Each would rescan its run from every position under a backtracking pattern: seconds or hours.
  const N = 100_000;
  it.each([
    ["key words without a separator", "token".repeat(N / 5)],
    ["key characters without a separator", "a_password_".repeat(N / 11)],
    ["JWT starts", "_eyJ".repeat(N / 4)],
    ["JWT segments without an end", "eyJabcd.".repeat(N / 8)],
    ["OpenAI prefixes", "sk-".repeat(N / 3)],
    ["bearer without a token", "Bearer ".repeat(N / 7)],
    ["bearer with escaped whitespace", "Bearer" + "\\u{a}".repeat(N / 5)],
    ["URLs without @", "://a:b".repeat(N / 6)],
    ["private-key headers without an end", "-----BEGIN RSA PRIVATE KEY-----".repeat(N / 31)],
    ["quoted keys without a value", '"token'.repeat(N / 6)],
    ["escaped quotes without a key", "\\".repeat(N) + '"'],
    ["bearer and a run of backslashes", "Bearer " + "\\".repeat(N)],
    ["a key and a long gap", "password" + " ".repeat(N)],
  ])("%s", (_name, input) => {
    const start = performance.now();
    redact(input);
    redact(input + input);
    expect(performance.now() - start).toBeLessThan(1500);
  });
});

describe("redactValue", () => {
  it("gives back the very same value when nothing needs redaction", () => {
    const value = { kind: "recovered", attempts: 2, envelope: { tool: "payments.refund", error: null }, events: [{ type: "attempt", n: 1 }] };
    expect(redactValue(value, redact)).toBe(value);
  });

  it("copies only the path to what changed", () => {
    const value = { a: { message: `key ${["sk", "live", token(24)].join("_")}` }, b: { untouched: true } };
    const out = redactValue(value, redact);
    expect(out).not.toBe(value);
    expect(out.a.message).toBe(`key ${REDACTED}`);
    expect(out.b).toBe(value.b);
    expect(value.a.message).not.toContain(REDACTED);
  });

  it("keeps a __proto__ key an own key", () => {
    const value = JSON.parse(`{"__proto__": {"message": "password=${token(10)}"}}`) as Record<string, unknown>;
    const out = redactValue(value, redact);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, "__proto__")).toBe(true);
    expect(JSON.stringify(out)).toContain(REDACTED);
  });
});

describe("a big text", () => {
  it("is redacted line by line exactly as a small one is whole, multi-line secrets included", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(anySecret, fc.constantFrom("", "note: ", '  "value": "', "\t")), { minLength: 3, maxLength: 8 }), (parts) => {
        const pem = `-----BEGIN RSA PRIVATE KEY-----\n${token(40)}\n${token(40)}\n-----END RSA PRIVATE KEY-----`;
        const small = [...parts.map(([s, before]) => before + s.text), `Bearer\n${token(24)}`, pem, "plain line"].join("\n");
        expect(small.length).toBeLessThan(4096);
        const copies = Math.ceil(5000 / small.length) + 1;
        const big = Array.from({ length: copies }, () => small).join("\n");
        expect(redact(big)).toBe(Array.from({ length: copies }, () => redact(small)).join("\n"));
      }),
      { numRuns: 40 },
    );
  });
});

describe("the memo a dispatcher redacts through", () => {
  /** A redactor that counts how often it ran on each text (a project's patterns cost that much). */
  const counting = () => {
    const runs = new Map<string, number>();
    const inner: Redactor = (text) => {
      runs.set(text, (runs.get(text) ?? 0) + 1);
      return text.replace(/ticket-\d+/g, REDACTED);
    };
    return { runs, redact: rememberRedactions(inner) };
  };

  it("runs the patterns once for a string in use, however many strings are met once in between", () => {
    const { runs, redact: remembered } = counting();
    for (let i = 0; i < 20_000; i++) {
      expect(remembered(`failed with ticket-${i}`)).toBe(`failed with ${REDACTED}`);
      if (i % 100 === 0) expect(remembered("svc1.op_2")).toBe("svc1.op_2");
    }
    expect(runs.get("svc1.op_2")).toBe(1);
  });

  it("forgets strings not met again: a stream of distinct messages cannot grow it", () => {
    const { runs, redact: remembered } = counting();
    remembered("first ticket-1");
    for (let i = 0; i < 20_000; i++) remembered(`message ${i}`);
    expect(remembered("first ticket-1")).toBe(`first ${REDACTED}`);
    expect(runs.get("first ticket-1")).toBe(2);
  });

  it("is not stacked on a redactor that remembers already (createRedactor's)", () => {
    const redact = createRedactor(["ticket-[0-9]+"]);
    expect(rememberRedactions(redact)).toBe(redact);
    expect(rememberRedactions(createRedactor())("token=" + token(10))).toBe(`token=${REDACTED}`);
  });
});
