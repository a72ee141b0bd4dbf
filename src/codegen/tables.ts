/**
 * The data every generated binding is made of, built once for all target languages: the
 * registry and playbook with their prose redacted, the verdict sets, the error kinds, each
 * verdict's facts, each verdict's action, and the classify rules as the one classifier
 * (src/engine/classifier.ts) takes them. `gen ts` and `gen py` print these same tables, so the two
 * modules cannot disagree about what a registry says.
 */
import { relative, sep } from "node:path";
import type { ActionName, CompensationAction, Playbook } from "failbook-runtime/model/playbook.js";
import { sideEffectOf, statusOf, type Registry, type SideEffectState, type Verdict } from "failbook-runtime/model/registry.js";
import { setOwn } from "failbook-runtime/model/json.js";
import { classifierRules } from "failbook-runtime/engine/classify.js";
import type { ClassifierRule } from "failbook-runtime/engine/classifier.js";
import { redactValue, type Redactor } from "failbook-runtime/engine/redact.js";
import { patternRedactor } from "../load/redaction.js";
import type { CodegenInput, GenerateOptions } from "./typescript.js";

export const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const listOf = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The inputs of a generation: the documents as parsed, the banner's paths, the redactor. */
export interface ResolvedInput {
  registry: Registry;
  playbook: Playbook;
  files: GenerateOptions["files"];
  redact: Redactor;
  /** The project's own `redact:` patterns (the redactor runs them too). */
  redactPatterns: readonly string[];
}

export function resolveInput(input: CodegenInput, options: GenerateOptions): ResolvedInput {
  if ("configFile" in input) {
    if (!input.registry || !input.playbook) throw new Error("the project's registry or playbook did not load; run `failbook lint` to see why");
    const rel = (p: string) => relative(input.root, p).split(sep).join("/");
    const files = options.files ?? { config: rel(input.configFile), registry: rel(input.files.registry), playbook: rel(input.files.playbook) };
    const redactPatterns = options.redactPatterns ?? input.config.redact ?? [];
    return { registry: input.registry.value, playbook: input.playbook.value, files, redact: options.redact ?? patternRedactor(redactPatterns), redactPatterns };
  }
  const redactPatterns = options.redactPatterns ?? [];
  return { registry: input.registry, playbook: input.playbook, files: options.files, redact: options.redact ?? patternRedactor(redactPatterns), redactPatterns };
}

/**
 * Secrets are redacted from the registry's prose (summaries, causes, next actions, details
 * schemas) and the playbook's free texts, never from its vocabulary: codes, classes, kinds,
 * match values and tools stay as written, so redaction cannot change what classify() decides.
 */
export function redactProse(registry: Registry, redact: Redactor): Registry {
  const verdicts = registry.verdicts.map((v) => {
    const { code, class: cls, match, replaced_by, status, ...prose } = v;
    return { ...redactValue(prose, redact), code, class: cls, ...(match === undefined ? {} : { match }), ...(replaced_by === undefined ? {} : { replaced_by }), ...(status === undefined ? {} : { status }) } as Verdict;
  });
  let error_fields: Registry["error_fields"];
  if (registry.error_fields !== undefined) {
    error_fields = {};
    for (const [name, field] of Object.entries(registry.error_fields)) setOwn(error_fields, name, field.description === undefined ? field : { ...field, description: redact(field.description) });
  }
  return { ...registry, name: redact(registry.name), verdicts, ...(error_fields === undefined ? {} : { error_fields }) };
}

export function redactActions(playbook: Playbook, redact: Redactor): Playbook {
  const verdicts: Record<string, CompensationAction> = {};
  for (const [code, action] of Object.entries(playbook.verdicts)) {
    const texts = action as unknown as Record<string, unknown>;
    const redacted = { ...texts };
    for (const key of ["reason", "hint", "message"]) if (typeof texts[key] === "string") redacted[key] = redact(texts[key] as string);
    setOwn(verdicts, code, redacted);
  }
  return { ...playbook, name: redact(playbook.name), verdicts };
}

/** What the registry says about one verdict, as VERDICT_INFO holds it. */
export interface VerdictInfoData {
  code: string;
  class: string;
  status: "active" | "deprecated";
  retryable: boolean;
  side_effect: SideEffectState;
  boundary: string | null;
  human_action_required: boolean;
  summary: string | null;
  cause: string | null;
  recovery: string | null;
  safe_next_actions: string[];
  unsafe_next_actions: string[];
  replaced_by: string | null;
}

export function verdictInfo(v: Verdict): VerdictInfoData {
  return {
    code: v.code,
    class: v.class,
    status: statusOf(v) === "deprecated" ? "deprecated" : "active",
    retryable: v.retryable,
    side_effect: sideEffectOf(v),
    boundary: v.boundary ?? null,
    human_action_required: v.human_action_required === true,
    summary: v.summary ?? null,
    cause: v.cause ?? null,
    recovery: v.recovery ?? null,
    safe_next_actions: v.safe_next_actions ?? [],
    unsafe_next_actions: v.unsafe_next_actions ?? [],
    replaced_by: v.replaced_by ?? null,
  };
}

/** The fields each action may carry, in the order they are written. */
const ACTION_FIELDS: Record<ActionName, readonly string[]> = {
  retry_with_backoff: ["max_retries", "backoff_ms", "backoff"],
  retry_with_hint: ["max_retries", "hint", "backoff_ms", "backoff"],
  refresh_evidence: ["then"],
  restore_checkpoint: ["then"],
  refresh_credentials: ["then"],
  escalate_to_human: ["queue"],
  issue_reversal: ["reason"],
  deprecate_tool_call: ["reason", "replan"],
  fallback: ["tool"],
  fail: ["message"],
  dead_letter: ["queue"],
};
const BACKOFF_FIELDS = ["strategy", "base_ms", "factor", "cap_ms", "jitter", "min_ms"];

function pick(source: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (source[k] !== undefined) out[k] = source[k];
  return out;
}

/** An action as PLAYBOOK holds it: its own fields only, in a fixed order. */
export function actionData(action: CompensationAction): Record<string, unknown> {
  const fields = pick(action as unknown as Record<string, unknown>, ACTION_FIELDS[action.action] ?? []);
  if (fields.backoff !== undefined) fields.backoff = pick(fields.backoff as Record<string, unknown>, BACKOFF_FIELDS);
  return { action: action.action, ...fields };
}

/** The playbook's shared policies (SPEC 18, 22), the keys PlaybookPolicies types, in a fixed order. */
const POLICY_KEYS = ["attempt_timeout_ms", "tools", "circuit_breakers", "rate_limits", "retry_budget", "retry_throttling", "hedging"] as const;

/** The playbook's shared policies as POLICIES holds them: only the keys that are set. */
export function policiesData(playbook: Playbook): Record<string, unknown> {
  return pick(playbook as unknown as Record<string, unknown>, POLICY_KEYS);
}

/** Everything a binding prints, in the order it prints it. */
export interface BindingTables {
  /** Prose redacted. */
  registry: Registry;
  playbook: Playbook;
  /** Active and deprecated verdicts, sorted by code. */
  usable: Verdict[];
  verdicts: string[];
  reserved: string[];
  classes: string[];
  errorKinds: string[];
  /** Declared error fields, by name. */
  errorFields: [string, NonNullable<Registry["error_fields"]>[string]][];
  /** Code -> facts, in code order. */
  info: Record<string, VerdictInfoData>;
  /** Code -> action, in code order. */
  actions: Record<string, Record<string, unknown>>;
  /** The classify rules in registry order, as the one classifier takes them. */
  rules: ClassifierRule[];
  /** The playbook's shared policies. */
  policies: Record<string, unknown>;
}

/** The tables of a (redacted) registry and playbook; the playbook must cover every usable verdict. */
export function bindingTables(registry: Registry, playbook: Playbook): BindingTables {
  const usable = registry.verdicts.filter((v) => statusOf(v) !== "reserved").sort((a, b) => byText(a.code, b.code));
  const info: Record<string, VerdictInfoData> = {};
  const actions: Record<string, Record<string, unknown>> = {};
  for (const v of usable) {
    setOwn(info, v.code, verdictInfo(v));
    setOwn(actions, v.code, actionData(playbook.verdicts[v.code] as CompensationAction));
  }
  const { rules } = classifierRules(registry, false, playbook);
  return {
    registry,
    playbook,
    usable,
    verdicts: usable.map((v) => v.code),
    reserved: registry.verdicts.filter((v) => statusOf(v) === "reserved").map((v) => v.code).sort(byText),
    classes: Object.keys(registry.classes).sort(byText),
    errorKinds: [...new Set(usable.flatMap((v) => (v.match ?? []).flatMap((r) => listOf(r.kind))))].sort(byText),
    errorFields: Object.entries(registry.error_fields ?? {}).sort((a, b) => byText(a[0], b[0])),
    info,
    actions,
    rules,
    policies: policiesData(playbook),
  };
}
