/**
 * One adapter error's classification as data, the same for `failbook classify --format json`
 * and the MCP server's classify tool: the verdict, the rule that matched (at its position in
 * the registry) or the fallback, the verdict's facts and the playbook's action.
 */
import type { Loaded } from "../load/project.js";
import type { AdapterError } from "failbook-runtime/model/fixture.js";
import type { CompensationAction, Playbook } from "failbook-runtime/model/playbook.js";
import { sideEffectOf, type Registry, type SideEffectState, type Verdict } from "failbook-runtime/model/registry.js";
import { classify, verdictByCode, type Classification } from "failbook-runtime/engine/classify.js";
import { actionFor } from "failbook-runtime/engine/dispatch.js";

export interface ClassificationReport {
  verdict: string;
  fallback: boolean;
  /** The rule that matched: its index among the verdict's rules, and where it is written. */
  rule: { index: number; file: string; line: number; column: number } | null;
  class: string | null;
  retryable: boolean | null;
  side_effect: SideEffectState | null;
  summary: string | null;
  recovery: string | null;
  action: CompensationAction | null;
}

export interface Classified {
  result: Classification;
  verdict: Verdict | undefined;
  action: CompensationAction | null;
  report: ClassificationReport;
}

export function classificationReport(registry: Loaded<Registry>, playbook: Playbook, error: AdapterError | undefined, tool: string | undefined): Classified {
  const result = classify(registry.value, error, tool);
  const verdict = verdictByCode(registry.value, result.verdict);
  const action = actionFor(playbook, result.verdict) ?? null;
  const at = result.rule ? registry.doc.locate(["verdicts", result.rule.verdict, "match", result.rule.index]) : null;
  return {
    result,
    verdict,
    action,
    report: {
      verdict: result.verdict,
      fallback: result.fallback,
      rule: result.rule && at ? { index: result.rule.index, file: at.file, line: at.line, column: at.column } : null,
      class: verdict?.class ?? null,
      retryable: verdict?.retryable ?? null,
      side_effect: verdict ? sideEffectOf(verdict) : null,
      summary: verdict?.summary ?? null,
      recovery: verdict?.recovery ?? null,
      action,
    },
  };
}
