/** `failbook classify`: which verdict one adapter error gets, by which rule, and what the playbook does. */
import { Option } from "commander";
import type { AdapterError } from "failbook-runtime/model/fixture.js";
import { adapterErrorProblems } from "../load/schema.js";
import { UsageError } from "failbook-runtime/model/errors.js";
import type { Position } from "failbook-runtime/model/finding.js";
import { hasFieldType, type Registry, sideEffectOf } from "failbook-runtime/model/registry.js";
import { applyRetryAfter, readRetryAfter } from "failbook-runtime/engine/retry-after.js";
import { retryDelay } from "failbook-runtime/engine/backoff.js";
import { maxRandom } from "failbook-runtime/engine/random.js";
import { CAUSE_DEPTH } from "failbook-runtime/engine/classifier.js";
import { type CompensationAction, honorsRetryAfter, isRetryAction, type Playbook, retryAfterPolicyOf, type RetryAfterPolicy } from "failbook-runtime/model/playbook.js";
import { retryAfterText } from "../render/model.js";
import { classificationReport, type ClassificationReport, type FirstFailure } from "../render/classification.js";
import { wrapText } from "../render/explain.js";
import { flow } from "../simulate/report/flow.js";
import { inert, inertJson } from "failbook-runtime/util/inert.js";
import { choiceFlag, type CommandRegistrar, findingsText, type Globals, loadFor } from "./command.js";
import type { Io } from "./io.js";

const FORMATS = ["text", "json"] as const;
const EXAMPLE = `--error '{"kind":"409_conflict","message":"idempotency_key already processed"}'`;

interface ClassifyFlags {
  error: string;
  tool?: string;
  format?: string;
}

export const registerClassify: CommandRegistrar = (program, run) => {
  program
    .command("classify")
    .description("print the verdict, the matching rule and the playbook action for one adapter error")
    .requiredOption("--error <json>", "the adapter error as JSON: kind, message, http_status, provider_code, side_effect_state, retry_after_ms, headers, fields (the registry's error_fields), cause")
    .option("--tool <name>", "the call's tool, for rules that match on `tool`")
    .addOption(new Option("--format <format>", "output format").choices([...FORMATS]).default("text"))
    .addHelpText(
      "after",
      `
Rules are tried in file order (verdicts in order, then each verdict's rules); the first
whose fields all hold wins. An error no rule matches, and \`null\` (a failure without an
error object), get the registry's fallback verdict.

Exit status: 0 classified; 1 the registry or playbook is invalid; 2 bad usage (the JSON
does not parse, or is not an adapter error).

Examples:
  failbook classify ${EXAMPLE}
  failbook classify --error '{"kind":"403_forbidden","provider_code":"insufficient_scope"}' --tool github.create_issue
  failbook classify --error '{"kind":"timeout"}' --format json
  failbook classify --error '{"kind":"api_error","http_status":500,"headers":{"x-should-retry":"false"}}'
  failbook classify --error '{"kind":"card_error","fields":{"decline_code":"insufficient_funds"}}'
  failbook classify --error '{"kind":"sdk_error","cause":{"kind":"ECONNRESET"}}'

Header names are compared in any case. A field under "fields" that the registry does not
declare in error_fields is ignored, with a warning on stderr.`,
    )
    .action(run((io, globals, flags: ClassifyFlags) => classifyCommand(io, globals, flags)));
};

async function classifyCommand(io: Io, globals: Globals, flags: ClassifyFlags): Promise<number> {
  const format = choiceFlag("--format", flags.format, FORMATS, "text");
  const error = parseAdapterError(flags.error);
  const { project, findings } = loadFor(io, globals, { fixturePaths: [] });
  const registry = project.registry;
  const playbook = project.playbook;
  if (!registry || !playbook) {
    io.err(findingsText(io, findings, project.sources));
    io.err("failbook: cannot classify until the registry and playbook load; fix the errors above\n");
    return 1;
  }
  const fieldsAt = registry.doc.locate(registry.value.error_fields ? ["error_fields"] : [], "key");
  for (const warning of fieldWarnings(error, registry.value.error_fields, `${fieldsAt.file}:${fieldsAt.line}:${fieldsAt.column}`)) io.err(`failbook: warning: --error ${inert(warning)}\n`);
  const { result, verdict, action, report } = classificationReport(registry, playbook.value, error, flags.tool, Date.now());
  const rulePosition = report.rule;
  const fallbackPosition = registry.doc.locate(["fallback"]);
  const hint = retryAfterHint(playbook.value, action, error);
  const actionPosition = action ? playbook.doc.locate(["verdicts", result.verdict], "key") : null;

  if (format === "json") {
    io.out(
      inertJson(
        {
          error: error ?? null,
          tool: flags.tool ?? null,
          ...report,
          action_at: actionPosition ? located(actionPosition) : null,
          retry_after: hint,
        },
        2,
      ) + "\n",
    );
    return 0;
  }

  const { c } = io;
  // Values from input print as data (flow() quotes and escapes its own); a paragraph keeps its
  // line breaks, each continuation line indented under its label.
  const where = (p: Position) => c.dim(inert(`${p.file}:${p.line}:${p.column}`));
  const code = inert(result.verdict);
  const para = (label: string, text: string) => wrapText(inert(text, "text"), " ".repeat(10), undefined).replace(/^ +/, `${label.padEnd(9)} `);
  const lines: string[] = [];
  const facts = verdict ? `class ${inert(verdict.class)}, ${retryableText(verdict.retryable === true, report)}, side effect ${sideEffectOf(verdict)}` : "not in the registry";
  lines.push(`${"error".padEnd(9)} ${error ? flow(error) : "none (a failure without an error object)"}${flags.tool ? ` from ${flow(flags.tool)}` : ""}`);
  lines.push(`${"verdict".padEnd(9)} ${c.bold(code)}  ${c.dim(`(${facts})`)}`);
  if (result.rule && rulePosition) {
    const rule = registry.value.verdicts[result.rule.verdict]?.match?.[result.rule.index];
    lines.push(`${"matched".padEnd(9)} ${where(rulePosition)}  rule ${result.rule.index + 1} of ${code}: ${flow(rule)}`);
  } else {
    lines.push(`${"matched".padEnd(9)} no rule matched; the registry's fallback applies ${where(fallbackPosition)}`);
  }
  if (action && actionPosition) {
    const { action: name, ...params } = action;
    const shown = Object.keys(params).length > 0 ? ` ${flow(params)}` : "";
    lines.push(`${"action".padEnd(9)} ${c.bold(name)}${shown}  ${where(actionPosition)}`);
  } else {
    lines.push(`${"action".padEnd(9)} ${c.red("none")}: the playbook has no action for ${code} (the runtime escalates to ${inert(playbook.value.escalation_queue ?? "default")})`);
  }
  if (report.dispatch !== null) lines.push(`${"dispatch".padEnd(9)} ${dispatchText(report.dispatch, flags.tool, playbook.value)}`);
  if (hint !== null) {
    const unreadable = hint.unreadable.map((u) => `${inert(u.header)}: ${flow(u.value)} is neither a number nor an HTTP date (counted as absent)`);
    const invalid = hint.invalid === null ? [] : [`${inert(hint.invalid.source)}: ${flow(hint.invalid.value)} is negative or unreadable, and invalid: give_up ends the dispatch exhausted (retry_after_invalid) instead of retrying`];
    const read = hint.invalid !== null ? invalid[0] : hint.hint_ms === null ? "no hint" : `the server asks for ${hint.hint_ms} ms${hint.gives_up ? ", above max_ms with above_max: give_up, so the dispatch ends exhausted (retry_after_too_long) instead of retrying" : ""}`;
    const policy = hint.honored ? inert(retryAfterText(hint.policy)) : "honor_retry_after: false, so hints are ignored";
    lines.push(`${"hint".padEnd(9)} ${[read, ...unreadable].join("; ")}  ${c.dim(`(${policy})`)}`);
  }
  if (verdict?.summary) lines.push(para("summary", verdict.summary));
  if (verdict?.recovery) lines.push(para("recovery", verdict.recovery));
  io.out(lines.join("\n") + "\n");
  return 0;
}

/** The verdict's flag, and why this failure is not retried when the flag says it may be. */
function retryableText(flag: boolean, report: ClassificationReport): string {
  if (!flag) return "not retryable";
  if (report.retryable) return "retryable";
  return report.idempotent ? "retryable but not once committed" : "retryable but not from this tool";
}

/** What the dispatcher does with this error as a call's first failure (a retry action only). */
function dispatchText(d: FirstFailure, tool: string | undefined, playbook: Playbook): string {
  if (d.retries) return `retries it after up to ${d.delay_ms} ms (the first retry; each failure is classified afresh)`;
  const why = d.reason === "non_idempotent" || d.reason === "side_effect_unknown" ? `: ${tool === undefined ? "the call" : flow(tool)} is not idempotent (the playbook's tools:), so` : ",";
  const queue = d.queue === null ? "" : ` to ${inert(d.queue)}`;
  const then = d.outcome === "exhausted" && playbook.on_exhausted ? `, then on_exhausted: ${playbook.on_exhausted.action}` : "";
  return `no retry${why} the dispatch ends ${d.outcome}${queue}, reason ${inert(d.reason ?? "")}${then}`;
}

interface HintReport {
  hint_ms: number | null;
  /** The hint is above the policy's max_ms with above_max: give_up: no retry is made. */
  gives_up: boolean;
  unreadable: { header: string; value: string }[];
  /** A negative or unreadable hint under invalid: give_up: no retry is made. */
  invalid: { source: string; value: string } | null;
  honored: boolean;
  policy: RetryAfterPolicy;
}

/** For a retry action, the Retry-After hint the error carries as the policy in force reads it (SPEC 12). */
function retryAfterHint(playbook: Playbook, action: CompensationAction | null, error: AdapterError | undefined): HintReport | null {
  if (action === null || !isRetryAction(action) || error === undefined) return null;
  const policy = retryAfterPolicyOf(playbook, action);
  const reading = readRetryAfter(error, policy, Date.now());
  const honored = honorsRetryAfter(playbook);
  if (reading.hintMs === undefined && reading.unreadable.length === 0 && reading.invalid === undefined) return null;
  // What the hint does to the first retry, as the engine decides it (the schedule's first delay, jitter at its top).
  const gives_up = honored && applyRetryAfter(retryDelay(action, 0, undefined, maxRandom), reading.hintMs, policy).kind === "give_up";
  return { hint_ms: reading.hintMs ?? null, gives_up, unreadable: reading.unreadable, invalid: reading.invalid ?? null, honored, policy };
}

const located = (p: Position) => ({ file: p.file, line: p.line, column: p.column });

/** A problem with --error, then an example; a problem that ends in a question ("did you mean 'x'?") ends its sentence there. */
const withExample = (problem: string): string => `${problem}${problem.endsWith("?") ? " For" : "; for"} example ${EXAMPLE}`;

/** The `--error` flag as an adapter error; `null` is a failure without an error object. */
export function parseAdapterError(text: string): AdapterError | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const at = /position (\d+)/.exec((e as Error).message);
    throw new UsageError(`--error is not valid JSON${at ? ` (at character ${Number(at[1]) + 1})` : ""}; pass an adapter error such as ${EXAMPLE}`);
  }
  if (value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) throw new UsageError(withExample(`--error must be a JSON object (an adapter error), not ${Array.isArray(value) ? "a list" : `a ${typeof value}`}`));
  // Causes are followed CAUSE_DEPTH deep: a deeper chain is refused before anything walks it.
  let depth = 1;
  for (let e = value as { cause?: unknown }; e.cause !== null && typeof e.cause === "object"; e = e.cause as { cause?: unknown }) {
    if (++depth > CAUSE_DEPTH) throw new UsageError(withExample(`--error field "${"cause.".repeat(CAUSE_DEPTH - 1)}cause" nests deeper than ${CAUSE_DEPTH} errors`));
  }
  // The fixture schema's definition of an adapter error, the one every fixture is checked by.
  const [problem] = adapterErrorProblems(value);
  if (problem) {
    // The message names the field; a nested one is named by its whole path too.
    const at = problem.path.length > 1 ? ` field "${problem.path.join(".")}"` : "";
    throw new UsageError(withExample(`--error${at}: ${problem.message}`));
  }
  return value as AdapterError;
}

/**
 * Fields of the error (and its causes) the registry does not declare, or whose value is not
 * of the declared type: classify ignores the first and no rule can match the second.
 */
export function fieldWarnings(error: AdapterError | undefined, declared: Registry["error_fields"], where: string): string[] {
  const out: string[] = [];
  for (let e = error, at = ""; e !== undefined; e = e.cause, at += "cause.") {
    for (const [name, value] of Object.entries(e.fields ?? {})) {
      const declaration = declared !== undefined && Object.hasOwn(declared, name) ? declared[name] : undefined;
      if (declaration === undefined) {
        out.push(`field "${at}fields.${name}" is not declared in the registry's error_fields, so classify ignores it; declare it under error_fields (${where}) or drop it`);
      } else if (!hasFieldType(value, declaration.type)) {
        out.push(`field "${at}fields.${name}" is ${JSON.stringify(value)}, but the registry declares ${name} as ${declaration.type}: no rule can match it; send a ${declaration.type}`);
      }
    }
  }
  return out;
}
