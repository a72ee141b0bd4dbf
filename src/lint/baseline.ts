/**
 * Lint baselines: record today's findings once (`--write-baseline`), then report only
 * what is new (`--baseline`), and name recorded findings that no longer occur.
 */
import { UsageError } from "failbook-runtime/model/errors.js";
import type { Finding } from "failbook-runtime/model/finding.js";
import { inertJson } from "failbook-runtime/util/inert.js";
import type { BaselineSummary } from "./report/json.js";
import { FileRefused, readTextFile } from "../util/fs.js";

export interface BaselineEntry {
  fingerprint: string;
  rule: string;
  file: string;
  message: string;
}

export interface BaselineFile {
  failbook_baseline: 1;
  findings: BaselineEntry[];
}

/** Findings a baseline never records nor hides: a project that does not parse or validate is not a debt to carry. */
const NEVER_BASELINED: ReadonlySet<string> = new Set(["yaml-syntax", "schema"]);

/** Can a baseline hide this finding? */
export const baselinable = (f: Pick<Finding, "rule">): boolean => !NEVER_BASELINED.has(f.rule);

/** The baseline file of these findings; `refused` counts the ones it cannot hold (yaml-syntax, schema). */
export function serializeBaseline(findings: Finding[]): { text: string; recorded: number; refused: number } {
  const kept = findings.filter(baselinable);
  const entries = kept
    .map(({ fingerprint, rule, file, message }) => ({ fingerprint, rule, file, message }))
    .sort((a, b) => (a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0));
  const file: BaselineFile = { failbook_baseline: 1, findings: entries };
  return { text: inertJson(file, 2) + "\n", recorded: kept.length, refused: findings.length - kept.length };
}

/** Read a baseline; `shown` is the path as the user gave it, for messages. */
export function readBaseline(path: string, shown = path): BaselineEntry[] {
  let text: string;
  try {
    text = readTextFile(path, { shown });
  } catch (e) {
    if (e instanceof FileRefused && e.reason !== "missing") throw e;
    throw new UsageError(`baseline file not found: ${shown} (create it with --write-baseline ${shown})`);
  }
  try {
    const parsed = JSON.parse(text) as Partial<BaselineFile>;
    if (parsed.failbook_baseline !== 1 || !Array.isArray(parsed.findings)) throw new Error("not a failbook baseline");
    return parsed.findings;
  } catch (e) {
    throw new UsageError(`${shown} is not a failbook baseline file (${(e as Error).message}); write one with --write-baseline`);
  }
}

/** Findings not in the baseline, and baseline entries that no longer occur. */
export function applyBaseline(findings: Finding[], baseline: BaselineEntry[]): { findings: Finding[]; summary: BaselineSummary } {
  const known = new Set(baseline.map((b) => b.fingerprint));
  const current = new Set(findings.map((f) => f.fingerprint));
  const fresh = findings.filter((f) => !baselinable(f) || !known.has(f.fingerprint));
  return {
    findings: fresh,
    summary: { suppressed: findings.length - fresh.length, stale: baseline.filter((b) => !current.has(b.fingerprint)) },
  };
}
