/**
 * `failbook new fixture --verdict CODE`: a fixture whose failure classifies to CODE, built
 * from the verdict's first example (else from its first match rule that an error can be
 * built for), dispatched once, with the golden the run recorded. Every candidate error is
 * checked with the one classifier before it is used: a scaffold never guesses.
 */
import { Document, isMap, isSeq, type YAMLMap } from "yaml";
import { classify } from "failbook-runtime/engine/classify.js";
import { statusRange } from "failbook-runtime/engine/classifier.js";
import type { AdapterError, Call, Fixture, Response } from "failbook-runtime/model/fixture.js";
import { setOwn } from "failbook-runtime/model/json.js";
import type { MatchRule, Registry, Verdict } from "failbook-runtime/model/registry.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import { recordedGolden } from "./golden.js";
import { simulateFixture, type Rules } from "./fixture.js";

export interface ScaffoldOptions {
  name: string;
  /** The call's tool; else the example's, else one the verdict's rule accepts. */
  tool?: string;
}

export interface Scaffold {
  fixture: Fixture;
  /** The fixture as YAML, with a header comment saying where its failure came from. */
  text: string;
  /** Where the failure came from: "example 1" or "match rule #2". */
  source: string;
}

/** A verdict whose failure cannot be scaffolded, and what to do about it. */
export class ScaffoldError extends Error {}

const DEFAULT_TOOL = "adapter.call";

export async function scaffoldFixture(rules: Rules, verdict: Verdict, options: ScaffoldOptions): Promise<Scaffold> {
  const failure = failureFor(rules.registry, rules.playbook, verdict, options.tool);
  // The call is named after the verdict, so that fixtures scaffolded side by side are told apart.
  const call: Call = { id: `call_${verdict.code.replace(/[^A-Za-z0-9_]+/g, "_")}`, tool: failure.tool };
  const action = rules.playbook.verdicts[verdict.code]?.action;
  // The failure, then success: a retry or a refresh-then-retry recovers; other actions end at the failure.
  const responses: Response[] = [{ status: "error", error: failure.error }, { status: "ok", value: {} }];
  const fixture: Fixture = {
    apiVersion: "failbook/v1",
    kind: "Fixture",
    name: options.name,
    call,
    responses,
    ...(action === "fallback" ? { fallback_responses: [{ status: "ok", value: {} }] } : {}),
  };
  const run = await simulateFixture(rules, fixture);
  if (!run.ok) throw new ScaffoldError(`the scaffolded fixture for '${verdict.code}' cannot run: ${run.error.message}`);
  fixture.expect = recordedGolden(undefined, run.outcome, run.events);
  const header = `# Scaffolded by \`failbook new fixture --verdict ${verdict.code}\` from the verdict's ${failure.source}.\n# The golden is what the playbook does today: review it, then edit the responses to tell the story you mean.\n`;
  return { fixture, text: header + fixtureYaml(fixture), source: failure.source };
}

/** The fixture as the shipped ones are written: the call and each response on one line, the golden as a block. */
function fixtureYaml(fixture: Fixture): string {
  const doc = new Document(fixture);
  const root = doc.contents as YAMLMap;
  const flow = (node: unknown) => {
    if (isMap(node) || isSeq(node)) node.flow = true;
  };
  flow(root.get("call", true));
  for (const key of ["responses", "fallback_responses"]) {
    const list = root.get(key, true);
    if (isSeq(list)) list.items.forEach(flow);
  }
  return doc.toString({ lineWidth: 0, flowCollectionPadding: true });
}

interface Failure {
  error: AdapterError;
  tool: string;
  source: string;
}

/** The first example, else the first match rule an error can be built for, that classifies to the verdict. */
function failureFor(registry: Registry, playbook: Playbook, verdict: Verdict, tool: string | undefined): Failure {
  const tried: string[] = [];
  for (const [i, example] of (verdict.examples ?? []).entries()) {
    const { tool: exampleTool, ...error } = example;
    const candidate = { error, tool: tool ?? exampleTool ?? DEFAULT_TOOL, source: `example ${i + 1}` };
    if (classifiesTo(registry, playbook, candidate, verdict.code)) return candidate;
    tried.push(candidate.source);
  }
  for (const [i, rule] of (verdict.match ?? []).entries()) {
    const source = `match rule #${i + 1}`;
    const candidates = kindsFor(rule, verdict.code).flatMap((kind) => {
      const error = errorFor(rule, kind);
      return error === undefined ? [] : [{ error, tool: tool ?? toolFor(rule) ?? DEFAULT_TOOL, source }];
    });
    if (candidates.length === 0) continue;
    const found = candidates.find((candidate) => classifiesTo(registry, playbook, candidate, verdict.code));
    if (found) return found;
    tried.push(source);
  }
  if (registry.fallback === verdict.code) {
    // The fallback is what nothing recognises: a kind no rule names.
    const candidate = { error: { kind: "unrecognised_error", message: "no rule recognises this error" }, tool: tool ?? DEFAULT_TOOL, source: "fallback" };
    if (classifiesTo(registry, playbook, candidate, verdict.code)) return candidate;
  }
  const why = tried.length > 0 ? `${tried.join(", ")} classify to other verdicts (see lint: example-misclassified, matcher-shadowed)` : "it has no examples and no match rule an error can be built for";
  throw new ScaffoldError(`cannot build a failure that classifies to '${verdict.code}': ${why}${tool === undefined ? "" : ` with --tool ${tool}`}; add an example to the verdict (examples: [{ kind: ... }])`);
}

function classifiesTo(registry: Registry, playbook: Playbook, failure: Failure, code: string): boolean {
  return classify(registry, failure.error, failure.tool, playbook).verdict === code;
}

const first = <T>(v: T | T[] | undefined): T | undefined => (Array.isArray(v) ? v[0] : v);

/**
 * The kinds to try for an error this rule holds for: its own, else names from its own fields
 * (the provider code, the status) and then the verdict's code, so that the timeline reads
 * "error card_declined", never "error error". The first one that classifies is kept.
 */
function kindsFor(rule: MatchRule, code: string): string[] {
  const own = first(rule.kind);
  if (own !== undefined) return [own];
  const status = first(rule.http_status);
  const range = status === undefined ? null : statusRange(status);
  const named = [first(rule.provider_code), range === null ? undefined : `http_${range[0]}`, code];
  return [...new Set(named.filter((k): k is string => k !== undefined && k !== ""))];
}

/** An adapter error this rule holds for, of `kind` unless the rule names one, or undefined when one cannot be written down (a regular expression). */
function errorFor(rule: MatchRule, kind: string): AdapterError | undefined {
  if (rule.message_matches !== undefined) return undefined;
  const error: AdapterError = { kind: first(rule.kind) ?? kind };
  const message = first(rule.message_contains);
  if (message !== undefined) error.message = message;
  const status = first(rule.http_status);
  if (status !== undefined) {
    const range = statusRange(status);
    if (range === null) return undefined;
    error.http_status = range[0];
  }
  const provider = first(rule.provider_code);
  if (provider !== undefined) error.provider_code = provider;
  const state = first(rule.side_effect_state);
  if (state !== undefined) error.side_effect_state = state;
  if (rule.headers !== undefined) {
    error.headers = {};
    for (const [name, value] of Object.entries(rule.headers)) {
      const v = first(value) ?? "*";
      setOwn(error.headers, name, v === "*" ? "1" : v);
    }
  }
  if (rule.fields !== undefined) {
    error.fields = {};
    for (const [name, value] of Object.entries(rule.fields)) {
      const v = first(value);
      if (v !== undefined) setOwn(error.fields, name, v);
    }
  }
  if (rule.cause !== undefined) {
    const cause = errorFor(rule.cause, kindsFor(rule.cause, `${kind}_cause`)[0]!);
    if (cause === undefined) return undefined;
    error.cause = cause;
  }
  return error;
}

/** A tool the rule's glob accepts: its first glob with every `*` read as `call`. */
function toolFor(rule: MatchRule): string | undefined {
  const glob = first(rule.tool);
  return glob === undefined ? undefined : glob.replace(/\*+/g, "call").replace(/\?/g, "x");
}
