// The benchmark's synthetic project (SPEC 11): a registry shaped like a real provider
// catalogue (AWS, Stripe), its playbook, and one-call fixtures with a few sagas and waves.
// Deterministic: everything is drawn from one seeded generator, so two runs write the same
// bytes and their figures compare.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const SEED = 20261123;
const FIXTURE_FILES = 40;

/** mulberry32, the engine's own generator, with the few draws the generator needs. */
export function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  return { next, int, pick: (list) => list[Math.floor(next() * list.length)], chance: (p) => next() < p };
}

// Each class carries what real catalogues group under it: a typical status, slugs for codes
// and kinds, the kind an SDK reports for it, and the actions a team would choose for it.
const CLASSES = {
  transient: { max_retries: 3, retryable: true, statuses: [500, 502, 503, 504], cls: "5xx", range: "500-504", shared: "server_error", slugs: ["service_unavailable", "internal_error", "bad_gateway", "request_timeout", "connection_reset"] },
  throttling: { max_retries: 5, retryable: true, statuses: [429, 503], cls: "4xx", range: "429-429", shared: "throttled", slugs: ["throttling_exception", "rate_limit_exceeded", "slow_down", "request_limit_exceeded", "too_many_requests"] },
  state: { retryable: false, statuses: [409, 412], cls: "4xx", range: "409-412", shared: "conflict", slugs: ["precondition_failed", "resource_in_use", "stale_version", "optimistic_lock", "etag_mismatch"] },
  permanent: { max_retries: 0, retryable: false, statuses: [400, 404, 410, 422], cls: "4xx", range: "400-422", shared: "invalid_request", slugs: ["invalid_parameter", "not_found", "card_declined", "validation_error", "unsupported_operation"] },
  policy: { max_retries: 0, retryable: false, statuses: [403, 451], cls: "4xx", range: "403-403", shared: "denied", slugs: ["access_denied", "account_blocked", "compliance_hold", "region_disallowed", "fraud_suspected"] },
  auth: { max_retries: 0, retryable: false, statuses: [401, 403], cls: "4xx", range: "401-403", shared: "unauthorized", slugs: ["expired_token", "invalid_api_key", "signature_mismatch", "missing_scope", "revoked_credential"] },
};
const CLASS_NAMES = Object.keys(CLASSES);
const camel = (slug) => slug.replace(/(^|_)([a-z])/g, (_, __, c) => c.toUpperCase());

// ---------------------------------------------------------------------------------------
// The catalogue, in memory: verdicts with their rules, and the playbook's actions.
// ---------------------------------------------------------------------------------------

/**
 * `n` codes (the last is the fallback), exactly 2n match rules: by global rule number, a third
 * kind-only, a third provider_code (or, a fifth of them, a declared decline_code field) +
 * http_status with no kind, a third mixed (some also testing an x-should-retry header or a
 * $retryable-style field; every error carries headers, as SDK errors do). Every rule has
 * one value no other rule has (a kind, a provider code or a message token), so none is
 * shadowed and an error built for a rule classifies as that rule's verdict.
 */
export function catalogue(n) {
  const r = prng(SEED ^ n);
  const services = Math.max(10, Math.round(n / 100));
  const verdicts = [];
  for (let i = 0; i < n - 1; i++) {
    const cls = CLASS_NAMES[i % CLASS_NAMES.length];
    const slug = r.pick(CLASSES[cls].slugs);
    const service = i % services;
    // A few reserved codes (no rules, action fail or none) and deprecated ones pointing at the next code.
    const status = i % 200 === 199 ? "reserved" : i % 100 === 37 ? "deprecated" : "active";
    verdicts.push({ i, code: `svc${service}.${slug}_${i}`, cls, slug, service, status, rules: [] });
  }
  verdicts.push({ i: n - 1, code: "unknown_error", cls: "unknown", slug: "unknown", service: 0, status: "active", rules: [] });

  const matchable = verdicts.filter((v) => v.status !== "reserved" && v.code !== "unknown_error");
  const extra = 2 * n - 2 * matchable.length;
  const every = Math.floor(matchable.length / Math.max(1, extra));
  const rules = [];
  for (const [k, v] of matchable.entries()) {
    const count = extra > 0 && k % every === 0 && k / every < extra ? 3 : 2;
    for (let j = 0; j < count; j++) {
      const seq = rules.length;
      const shape = ["kind", "provider", "mixed"][seq % 3];
      const rule = makeRule(r, v, seq, shape, services);
      v.rules.push(rule);
      rules.push({ verdict: v, rule, shape, seq });
    }
  }
  const actions = new Map(verdicts.map((v) => [v.code, makeAction(r, v)]));
  return { n, services, verdicts, rules, actions };
}

function makeRule(r, v, seq, shape, services) {
  const c = CLASSES[v.cls];
  if (shape === "kind") return { kind: r.chance(0.3) ? [`${v.slug}_${seq}`, `${v.slug}_${seq}_v2`] : `${v.slug}_${seq}` };
  if (shape === "provider") {
    // AWS spells codes in CamelCase, Stripe in snake_case; both come with a status and no kind.
    const code = v.i % 2 === 0 ? `${camel(v.slug)}${seq}` : `${v.slug}_e${seq}`;
    // Stripe-shaped: a declared field (decline_code) and a status, no kind and no provider code.
    if (r.chance(0.2)) return { fields: { decline_code: `${v.slug}_d${seq}` }, http_status: r.pick(c.statuses) };
    return {
      provider_code: r.chance(0.2) ? [code, `${code}Legacy`] : code,
      http_status: r.chance(0.15) ? c.statuses.slice(0, 2) : r.pick(c.statuses),
    };
  }
  // Mixed: half a kind of its own, half the class's shared SDK kind narrowed by a provider
  // code or a message token (the "[E123]" brackets keep one token out of another).
  const rule = {};
  if (r.chance(0.5)) rule.kind = `${v.slug}_${seq}`;
  else {
    rule.kind = c.shared;
    if (r.chance(0.5)) rule.provider_code = `${camel(v.slug)}Error${seq}`;
    else rule.message_contains = `${v.slug.replace(/_/g, " ")} [E${seq}]`;
  }
  if (r.chance(0.5)) rule.http_status = r.pick([c.cls, c.range, r.pick(c.statuses)]);
  if (r.chance(0.3)) rule.tool = r.chance(0.7) ? `svc${v.service}.*` : `svc${v.service}.op_${r.int(0, 9)}`;
  if (r.chance(0.15)) rule.side_effect_state = r.pick(["none", "unknown"]);
  // SPEC 12: the OpenAI SDK's x-should-retry header, the AWS SDK's $retryable trait.
  if (r.chance(0.1)) rule.headers = { "x-should-retry": r.pick(["true", "false"]) };
  if (r.chance(0.1)) rule.fields = { retryable_trait: true };
  if (!rule.provider_code && !rule.message_contains && r.chance(0.2)) rule.message_contains = `[E${seq}]`;
  return rule;
}

/** The action a team would pick for a verdict of this class; lints clean against its class. */
function makeAction(r, v) {
  if (v.code === "unknown_error") return { action: "escalate_to_human", queue: "triage" };
  if (v.status === "reserved") return r.chance(0.5) ? { action: "fail", message: "reserved code; never classified" } : undefined;
  switch (v.cls) {
    case "transient":
      return r.pick([
        () => ({ action: "retry_with_backoff", max_retries: 3, backoff_ms: [100, 400, 1600] }),
        () => ({ action: "retry_with_backoff", max_retries: 2, backoff_ms: [250, 1000] }),
        () => ({ action: "retry_with_backoff", max_retries: 3, backoff: { strategy: "exponential", base_ms: 200, factor: 2, cap_ms: 5000, jitter: "full" } }),
        () => ({ action: "retry_with_backoff", max_retries: 3, backoff: { strategy: "linear", base_ms: 300, cap_ms: 3000, jitter: "equal" } }),
        () => ({ action: "retry_with_backoff", max_retries: 2, backoff: { strategy: "decorrelated", base_ms: 100, cap_ms: 4000 } }),
      ])();
    case "throttling":
      return r.pick([
        () => ({ action: "retry_with_backoff", max_retries: 4, backoff: { strategy: "exponential", base_ms: 500, factor: 2, cap_ms: 8000, jitter: "full" } }),
        () => ({ action: "retry_with_backoff", max_retries: 3, backoff: { strategy: "constant", base_ms: 1000, jitter: "none" } }),
        () => ({ action: "retry_with_hint", max_retries: 2, hint: "request a smaller page", backoff_ms: [500, 1500] }),
      ])();
    case "state":
      return r.pick([
        () => ({ action: "refresh_evidence", then: "retry" }),
        () => ({ action: "refresh_evidence", then: "abort" }),
        () => ({ action: "restore_checkpoint", then: "retry" }),
        () => ({ action: "restore_checkpoint", then: "abort" }),
      ])();
    case "permanent":
      return r.pick([
        () => ({ action: "deprecate_tool_call", reason: "the upstream refused the request as made", replan: true }),
        () => ({ action: "fail", message: "the request cannot succeed" }),
        () => ({ action: "dead_letter", queue: `svc${v.service}_dlq` }),
        () => ({ action: "fallback", tool: `svc${v.service}.fallback` }),
        () => ({ action: "issue_reversal", reason: "undo the partial write" }),
      ])();
    case "policy":
      return { action: "escalate_to_human", queue: "policy_review" };
    case "auth":
      return { action: "escalate_to_human", queue: "credentials" };
    default:
      throw new Error(`no action for class ${v.cls}`);
  }
}

// ---------------------------------------------------------------------------------------
// Errors: built to hit one rule, or drawn loosely from the catalogue's vocabulary.
// ---------------------------------------------------------------------------------------

const one = (r, v) => (Array.isArray(v) ? r.pick(v) : v);

/** A status that `m` (503, "5xx", "500-504") admits. */
function statusFor(r, m) {
  if (typeof m === "number") return m;
  const cls = /^([1-5])xx$/.exec(m);
  if (cls) return Number(cls[1]) * 100 + r.int(0, 99);
  const [lo, hi] = m.split("-").map(Number);
  return r.int(lo, hi);
}

/** An adapter error (and the tool of its call) that the rule holds for. */
export function errorFor(r, entry) {
  const { rule, verdict } = entry;
  const error = { kind: rule.kind === undefined ? r.pick(["http_error", "api_error"]) : one(r, rule.kind) };
  const token = rule.message_contains === undefined ? "" : ` (${rule.message_contains})`;
  error.message = `svc${verdict.service} request failed${token}`;
  if (rule.http_status !== undefined) error.http_status = statusFor(r, one(r, rule.http_status));
  if (rule.provider_code !== undefined) error.provider_code = one(r, rule.provider_code);
  if (rule.side_effect_state !== undefined) error.side_effect_state = rule.side_effect_state;
  // Real SDK errors carry headers whether or not a rule reads them.
  error.headers = { "x-request-id": `req_${r.int(1, 999999)}`, ...(rule.headers ?? {}) };
  if (rule.fields !== undefined) error.fields = { ...rule.fields };
  if (verdict.cls === "throttling" && r.chance(0.3)) error.retry_after_ms = 1000;
  const glob = rule.tool === undefined ? undefined : one(r, rule.tool);
  const tool = glob === undefined ? `svc${verdict.service}.op_${r.int(0, 9)}` : glob.replace("*", `op_${r.int(0, 9)}`);
  return { error, tool };
}

/** An error no rule recognises: an unmapped kind, an unknown provider code, or no error object. */
function unknownError(r, k) {
  return r.pick([
    () => ({ kind: `unmapped_${k}`, message: "something unexpected" }),
    () => ({ kind: "http_error", http_status: 418, provider_code: `Unknown${k}`, message: "I'm a teapot" }),
    () => undefined,
  ])();
}

/** `count` errors for the classify micro-benchmarks: half hit a rule, a quarter mix the vocabulary, a quarter are unknown. */
export function randomErrors(cat, count, seed = SEED) {
  const r = prng(seed);
  const kinds = [...new Set(cat.rules.flatMap(({ rule }) => [rule.kind ?? []].flat()))];
  const codes = [...new Set(cat.rules.flatMap(({ rule }) => [rule.provider_code ?? []].flat()))];
  const out = [];
  for (let k = 0; k < count; k++) {
    const roll = r.next();
    if (roll < 0.5) out.push(errorFor(r, r.pick(cat.rules)));
    else if (roll < 0.75) {
      const error = { kind: r.pick(kinds), http_status: r.pick([400, 403, 404, 409, 429, 500, 503]), message: "request failed", headers: { "x-request-id": `req_${k}`, "x-should-retry": r.pick(["true", "false"]) } };
      if (r.chance(0.5)) error.provider_code = r.pick(codes);
      out.push({ error, tool: `svc${r.int(0, cat.services - 1)}.op_${r.int(0, 9)}` });
    } else out.push({ error: unknownError(r, k) ?? { kind: `unmapped_${k}` }, tool: `other.op_${k % 10}` });
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Fixtures: responses enough for every attempt the playbook can ask for (SPEC 4, 5).
// ---------------------------------------------------------------------------------------

const ok = (r) => ({ status: "ok", value: { id: `obj_${r.int(1, 99999)}` }, latency_ms: r.int(5, 300) });
const failed = (r, error) => ({ status: "error", ...(error === undefined ? {} : { error }), latency_ms: r.int(5, 800) });
const TERMINAL = new Set(["escalate_to_human", "deprecate_tool_call", "fail", "dead_letter"]);

/** One call and its recorded responses, aimed at `entry`'s rule (or at no rule when undefined). */
function callSpec(r, cat, terminal, id, entry) {
  if (!entry) {
    return { call: { id, tool: `svc${r.int(0, cat.services - 1)}.op_${r.int(0, 9)}`, args: { ref: id } }, responses: [failed(r, unknownError(r, id))] };
  }
  const { error, tool } = errorFor(r, entry);
  const call = { id, tool, args: { ref: id, amount: r.int(1, 50000) } };
  const action = cat.actions.get(entry.verdict.code);
  const spec = { call, responses: [failed(r, error)] };
  switch (action.action) {
    case "retry_with_backoff":
    case "retry_with_hint": {
      if (r.chance(0.03)) call.idempotent = false;
      const max = Math.min(action.max_retries, CLASSES[entry.verdict.cls].max_retries ?? Infinity);
      // Up to max+1 failures (exhausted); a retry sometimes fails with another verdict, which ends it.
      const failures = r.int(1, max + 1);
      for (let k = 1; k < failures; k++) spec.responses.push(failed(r, errorFor(r, entry).error));
      if (failures <= max) spec.responses.push(r.chance(0.1) ? failed(r, errorFor(r, r.pick(terminal)).error) : ok(r));
      break;
    }
    case "refresh_evidence":
    case "restore_checkpoint":
      call.evidence_refs = [`ev_${id}`];
      if (action.then === "retry") spec.responses.push(r.chance(0.8) ? ok(r) : failed(r, error));
      break;
    case "issue_reversal":
      if (r.chance(0.6)) call.reversal_token = `rev_${id}`;
      break;
    case "fallback":
      spec.fallback_responses = [r.chance(0.8) ? ok(r) : failed(r, unknownError(r, id))];
      break;
  }
  return spec;
}

function oneCall(r, cat, terminal, k) {
  const name = `call-${k}`;
  const roll = r.next();
  const spec =
    roll < 0.02 ? { call: { id: `c${k}`, tool: "svc0.op_1" }, responses: [ok(r)] }
    : roll < 0.03 ? { call: { id: `c${k}`, tool: "svc0.op_2" }, responses: [{ status: "needs_input", question: "which account?" }] }
    : roll < 0.1 ? callSpec(r, cat, terminal, `c${k}`, undefined)
    : callSpec(r, cat, terminal, `c${k}`, r.pick(cat.rules));
  return { apiVersion: "failbook/v1", kind: "Fixture", name, ...(r.chance(0.1) ? { seed: r.int(1, 1000) } : {}), ...spec };
}

/** Three steps with compensations; the last fails on a terminal verdict, so the first two are undone. */
function saga(r, cat, terminal, k) {
  const step = (s, entry) => {
    const spec = entry ? callSpec(r, cat, terminal, `s${k}_${s}`, entry) : { call: { id: `s${k}_${s}`, tool: `svc${s}.op_${s}` }, responses: [ok(r)] };
    const compensation = { call: { id: `undo${k}_${s}`, tool: `svc${s}.undo` }, responses: [r.chance(0.9) ? ok(r) : failed(r, errorFor(r, r.pick(terminal)).error)] };
    return { ...spec, compensation };
  };
  return { apiVersion: "failbook/v1", kind: "Fixture", name: `saga-${k}`, compensate_on_failure: r.chance(0.7), steps: [step(0), step(1), step(2, r.pick(terminal))] };
}

function waves(r, cat, terminal, k) {
  const wave = (w) => ({ calls: Array.from({ length: r.int(2, 4) }, (_, c) => callSpec(r, cat, terminal, `w${k}_${w}_${c}`, r.chance(0.3) ? undefined : r.pick(cat.rules))) });
  return { apiVersion: "failbook/v1", kind: "Fixture", name: `waves-${k}`, parallelism: 4, waves: [wave(0), wave(1), wave(2)] };
}

export function fixtures(cat, count) {
  const r = prng(SEED + count);
  const terminal = cat.rules.filter((e) => TERMINAL.has(cat.actions.get(e.verdict.code)?.action));
  return Array.from({ length: count }, (_, k) => (k % 100 === 50 ? saga : k % 100 === 75 ? waves : oneCall)(r, cat, terminal, k));
}

// ---------------------------------------------------------------------------------------
// YAML, in the style people write: block mappings, short maps and lists in flow style.
// ---------------------------------------------------------------------------------------

const WORDS = /^(true|false|null|yes|no|on|off|y|n|~)$/i;
function scalar(v, inFlow) {
  if (typeof v !== "string") return String(v);
  if (/^[A-Za-z_][A-Za-z0-9_./-]*$/.test(v) && !WORDS.test(v)) return v;
  if (!inFlow && /^[A-Z][A-Za-z0-9 ,.'()/_-]*$/.test(v) && !/: | #/.test(v)) return v;
  return JSON.stringify(v);
}
const isScalar = (v) => v === null || typeof v !== "object";
function flow(v) {
  if (isScalar(v)) return scalar(v, true);
  if (Array.isArray(v)) return `[${v.map(flow).join(", ")}]`;
  return `{ ${Object.entries(v).map(([k, x]) => `${scalar(k, true)}: ${flow(x)}`).join(", ")} }`;
}
/** Lists of scalars and maps that fit on a line go in flow style; lists of maps stay block lists. */
const short = (v) => (Array.isArray(v) ? v.every(isScalar) : flow(v).length <= 90);

export function toYaml(value, indent = "") {
  if (Array.isArray(value)) {
    return value.map((item) => (isScalar(item) || short(item) ? `${indent}- ${flow(item)}\n` : `${indent}- ${toYaml(item, `${indent}  `).slice(indent.length + 2)}`)).join("");
  }
  return Object.entries(value)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => {
      const key = scalar(k, true);
      if (isScalar(v)) return `${indent}${key}: ${scalar(v, false)}\n`;
      if (short(v) || v.length === 0) return `${indent}${key}: ${flow(v)}\n`;
      return `${indent}${key}:\n${toYaml(v, `${indent}  `)}`;
    })
    .join("");
}

// ---------------------------------------------------------------------------------------
// The files.
// ---------------------------------------------------------------------------------------

function registryDoc(cat) {
  // Examples (SPEC 13) on most active verdicts, as a team that documents its catalogue keeps
  // them: an error built for the verdict's first rule. Their own generator, so the catalogue
  // and the fixtures stay what they were.
  const ex = prng(SEED * 3 + cat.n);
  const verdicts = cat.verdicts.map((v) => {
    const c = CLASSES[v.cls];
    const doc = {
      code: v.code,
      class: v.cls,
      retryable: v.cls === "unknown" ? false : c.retryable,
      side_effect: v.cls === "transient" || v.cls === "throttling" ? "none" : "unknown",
      boundary: "external",
      ...(v.status === "active" ? {} : { status: v.status }),
      since: 1 + (v.i % 7),
      ...(v.status === "deprecated" ? { replaced_by: cat.verdicts[v.i + 1].code } : {}),
      summary: `Svc${v.service} reported ${v.slug.replace(/_/g, " ")} (code ${v.i}).`,
      recovery: `Follow the playbook action for ${v.code}.`,
    };
    if (v.i % 20 === 3) {
      doc.safe_next_actions = ["read the record back before acting"];
      doc.unsafe_next_actions = ["repeat the call with a new idempotency key"];
    }
    if (v.i % 20 === 7) doc.details = { type: "object", properties: { request_id: { type: "string" }, status: { type: "integer" } }, required: ["request_id"] };
    if (v.rules.length > 0) doc.match = v.rules;
    if (v.rules.length > 0 && v.status === "active" && ex.chance(0.85)) {
      const { error, tool } = errorFor(ex, { rule: v.rules[0], verdict: v });
      doc.examples = [{ ...error, tool }];
    }
    return doc;
  });
  const classes = Object.fromEntries(
    [...CLASS_NAMES, "unknown"].map((name) => [name, { description: `Synthetic ${name} failures.`, ...(CLASSES[name]?.max_retries === undefined ? (name === "unknown" ? { max_retries: 0 } : {}) : { max_retries: CLASSES[name].max_retries }) }]),
  );
  const error_fields = {
    decline_code: { type: "string", description: "Stripe's card decline reason." },
    retryable_trait: { type: "boolean", description: "The AWS SDK's $retryable trait." },
  };
  return { apiVersion: "failbook/v1", kind: "Registry", name: `bench-${cat.n}`, revision: 7, classes, error_fields, verdicts, fallback: "unknown_error" };
}

function playbookDoc(cat) {
  return {
    apiVersion: "failbook/v1",
    kind: "Playbook",
    name: "bench",
    honor_retry_after: true,
    escalation_queue: "oncall",
    budgets: { retries: 6, retry_seconds: 120, wall_ms: 600000, same_verdict_ceiling: 4 },
    on_exhausted: { action: "escalate_to_human", queue: "oncall" },
    saga: { compensate_on_failure: false },
    throttle: { class: "throttling", min_failures: 2, factor: 0.5 },
    tools: { "legacy.*": { idempotent: false } },
    verdicts: Object.fromEntries([...cat.actions].filter(([, a]) => a !== undefined)),
  };
}

/** Write `.bench/<n>/` (config, registry, playbook, fixtures in FIXTURE_FILES files). */
export function writeProject(root, n) {
  const dir = join(root, ".bench", String(n));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "playbooks/fixtures"), { recursive: true });
  const cat = catalogue(n);
  const all = fixtures(cat, n);
  writeFileSync(join(dir, "failbook.yaml"), "registry: playbooks/registry.yaml\nplaybook: playbooks/playbook.yaml\nfixtures: [playbooks/fixtures]\ngen:\n  ts: generated/failbook.ts\n");
  writeFileSync(join(dir, "playbooks/registry.yaml"), toYaml(registryDoc(cat)));
  writeFileSync(join(dir, "playbooks/playbook.yaml"), toYaml(playbookDoc(cat)));
  const per = Math.ceil(all.length / FIXTURE_FILES);
  for (let f = 0; f * per < all.length; f++) {
    const docs = all.slice(f * per, (f + 1) * per).map((fx) => toYaml(fx));
    writeFileSync(join(dir, `playbooks/fixtures/batch-${String(f).padStart(2, "0")}.yaml`), docs.join("---\n"));
  }
  return { dir, codes: cat.verdicts.length, rules: cat.rules.length, fixtures: all.length };
}
