/**
 * The text report of `failbook simulate`: each fixture as a short timeline a person can
 * read at a glance (virtual times, attempts, verdicts, delays, the end), then what its
 * golden says, then one summary line.
 */
import type { Colors } from "../../util/colors.js";
import type { DispatchEvent, Outcome } from "failbook-runtime/model/outcome.js";
import type { Position } from "failbook-runtime/model/finding.js";
import { inertValue } from "failbook-runtime/util/inert.js";
import { plural } from "../../util/text.js";
import type { Coverage } from "../coverage.js";
import { goldenPath } from "../golden.js";
import type { FixtureResult, ProjectSimulation } from "../project.js";
import { flow } from "./flow.js";

export interface TextReportOptions {
  c: Colors;
  /** Fixtures whose goldens `--update` rewrote. */
  updated?: ReadonlySet<FixtureResult>;
  /** `--update` was asked for but wrote nothing, for this reason (already said on stderr). */
  updateBlocked?: string;
  /** Lint errors in the project (already said on stderr): no golden is suggested from it. */
  lintErrors?: number;
}

export function formatSimulationText(sim: ProjectSimulation, options: TextReportOptions): string {
  const blocks = sim.results.map((r) => formatResult(r, options));
  return [...blocks, summaryLine(sim, options)].join("\n") + "\n";
}

const at = (p: Position): string => `${p.file}:${p.line}:${p.column}`;

export function formatResult(raw: FixtureResult, options: TextReportOptions): string {
  const { c } = options;
  const r = shown(raw);
  const lines = [`${c.bold(r.fixture)}  ${c.dim(at(r.position))}`];
  if (r.error) {
    // What happened up to where the fixture could not go on (its responses ran out, say).
    lines.push(...timeline(r.events, c));
    lines.push(`  ${at(r.error.position)} ${c.red.bold("error")} fixture '${r.fixture}' ${r.error.message} ${c.dim("[fixture]")}`);
    return lines.join("\n") + "\n";
  }
  if (r.outcome) {
    lines.push(...header(r.outcome, c));
    lines.push(...timeline(r.events, c));
    lines.push(...ending(r.outcome, c));
  }
  if (options.updated?.has(raw)) lines.push(`  ${c.green("✓")} golden updated`);
  else if (r.passed === true) lines.push(`  ${c.green("✓")} matches its golden`);
  else if (r.passed === null) lines.push(`  ${c.dim(`· no expect block: nothing to compare${suggestsUpdate(options) ? " (failbook simulate --update records one)" : ""}`)}`);
  else {
    lines.push(`  ${c.red("✗")} differs from its golden:`);
    for (const d of r.diff ?? []) {
      const where = c.dim(at(d.position));
      const path = goldenPath(d.path);
      if (d.kind === "unknown_key") lines.push(`    ${where} ${d.message ?? path}`);
      else if (d.kind === "length") lines.push(`    ${where} ${path}: ${d.message ?? ""}`, ...expectedActual(d.expected, d.actual, c));
      else if (isShort(d.expected) && isShort(d.actual)) lines.push(`    ${where} ${path}: expected ${flow(d.expected)}, got ${flow(d.actual)}${d.message ? ` (${d.message})` : ""}`);
      else lines.push(`    ${where} ${path}:`, ...expectedActual(d.expected, d.actual, c));
    }
  }
  return lines.join("\n") + "\n";
}

/**
 * The result with every text from input inert, one line each (a fixture name, a message, a
 * queue cannot start a line of its own), except the golden diff's expected and actual values,
 * which flow() quotes and escapes itself.
 */
function shown(r: FixtureResult): Omit<FixtureResult, "source"> {
  const { source: _source, diff, ...rest } = r;
  return { ...inertValue(rest), diff: diff?.map(({ expected, actual, ...d }) => ({ ...inertValue(d), expected, actual })) ?? null };
}

const isScalar = (v: unknown): boolean => v === null || v === undefined || typeof v !== "object";
/** A scalar or a list of scalars (delays_ms): one line holds both sides. */
const isShort = (v: unknown): boolean => isScalar(v) || (Array.isArray(v) && v.every(isScalar));

function expectedActual(expected: unknown, actual: unknown, c: Colors): string[] {
  return [`      ${c.red("- expected")} ${flow(expected)}`, `      ${c.green("+ actual  ")} ${flow(actual)}`];
}

function header(outcome: Outcome, c: Colors): string[] {
  if (outcome.steps || outcome.calls) return [];
  const e = outcome.envelope;
  return [`  ${c.cyan(`[${e.trace_id}]`)} ${e.tool}`];
}

function timeline(events: readonly DispatchEvent[], c: Colors): string[] {
  const width = Math.max(3, ...events.map((e) => String(e.t).length)) + 2;
  const callWidth = Math.max(0, ...events.map((e) => e.call?.length ?? 0));
  return events.map((e) => {
    const [label, detail] = describe(e);
    const time = c.dim(`${e.t}ms`.padStart(width));
    const call = callWidth > 0 ? `  ${(e.call ?? "").padEnd(callWidth)}` : "";
    return `  ${time}${call}  ${label.padEnd(12)} ${detail}`;
  });
}

/** A label and a one-line description of an event. */
export function describe(e: DispatchEvent): [string, string] {
  switch (e.type) {
    case "attempt": {
      const status = e.status === "error" ? `error ${e.error_kind ?? "(no error object)"}${e.http_status === undefined ? "" : ` ${e.http_status}`}` : e.status === "needs_input" ? "needs input" : "ok";
      if (e.short_circuited) return [`attempt ${e.n}`, `${status}, not sent (short-circuited)`];
      const detail = e.latency_ms > 0 ? `${status} (${e.latency_ms}ms)` : status;
      return [`attempt ${e.n}`, e.hedge ? `${detail}, a hedge` : detail];
    }
    case "failure_classified":
      return ["verdict", `${e.verdict} -> ${e.action ?? "(no playbook action)"}`];
    case "retry_scheduled":
      return ["retry", `attempt ${e.attempt} in ${e.delay_ms}ms${e.hint ? ` with hint: ${e.hint}` : ""}`];
    case "retry_suppressed":
      return ["no retry", e.reason];
    case "budget_exhausted":
      return ["budget", `${e.budget} (${e.limit}) exhausted`];
    case "retry_quota_exhausted":
      return ["quota", `retry quota exhausted: the retry costs ${e.cost}, ${plural(e.tokens, "token")} left`];
    case "retry_after_unreadable":
      return ["retry-after", `${e.header}: ${JSON.stringify(e.value)} is neither a number nor an HTTP date; ignored`];
    case "evidence_refreshed":
      return ["refresh", e.evidence_refs.length > 0 ? `evidence ${e.evidence_refs.join(", ")} refreshed` : "evidence refreshed"];
    case "checkpoint_restored":
      return ["restore", "checkpoint restored"];
    case "reversal_issued":
      return ["reversal", `issued with token ${e.reversal_token}: ${e.reason}`];
    case "reversal_refused":
      return ["reversal", `refused: ${e.reason}`];
    case "escalated":
      return ["escalated", `to ${e.queue}${e.reason ? ` (${e.reason})` : ""}`];
    case "fallback_started":
      return ["fallback", `${e.from} -> ${e.tool}`];
    case "dead_lettered":
      return ["dead letter", `to ${e.queue}`];
    case "compensation_started":
      return ["compensate", `undo step ${e.step}`];
    case "compensation_failed":
      return ["compensate", `undo of ${e.step} ended ${e.kind}; dead letter to ${e.queue}`];
    case "credentials_refreshed":
      return ["refresh", "credentials refreshed"];
    case "breaker_opened":
      return ["breaker", `${breakerName(e)} opened: ${e.failures} of ${plural(e.attempts, "attempt")} failed; open for ${e.break_ms}ms`];
    case "breaker_half_open":
      return ["breaker", `${breakerName(e)} half-open: probing`];
    case "breaker_closed":
      return ["breaker", `${breakerName(e)} closed`];
    case "retry_budget_exhausted":
      return ["budget", `retry budget: ${e.retries_in_progress} retries in progress of ${e.limit} allowed at ${plural(e.calls_in_progress, "call")} in progress`];
    case "retry_throttled":
      return ["throttled", `retry throttled: ${e.tokens} tokens, retries need more than ${e.threshold}`];
    case "hedge_cancelled":
      return ["hedge", `attempt ${e.attempt} cancelled`];
    case "rate_limit_waited":
      return ["rate limit", `waited ${e.ms}ms for a token of ${e.limit}`];
    case "rate_limited":
      return ["rate limit", `${e.limit} is empty: not sent`];
    case "rate_limit_header_ignored":
      return ["rate limit", `${e.limit}: ${e.header}: ${JSON.stringify(e.value)} ignored`];
    case "dispatch_stopped":
      return ["stopped", `${e.reason === "deadline" ? "the deadline passed" : "the caller cancelled"}${e.in_flight ? " with an attempt in flight (side effect unknown)" : ""}`];
    case "fleet_store_unavailable":
      return ["fleet", `${e.instance}: no good sync with the store for ${e.since_ms} ms; on_store_down applies`];
    case "fleet_store_recovered":
      return ["fleet", `${e.instance}: the store answered again after ${e.down_ms} ms`];
  }
}

const breakerName = (e: { breaker: string; tool?: string }): string => (e.tool === undefined ? e.breaker : `${e.breaker} (${e.tool})`);

/** How a fixture ended, in one line: `=> deprecated  idempotency_conflict · 2 attempts · 1 retried · 235ms`. */
export function outcomeLine(o: Outcome, c: Colors): string {
  const parts = [o.verdict ?? "no failure", plural(o.attempts, "attempt"), `${o.retried} retried`, `${o.elapsed_ms}ms`];
  return `${c.bold("=>")} ${kindColor(o, c)}  ${c.dim(parts.join(" · "))}`;
}

function ending(o: Outcome, c: Colors): string[] {
  const lines = [`  ${outcomeLine(o, c)}`];
  const notes = [
    o.reason !== null ? `reason: ${o.reason}` : undefined,
    o.queue !== null ? `queue: ${o.queue}` : undefined,
    o.replan ? "replan" : undefined,
    o.exhausted && o.kind !== "exhausted" ? "exhausted" : undefined,
  ].filter((s): s is string => s !== undefined);
  if (notes.length > 0) lines.push(`     ${notes.join(" · ")}`);
  for (const s of [...(o.steps ?? []), ...(o.compensations ?? []), ...(o.calls ?? [])]) {
    lines.push(`     ${s.id}: ${s.kind}${s.verdict ? ` (${s.verdict})` : ""}`);
  }
  if (o.parallelism) lines.push(`     parallelism per wave: ${o.parallelism.join(", ")}`);
  return lines;
}

function kindColor(o: Outcome, c: Colors): string {
  switch (o.kind) {
    case "succeeded":
    case "recovered":
    case "compensated":
      return c.green.bold(o.kind);
    case "deprecated":
    case "needs_input":
    case "reversed":
      return c.yellow.bold(o.kind);
    case "escalated":
    case "exhausted":
    case "failed":
    case "dead_lettered":
      return c.red.bold(o.kind);
  }
}

function summaryLine(sim: ProjectSimulation, options: TextReportOptions): string {
  const { c } = options;
  const without = sim.results.filter((r) => r.passed === null).length;
  const text = `${plural(sim.results.length, "fixture")}: ${sim.passed} passed, ${sim.failed} failed, ${without} without expect`;
  if (sim.failed === 0) return c.green.bold(text);
  const mismatched = sim.results.some((r) => r.passed === false && !r.error);
  if (!mismatched) return c.red.bold(text);
  const hint = options.updateBlocked
    ? `--update wrote nothing because ${options.updateBlocked}; fix that, then run failbook simulate --update again`
    : suggestsUpdate(options)
      ? "if the new behaviour is intended, record it: failbook simulate --update"
      : "fix the project's lint errors (failbook lint), then compare the goldens again";
  return c.red.bold(text) + `\n${c.dim(hint)}`;
}

/** Whether the report may suggest `--update`: never when it wrote nothing, nor for a project lint rejects. */
const suggestsUpdate = (options: TextReportOptions): boolean => !options.updateBlocked && !options.lintErrors;

export function formatCoverageText(report: Coverage, c: Colors): string {
  const coverage = inertValue(report);
  const verdicts = coverage.verdicts.filter((v) => v.status !== "reserved");
  const hit = verdicts.filter((v) => v.fixtures.length > 0);
  const actions = coverage.actions.filter((a) => a.inPlaybook);
  const ran = actions.filter((a) => a.fixtures.length > 0);
  const lines = [c.bold(`coverage: ${hit.length} of ${verdicts.length} verdicts, ${ran.length} of ${actions.length} playbook actions`)];
  // One column for every name, as wide as the longest: a long code does not push its row out of line.
  const width = Math.max(0, ...verdicts.map((v) => v.code.length), ...actions.map((a) => a.action.length));
  const row = (name: string, fixtures: string[]) =>
    fixtures.length > 0 ? `  ${c.green("✓")} ${name.padEnd(width)}  ${c.dim(fixtureList(fixtures))}` : `  ${c.red("✗")} ${name.padEnd(width)}  ${c.red("no fixture exercises it")}`;
  lines.push("verdicts:", ...verdicts.map((v) => row(v.code, v.fixtures)));
  lines.push("actions:", ...actions.map((a) => row(a.action, a.fixtures)));
  const unused = coverage.actions.filter((a) => !a.inPlaybook).map((a) => a.action);
  if (unused.length > 0) lines.push(c.dim(`  not in the playbook: ${unused.join(", ")}`));
  const seen = coverage.outcomes.filter((o) => o.fixtures.length > 0).map((o) => o.kind);
  const unseen = coverage.outcomes.filter((o) => o.fixtures.length === 0).map((o) => o.kind);
  lines.push(`outcomes seen: ${seen.join(", ") || "none"}`, c.dim(`outcomes no fixture ends with: ${unseen.join(", ") || "none"}`));
  const vc = coverage.verdict_coverage;
  lines.push(`verdict coverage: ${vc.exercised} of ${vc.active} active verdicts (${vc.percent.toFixed(1)}%) exercised by a passing fixture${vc.untested.length > 0 ? c.dim(`; not: ${vc.untested.join(", ")}`) : ""}`);
  return lines.join("\n") + "\n";
}

/** At most three names, then how many more. */
function fixtureList(fixtures: readonly string[]): string {
  return fixtures.length <= 3 ? fixtures.join(", ") : `${fixtures.slice(0, 3).join(", ")} and ${fixtures.length - 3} more`;
}
