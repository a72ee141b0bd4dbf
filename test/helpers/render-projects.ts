/** Projects for the render and explain tests: a small clean one, and one full of metacharacters. */
import { tempProject } from "./cli.js";

const CONFIG = `registry: registry.yaml
playbook: playbook.yaml
fixtures: [fixtures]
redact: ['xoxb-[A-Za-z0-9-]+']
`;

/** Dotted codes, a deprecated one, a reserved one, a details schema, and fixtures that hit them. */
export const SMALL_REGISTRY = `apiVersion: failbook/v1
kind: Registry
name: payments
revision: 3
classes:
  transient: { description: Temporary fault., max_retries: 3 }
  permanent: { description: Refused; retrying cannot help. }
  unknown: { description: Nothing recognised it. }
verdicts:
  - code: net.timeout
    class: transient
    retryable: true
    side_effect: unknown
    boundary: external
    since: 2
    adr: ADR-0010
    summary: The upstream did not answer in time.
    cause: A slow upstream or a dropped connection.
    recovery: Retry with the same idempotency key.
    safe_next_actions: [verify whether the record exists]
    unsafe_next_actions: [retry with a new idempotency key]
    details:
      type: object
      properties: { elapsed_ms: { type: integer } }
    match:
      - kind: timeout
  - code: net.reset
    class: transient
    retryable: true
    side_effect: none
    status: deprecated
    replaced_by: net.timeout
    adr: ADR-0011
    summary: Connection reset (use net.timeout).
    recovery: Retry.
    match:
      - kind: reset
  - code: http.rate_limited
    class: transient
    retryable: true
    side_effect: none
    adr: ADR-0010
    summary: Throttled by the upstream (HTTP 429).
    recovery: Wait for Retry-After, then retry.
    match:
      - http_status: 429
  - code: pay.declined
    class: permanent
    retryable: false
    side_effect: none
    human_action_required: true
    adr: ADR-0012
    summary: The card was declined.
    recovery: Ask the customer for another card.
    match:
      - kind: declined
  - code: pay.approval_pending
    class: permanent
    retryable: false
    status: reserved
    summary: Waiting for an approval.
  - code: unknown_error
    class: unknown
    retryable: false
    adr: ADR-0010
    summary: No rule recognised the failure.
    recovery: A human triages it.
fallback: unknown_error
`;

export const SMALL_PLAYBOOK = `apiVersion: failbook/v1
kind: Playbook
name: default
budgets: { retries: 5, retry_seconds: 2, same_verdict_ceiling: 4 }
verdicts:
  net.timeout:
    action: retry_with_backoff
    max_retries: 3
    backoff_ms: [200, 600, 1800]
  net.reset:
    action: retry_with_backoff
    max_retries: 2
    backoff: { strategy: exponential, base_ms: 100, factor: 2, jitter: full }
  http.rate_limited:
    action: retry_with_backoff
    max_retries: 3
    backoff: { strategy: exponential, base_ms: 1000, factor: 2, cap_ms: 30000, jitter: full }
  pay.declined:
    action: escalate_to_human
    queue: payments_support
  unknown_error:
    action: escalate_to_human
    queue: triage
`;

export const SMALL_FIXTURES = `apiVersion: failbook/v1
kind: Fixture
name: timeout-then-ok
call: { id: c1, tool: pay.charge }
responses:
  - status: error
    error: { kind: timeout }
  - status: ok
    value: { id: ch_1 }
expect:
  outcome: recovered
---
apiVersion: failbook/v1
kind: Fixture
name: declined
call: { id: c2, tool: pay.charge }
responses:
  - status: error
    error: { kind: declined, message: card declined }
expect:
  outcome: escalated
  verdict: pay.declined
`;

export function smallProject(): string {
  return tempProject({ "failbook.yaml": CONFIG, "registry.yaml": SMALL_REGISTRY, "playbook.yaml": SMALL_PLAYBOOK, "fixtures/calls.yaml": SMALL_FIXTURES });
}

/** Every text an author controls holds HTML or Markdown metacharacters. */
export const NASTY = {
  name: "<script>window.__pwned = 'name'</script> | `reg`",
  summary: "Closes </td></tr></table><script>window.__pwned = 'summary'</script> a | pipe and `code`",
  cause: "# not a heading\n- not a list\n1. not a list\n> not a quote\n<img src=x onerror=\"window.__pwned = 'img'\">\n\u2028line separator &amp; entity",
  recovery: "Run `a | b` then ``` and *stars* _under_ [link](http://example.com) ~~strike~~ token=abcd1234 xoxb-123-abc",
  safe: "</script><script>window.__pwned = 'safe'</script>",
  unsafe: "line one\nline two | three",
  classDescription: "Class <b>bold</b> | with pipe\nand a newline",
  reason: "<i>reason</i> | with `tick`",
  breaker: "<script>window.__pwned = 'breaker'</script> | `brk`",
  tools: "pay.<b>|`*`",
};

const q = (s: string) => JSON.stringify(s);

export function nastyProject(): string {
  const registry = `apiVersion: failbook/v1
kind: Registry
name: ${q(NASTY.name)}
revision: 1
classes:
  weird: { description: ${q(NASTY.classDescription)} }
  unknown: { description: Nothing. }
verdicts:
  - code: ${q("evil|code`<b>")}
    class: weird
    retryable: false
    side_effect: committed
    boundary: ${q("<edge>")}
    adr: ${q("ADR-<1>")}
    summary: ${q(NASTY.summary)}
    cause: ${q(NASTY.cause)}
    recovery: ${q(NASTY.recovery)}
    safe_next_actions: [${q(NASTY.safe)}]
    unsafe_next_actions: [${q(NASTY.unsafe)}]
    details:
      description: ${q("</script><!-- ``` -->")}
      type: object
    match:
      - kind: ${q("k|<x>")}
  - code: plain.old
    class: weird
    retryable: false
    status: deprecated
    replaced_by: ${q("evil|code`<b>")}
    summary: ${q("#old | `x`")}
    recovery: ${q("<script>window.__pwned = 'old'</script>")}
  - code: unknown_error
    class: unknown
    retryable: false
    summary: Fallback.
    recovery: Triage.
fallback: unknown_error
`;
  const playbook = `apiVersion: failbook/v1
kind: Playbook
name: ${q("<pb>|")}
attempt_timeout_ms: 3000
tools:
  ${q(NASTY.tools)}: { attempt_timeout_ms: 1500 }
circuit_breakers:
  ${q(NASTY.breaker)}: { tools: [${q(NASTY.tools)}], counts: [${q("<cls>|")}] }
retry_budget: { percent: 20 }
retry_throttling: { max_tokens: 10, token_ratio: 0.1 }
hedging: { tools: ${q("search.<i>*")}, max_attempts: 2, non_fatal: [${q("<nf>|")}] }
verdicts:
  ${q("evil|code`<b>")}:
    action: deprecate_tool_call
    reason: ${q(NASTY.reason)}
    replan: true
  plain.old:
    action: fail
    message: ${q("<u>gone</u>|")}
  unknown_error:
    action: escalate_to_human
    queue: ${q("<q>")}
`;
  return tempProject({ "failbook.yaml": CONFIG.replace("fixtures: [fixtures]\n", ""), "registry.yaml": registry, "playbook.yaml": playbook });
}
