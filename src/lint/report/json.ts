/** JSON output of `lint` (SPEC section 6). */
import type { Finding } from "failbook-runtime/model/finding.js";
import { countBySeverity } from "../lint.js";
import { inertJson } from "failbook-runtime/util/inert.js";

export interface BaselineSummary {
  suppressed: number;
  stale: { fingerprint: string; rule: string; file: string; message: string }[];
}

export function formatJson(findings: Finding[], baseline?: BaselineSummary): string {
  const { errors, warnings, infos } = countBySeverity(findings);
  const out = {
    findings: findings.map((f) => ({
      rule: f.rule,
      severity: f.severity,
      message: f.message,
      file: f.file,
      line: f.line,
      column: f.column,
      path: f.path,
      fingerprint: f.fingerprint,
      ...(f.related ? { related: f.related } : {}),
    })),
    errors,
    warnings,
    infos,
    ...(baseline ? { baseline } : {}),
  };
  return inertJson(out, 2) + "\n";
}
