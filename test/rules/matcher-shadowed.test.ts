import { registry, ruleTester, type InvalidCase } from "../helpers/rule-tester.js";

interface V {
  code: string;
  status?: string;
  /** Flow mappings, one rule a line. */
  rules: string[];
}

/**
 * Verdicts from line 12, each `code`, `class`, `retryable`, (`status`), `match:` and then one
 * line a rule: with two plain verdicts of one rule each, the rules stand at 16:9 and 21:9.
 */
const verdicts = (...vs: V[]) =>
  registry(
    vs
      .map((v) => [`- code: ${v.code}`, "  class: transient", "  retryable: true", ...(v.status ? [`  status: ${v.status}`] : []), "  match:", ...v.rules.map((r) => `    - ${r}`)].join("\n"))
      .join("\n"),
  );

/** Verdict a (one rule, line 16) then verdict b (one rule, line 21). */
const pair = (a: string, b: string) => verdicts({ code: "a", rules: [a] }, { code: "b", rules: [b] });

/** b's rule at 21:9 is shadowed by a's at 16:9. */
const shadowedPair = (name: string, a: string, b: string): InvalidCase => ({
  name,
  registry: pair(a, b),
  findings: [{ message: "match rule #1 of 'b' can never win: rule #1 of 'a', earlier in the file, matches every error it matches", line: 21, column: 9, related: [{ line: 16, column: 9 }] }],
});

ruleTester("matcher-shadowed", {
  valid: [
    { name: "the base registry" },
    { name: "different kinds", registry: pair("{ kind: timeout }", "{ kind: reset }") },
    { name: "different fields", registry: pair("{ kind: timeout }", "{ http_status: 504 }") },
    { name: "a field only the earlier rule has narrows it", registry: pair("{ kind: timeout, http_status: 504 }", "{ kind: timeout }") },
    { name: "a tool glob only the earlier rule has", registry: pair("{ kind: timeout, tool: payments.* }", "{ kind: timeout }") },
    { name: "a later list with a value the earlier lacks", registry: pair("{ kind: timeout }", "{ kind: [timeout, reset] }") },
    { name: "4xx does not hold for 503", registry: pair("{ http_status: 4xx }", "{ http_status: 503 }") },
    { name: "a range that stops short of 503", registry: pair("{ http_status: 500-502 }", "{ http_status: 503 }") },
    { name: "a range one short of the class", registry: pair("{ http_status: 500-598 }", "{ http_status: 5xx }") },
    { name: "a single status does not cover a class", registry: pair("{ http_status: 503 }", "{ http_status: 5xx }") },
    { name: "a narrower glob first", registry: pair("{ tool: payments.refund* }", "{ tool: payments.* }") },
    { name: "globs that only overlap", registry: pair("{ tool: payments.* }", "{ tool: payment* }") },
    { name: "a longer text first", registry: pair("{ message_contains: idempotency key }", "{ message_contains: idempotency }") },
    { name: "every side-effect state still needs one on the error", registry: pair("{ side_effect_state: [none, unknown, committed] }", "{ kind: timeout }") },
    { name: "provider codes that differ", registry: pair("{ provider_code: E1 }", "{ provider_code: [E1, E2] }") },
    { name: "the same verdict, narrow rule first", registry: verdicts({ code: "a", rules: ["{ kind: timeout, http_status: 504 }", "{ kind: timeout }"] }) },
    { name: "a reserved verdict never matches, so it shadows nothing", registry: verdicts({ code: "a", status: "reserved", rules: ["{ kind: timeout }"] }, { code: "b", rules: ["{ kind: timeout }"] }) },
    { name: "a reserved verdict's own rules are not reported", registry: verdicts({ code: "a", rules: ["{ kind: timeout }"] }, { code: "b", status: "reserved", rules: ["{ kind: timeout }"] }) },
  ],
  invalid: [
    shadowedPair("the same rule twice", "{ kind: timeout }", "{ kind: timeout }"),
    shadowedPair("a field present in the later rule but not the earlier", "{ kind: timeout }", "{ kind: timeout, http_status: 504 }"),
    shadowedPair("a list that holds the later value", "{ kind: [timeout, reset] }", "{ kind: reset }"),
    shadowedPair("a later list inside the earlier list", "{ kind: [timeout, reset, refused] }", "{ kind: [refused, timeout] }"),
    shadowedPair('"5xx" holds for 503', "{ http_status: 5xx }", "{ http_status: 503 }"),
    shadowedPair('a range "500-599" holds for 503', "{ http_status: 500-599 }", "{ http_status: [502, 503] }"),
    shadowedPair('a range "500-599" holds for all of "5xx"', "{ http_status: 500-599 }", "{ http_status: 5xx }"),
    shadowedPair("two touching ranges together hold for a class", "{ http_status: [500-549, 550-599] }", "{ http_status: 5xx }"),
    shadowedPair("payments.* holds for payments.refund*", "{ tool: payments.* }", "{ tool: payments.refund* }"),
    shadowedPair("a message text inside the later one, case-insensitively", "{ message_contains: IDEMPOTENCY }", "{ message_contains: Idempotency key already used }"),
    shadowedPair("every later text contains an earlier one", "{ message_contains: [stale, expired] }", "{ message_contains: [evidence stale, token expired] }"),
    shadowedPair("a committed side effect first", "{ side_effect_state: committed }", "{ kind: timeout, side_effect_state: committed }"),
    shadowedPair("all fields at once", "{ kind: [timeout, reset], http_status: 5xx, tool: payments.* }", "{ kind: timeout, http_status: 503, tool: payments.refund, message_contains: slow }"),
    {
      name: "a deprecated verdict still matches, so it still shadows",
      registry: verdicts({ code: "a", status: "deprecated", rules: ["{ kind: timeout }"] }, { code: "b", rules: ["{ kind: timeout }"] }),
      findings: [{ message: "match rule #1 of 'b' can never win: rule #1 of 'a'", line: 22, column: 9, related: [{ line: 17, column: 9 }] }],
    },
    {
      name: "the same verdict: a later rule the earlier one holds for is redundant",
      registry: verdicts({ code: "a", rules: ["{ kind: timeout }", "{ kind: timeout, http_status: 504 }"] }),
      findings: [{ message: "match rule #2 of 'a' is redundant: rule #1 of the same verdict matches every error it matches; remove it", line: 17, column: 9, related: [{ line: 16, column: 9 }] }],
    },
    {
      name: "the shadowing rule is named by its place in its verdict's list",
      registry: verdicts({ code: "a", rules: ["{ kind: reset }", "{ kind: timeout }"] }, { code: "b", rules: ["{ kind: refused }", "{ kind: timeout, tool: a.* }"] }),
      findings: [{ message: "match rule #2 of 'b' can never win: rule #2 of 'a'", line: 23, column: 9, related: [{ line: 17, column: 9 }] }],
    },
    {
      name: "the first rule that covers is the one named, and each dead rule is reported once",
      registry: verdicts({ code: "a", rules: ["{ kind: timeout }"] }, { code: "b", rules: ["{ kind: [timeout, reset] }"] }, { code: "c", rules: ["{ kind: timeout, http_status: 504 }", "{ kind: reset }"] }),
      findings: [
        { message: "match rule #1 of 'c' can never win: rule #1 of 'a'", line: 26, column: 9, related: [{ line: 16, column: 9 }] },
        { message: "match rule #2 of 'c' can never win: rule #1 of 'b'", line: 27, column: 9, related: [{ line: 21, column: 9 }] },
      ],
    },
    {
      name: "block-style rules point at their first key",
      registry: registry(`- code: a
  class: transient
  retryable: true
  match:
    - kind: timeout
    - http_status: 504
      kind: timeout
`),
      findings: [{ message: "match rule #2 of 'a' is redundant", line: 17, column: 9, related: [{ line: 16, column: 9 }] }],
    },
  ],
});
