/**
 * JSON Schema validation of located documents, with messages a person understands.
 * The validators are compiled from schemas/ at build time (scripts/compile-schemas.mjs).
 */
import * as validators from "./validators.generated.js";
import type { SchemaError, Validator } from "./validators.generated.js";
import { replaceFix, type FindingFix, type PathSegment } from "failbook-runtime/model/finding.js";
import type { YamlDocument } from "./yaml.js";
import { clip, closest } from "../util/text.js";

export type DocumentKind = "config" | "registry" | "playbook" | "fixture";

export interface SchemaProblem {
  message: string;
  path: PathSegment[];
  /** Point at the key rather than the value (unknown or misplaced keys). */
  target: "value" | "key";
  /** The near key or value to write instead, when there is one. */
  fix?: FindingFix;
}

const VALIDATORS: Record<DocumentKind, Validator> = validators;

/** What a problem is found in: a document, an adapter error given on its own, or a storm (SPEC 19). */
type Context = DocumentKind | "adapter_error" | "storm";

/** Allowed keys per context, for "did you mean" suggestions on unknown keys. */
const KEYS: Record<string, string[]> = {
  registry: ["apiVersion", "kind", "name", "description", "revision", "classes", "error_fields", "verdicts", "fallback"],
  error_field: ["type", "description"],
  class: ["description", "max_retries", "adr", "requires_human"],
  verdict: ["code", "class", "retryable", "side_effect", "boundary", "status", "since", "adr", "replaced_by", "human_action_required", "summary", "cause", "recovery", "safe_next_actions", "unsafe_next_actions", "details", "match", "examples"],
  example: ["tool", "kind", "message", "http_status", "provider_code", "side_effect_state", "retry_after_ms", "headers", "fields", "cause"],
  match: ["kind", "http_status", "provider_code", "message_contains", "message_matches", "tool", "side_effect_state", "headers", "fields", "cause", "not", "retry_after"],
  playbook: [
    "apiVersion",
    "kind",
    "name",
    "description",
    "honor_retry_after",
    "retry_after",
    "backoff_index",
    "retry_quota",
    "attempt_timeout_ms",
    "fleet",
    "circuit_breakers",
    "rate_limits",
    "retry_budget",
    "retry_throttling",
    "hedging",
    "escalation_queue",
    "empty_response_is_failure",
    "budgets",
    "on_exhausted",
    "on_unknown_side_effect",
    "saga",
    "throttle",
    "tools",
    "verdicts",
  ],
  budgets: ["retries", "retries_per_call", "retry_seconds", "wall_ms", "same_verdict_ceiling"],
  retry_after: ["headers", "ms_headers", "fields", "max_ms", "above_max", "mode", "max_over_backoff_ms", "invalid", "parse", "zero", "order", "clock"],
  circuit_breaker: ["tools", "per", "failure_ratio", "minimum_throughput", "sampling_ms", "sampling_attempts", "buckets", "break_ms", "max_break_ms", "half_open_probes", "counts"],
  rate_limit: ["tools", "limit", "burst", "from_headers", "when_empty", "max_wait_ms", "adaptive", "scope"],
  retry_budget: ["percent", "min_concurrency", "scope"],
  fleet: ["sync_ms", "lease_ms", "on_store_down"],
  retry_throttling: ["max_tokens", "token_ratio", "scope"],
  hedging: ["tools", "max_attempts", "delay_ms", "non_fatal"],
  tool: ["idempotent", "attempt_timeout_ms"],
  jitter: ["min", "max", "integer"],
  state: ["breakers", "throttling"],
  retry_quota: ["capacity", "cost", "cost_by_kind", "cost_by_class", "refund", "refund_on_recovery", "scope"],
  action: ["action", "max_retries", "backoff_ms", "backoff", "retry_after", "hint", "then", "queue", "reason", "replan", "tool", "message"],
  backoff: ["strategy", "base_ms", "factor", "cap_ms", "jitter", "min_ms"],
  fixture: ["apiVersion", "kind", "name", "description", "run_id", "seed", "quota", "state", "call", "responses", "fallback_responses", "steps", "compensate_on_failure", "waves", "parallelism", "expect"],
  call: ["id", "tool", "args", "idempotent", "idempotency_key", "reversal_token", "evidence_refs"],
  response: ["status", "value", "error", "question", "headers", "latency_ms", "repeat"],
  error: ["kind", "message", "http_status", "provider_code", "side_effect_state", "retry_after_ms", "headers", "fields", "cause"],
  config: ["registry", "playbook", "fixtures", "storms", "adr_dir", "code_pattern", "rules", "gen", "redact", "max_file_mb", "apiVersion", "kind"],
  storm: ["apiVersion", "kind", "name", "description", "seed", "duration_ms", "step_ms", "clients", "upstream", "phases", "expect"],
  clients: ["count", "shared", "store", "arrival", "calls"],
  store: ["sync_ms", "latency_ms", "down"],
  store_down: ["from_ms", "to_ms"],
  arrival: ["rate_per_s", "serial"],
  serial: ["think_ms", "calls"],
  storm_call: ["tool", "weight", "idempotent", "args"],
  upstream: ["latency_ms", "capacity", "overload_error", "gateway", "errors", "rate_limit"],
  upstream_rate_limit: ["requests", "per_ms", "headers"],
  latency_ms: ["base", "median", "p99", "mean", "per_concurrent"],
  capacity: ["concurrency", "queue"],
  gateway: ["timeout_ms", "error"],
  error_mix: ["ratio", "error"],
  phase: ["from_ms", "to_ms", "arrival_x", "capacity_x", "latency_x", "error_x", "errors"],
  expect: ["max_amplification", "min_success_ratio", "recovers_within_ms", "max_p99_ms", "verdict", "max_upstream_429"],
};

/** What each action takes, to say which parameters belong where. */
export const ACTION_PARAMETERS: Record<string, string> = {
  retry_with_backoff: "max_retries, and backoff_ms or backoff",
  retry_with_hint: "max_retries, hint, and backoff_ms or backoff",
  refresh_evidence: "then",
  restore_checkpoint: "then",
  escalate_to_human: "queue",
  issue_reversal: "reason",
  deprecate_tool_call: "reason, replan",
  fallback: "tool",
  fail: "message (optional)",
  dead_letter: "queue",
};

/** Fields whose range is their meaning, not a limit of SPEC 16: said as what the value is. */
const RANGES: Record<string, string> = {
  failure_ratio: "a share of attempts in (0, 1] (0.5 opens at half of them failing)",
  percent: "a percentage in (0, 100]",
  sampling_ms: "a window of at least 1 ms (at most one day)",
  sampling_attempts: "a window of at least 1 attempt (at most 100000)",
  max_attempts: "from 1 to 10 attempts in flight at once, the first included (gRPC caps hedging at 5; more multiplies load)",
  token_ratio: "a share of a token in (0, 1000] added back by each success",
  max_tokens: "a token count in (0, 1000]",
};

const ONE_OR_MANY: Record<string, string> = {
  fixtures: "a path or a list of paths",
  storms: "a glob or path, or a list of them",
  http_status: "a status (503), a class (\"5xx\"), a range (\"500-599\"), or a list of them",
  side_effect_state: "none, unknown or committed, or a list of them",
};

export function validateDocument(kind: DocumentKind, doc: YamlDocument): SchemaProblem[] {
  const validate = VALIDATORS[kind];
  if (validate(doc.value)) return [];
  return translate(kind, doc.value, validate.errors ?? []);
}

/** Each of `verdicts` passes the registry schema's definition of a verdict. */
export function verdictsValid(verdicts: readonly unknown[]): boolean {
  return verdicts.every((v) => validators.registry_verdict(v));
}

/**
 * What is wrong with an adapter error given outside any document (`failbook classify
 * --error`), by the fixture schema's own definition of one; paths are within the error.
 */
export function adapterErrorProblems(value: unknown): SchemaProblem[] {
  return problemsOf("adapter_error", validators.adapter_error, value);
}

/**
 * What is wrong with a value by a validator compiled apart (a storm's, SPEC 19), in the same
 * words. Typed as a bare function: the public declarations name no generated module.
 */
export function problemsOf(context: "storm" | "adapter_error", validate: (data: unknown) => boolean, value: unknown): SchemaProblem[] {
  if (validate(value)) return [];
  return translate(context, value, (validate as Validator).errors ?? []);
}

function translate(kind: Context, root: unknown, errors: SchemaError[]): SchemaProblem[] {
  const anyOfPaths = new Set(errors.filter((e) => e.keyword === "anyOf").map((e) => e.instancePath));
  const problems: SchemaProblem[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    if (e.keyword === "if") continue;
    // An anyOf failure reports every branch; say it once, as what the field accepts.
    if (e.keyword !== "anyOf" && [...anyOfPaths].some((p) => e.instancePath === p || e.instancePath.startsWith(p + "/"))) continue;
    const problem = describe(kind, root, e);
    const id = problem.path.join("/") + "\u0000" + problem.message;
    if (!seen.has(id)) {
      seen.add(id);
      problems.push(problem);
    }
  }
  return problems;
}

function describe(kind: Context, root: unknown, e: SchemaError): SchemaProblem {
  const path = parsePointer(e.instancePath);
  const field = path.length > 0 ? String(path[path.length - 1]) : kind;
  const where = contextName(kind, path, root);
  const actual = valueAt(root, path);
  const p = e.params;
  switch (e.keyword) {
    case "required":
      return { message: `${where} is missing '${String(p.missingProperty)}'`, path, target: "key" };
    case "additionalProperties": {
      const key = String(p.additionalProperty);
      const context = contextKey(kind, path);
      const allowed = context ? KEYS[context] : undefined;
      const near = allowed ? closest(key, allowed) : undefined;
      const hint = near ? `; did you mean '${near}'?` : allowed ? `; expected one of: ${allowed.join(", ")}` : "";
      return { message: `unknown key '${key}' in ${where}${hint}`, path: [...path, key], target: "key", ...(near ? { fix: replaceFix(near) } : {}) };
    }
    case "false schema": {
      const action = valueAt(root, [...path.slice(0, -1), "action"]);
      if (typeof action === "string" && ACTION_PARAMETERS[action]) {
        return { message: `'${field}' is not a parameter of action ${action} (it takes ${ACTION_PARAMETERS[action]})`, path, target: "key" };
      }
      if (field === "sampling_attempts") return { message: "'sampling_attempts' does not combine with buckets: a bucketed window counts time, not attempts; keep one of them", path, target: "key" };
      const strategy = valueAt(root, [...path.slice(0, -1), "strategy"]);
      return { message: `'${field}' does not apply to backoff strategy ${String(strategy)}`, path, target: "key" };
    }
    case "type":
      return { message: `'${field}' must be ${article(String(p.type))}, not ${describeValue(actual)}`, path, target: "value" };
    case "enum": {
      const allowed = (p.allowedValues as unknown[]).map(String);
      const near = typeof actual === "string" ? closest(actual, allowed) : undefined;
      const hint = near ? `; did you mean '${near}'?` : "";
      return { message: `'${field}' must be one of ${allowed.join(", ")}, not ${describeValue(actual)}${hint}`, path, target: "value", ...(near ? { fix: replaceFix(near) } : {}) };
    }
    case "const":
      return { message: `'${field}' must be '${String(p.allowedValue)}', not ${describeValue(actual)}`, path, target: "value" };
    case "anyOf": {
      const expected = ONE_OR_MANY[field] ?? "a string or a list of strings";
      if (Array.isArray(actual) && actual.length > 0) {
        // Point at the first item that is of the wrong sort, not at the whole list.
        const bad = actual.findIndex((item) => (field === "http_status" ? !isStatusMatcher(item) : field === "side_effect_state" ? !["none", "unknown", "committed"].includes(item as string) : typeof item !== "string"));
        if (bad >= 0) return { message: `'${field}' must be ${expected}; item ${bad + 1} is ${describeValue(actual[bad])}`, path: [...path, bad], target: "value" };
      }
      return { message: `'${field}' must be ${expected}, not ${describeValue(actual)}`, path, target: "value" };
    }
    case "minimum":
    case "exclusiveMinimum":
      if (Object.hasOwn(RANGES, field)) return { message: `'${field}' must be ${RANGES[field]}, not ${describeValue(actual)}`, path, target: "value" };
      return { message: `'${field}' ${e.message ?? "is out of range"}, not ${describeValue(actual)}`, path, target: "value" };
    case "maximum":
      if (Object.hasOwn(RANGES, field)) return { message: `'${field}' must be ${RANGES[field]}, not ${describeValue(actual)}`, path, target: "value" };
      return limitExceeded(field, e, actual, path);
    case "maxItems":
      return limitExceeded(field, e, actual, path);
    case "minItems":
      return { message: `'${field}' must not be empty`, path, target: "value" };
    case "minLength":
      return { message: `'${field}' must not be empty`, path, target: "value" };
    case "minProperties":
      return { message: `${where} must have at least ${String(p.limit)} key${p.limit === 1 ? "" : "s"}`, path, target: "value" };
    case "pattern":
      return { message: `'${field}' is not a valid status matcher: ${describeValue(actual)} (use 503, "5xx" or "500-599")`, path, target: "value" };
    default:
      return { message: `'${field}' ${e.message ?? "is invalid"}`, path, target: "value" };
  }
}

/** A limit of SPEC 16, which keeps every count, delay and budget finite and every analysis cheap. */
function limitExceeded(field: string, e: SchemaError, actual: unknown, path: PathSegment[]): SchemaProblem {
  return { message: `'${field}' ${e.message ?? "is out of range"}, not ${Array.isArray(actual) ? `${actual.length} items` : describeValue(actual)} (a limit no real playbook needs to exceed; see docs/security.md, Numbers)`, path, target: "value" };
}

function isStatusMatcher(v: unknown): boolean {
  if (typeof v === "number") return Number.isInteger(v) && v >= 100 && v <= 599;
  return typeof v === "string" && /^([1-5]xx|[1-5][0-9]{2}|[1-5][0-9]{2}-[1-5][0-9]{2})$/.test(v);
}

function parsePointer(pointer: string): PathSegment[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/** The value at `path` of a JSON-like value; undefined when the path leads nowhere. */
export function valueAt(root: unknown, path: readonly PathSegment[]): unknown {
  let node = root;
  for (const seg of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[String(seg)];
  }
  return node;
}

/** Which KEYS table applies to the object at `path`. */
function contextKey(kind: Context, path: readonly PathSegment[]): string | undefined {
  const names = path.filter((s) => typeof s === "string") as string[];
  const last = path.length > 0 ? path[path.length - 1] : undefined;
  const parent = path.length > 1 ? path[path.length - 2] : undefined;
  if (kind === "adapter_error") return path.length === 0 || last === "cause" ? "error" : undefined;
  if (path.length === 0) return kind;
  if (kind === "registry") {
    if (parent === "classes") return "class";
    if (parent === "error_fields") return "error_field";
    if (path[0] === "verdicts" && path.length === 2) return "verdict";
    if (path[0] === "verdicts" && path[2] === "examples") return path.length === 4 ? "example" : last === "cause" ? "error" : undefined;
    if (parent === "match" || last === "cause") return "match";
  }
  if (kind === "playbook") {
    if (parent === "circuit_breakers" && path.length === 2) return "circuit_breaker";
    if (parent === "rate_limits" && path.length === 2) return "rate_limit";
    if (parent === "tools" && path.length === 2) return "tool";
    if (last === "retry_budget" || last === "retry_throttling" || last === "hedging" || last === "jitter" || last === "fleet") return last;
    if (last === "budgets") return "budgets";
    if (last === "backoff") return "backoff";
    if (last === "retry_after") return "retry_after";
    if (last === "retry_quota") return "retry_quota";
    if (parent === "verdicts" && path.length === 2) return "action";
  }
  if (kind === "storm") {
    if (last === "error" || last === "overload_error" || last === "cause") return "error";
    if (last === "rate_limit") return "upstream_rate_limit";
    if (typeof last === "number") return parent === "calls" ? "storm_call" : parent === "phases" ? "phase" : parent === "errors" ? "error_mix" : parent === "down" ? "store_down" : undefined;
    return typeof last === "string" && KEYS[last] !== undefined && last !== "storm" ? last : undefined;
  }
  if (kind === "fixture") {
    if (last === "state") return "state";
    if (last === "call" || (names[names.length - 1] === "call" && typeof last === "string")) return "call";
    if (last === "error" || last === "cause") return "error";
    if (typeof last === "number" && (parent === "responses" || parent === "fallback_responses")) return "response";
  }
  return undefined;
}

/** "verdict 'transient_timeout'", "playbook entry 'policy_denied'", "match rule 2 of 'x'". */
function contextName(kind: Context, path: readonly PathSegment[], root: unknown): string {
  if (path.length === 0) return kind === "adapter_error" ? "the adapter error" : `the ${kind}`;
  const code = kind === "registry" && path[0] === "verdicts" && typeof path[1] === "number" ? valueAt(root, ["verdicts", path[1], "code"]) : undefined;
  const parent = path[path.length - 2];
  const last = path[path.length - 1];
  if (kind === "registry" && path[0] === "verdicts" && path.length === 2) return typeof code === "string" ? `verdict '${code}'` : `verdict #${Number(last) + 1}`;
  if (kind === "registry" && parent === "match" && typeof last === "number") return `match rule ${last + 1} of ${typeof code === "string" ? `'${code}'` : "this verdict"}`;
  if (kind === "registry" && parent === "classes") return `class '${String(last)}'`;
  if (kind === "registry" && parent === "error_fields") return `error field '${String(last)}'`;
  if (kind === "playbook" && parent === "verdicts" && path.length === 2) return `the playbook entry for '${String(last)}'`;
  // A list item has no name of its own: say which item of which list ("item 1 of 'steps'").
  if (typeof last === "number" && parent !== undefined) return `item ${last + 1} of '${String(parent)}'`;
  return `'${String(last)}'`;
}

/** "an integer"; for a union such as "string,number,boolean", "a string, a number or true or false". */
function article(type: string): string {
  const names: Record<string, string> = { integer: "an integer", number: "a number", string: "a string", boolean: "true or false", object: "a mapping", array: "a list", null: "null" };
  const each = type.split(",").map((t) => names[t] ?? t);
  return each.length === 1 ? (each[0] as string) : `${each.slice(0, -1).join(", ")} or ${each[each.length - 1] as string}`;
}

function describeValue(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null (an empty value)";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a mapping";
  if (typeof v === "string") return `'${clip(v, 40)}'`;
  return String(v);
}
