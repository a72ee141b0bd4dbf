/** Findings: what lint reports, as data with a position (never thrown strings). */
import type { Severity } from "./config.js";

export type PathSegment = string | number;

export interface Position {
  file: string;
  line: number; // 1-based
  column: number; // 1-based
}

export interface Finding {
  rule: string;
  severity: Severity;
  message: string;
  file: string;
  line: number;
  column: number;
  /** JSON-pointer-like path of the node in its document, e.g. `/verdicts/3/match/0`. */
  path: string;
  fingerprint: string;
  /** A related position, e.g. where a shadowing rule or a removed code stood. */
  related?: { message: string; file: string; line: number; column: number }[];
  /** A fix a tool may apply for the user (an editor's quick fix); absent when lint knows none. */
  fix?: FindingFix;
}

/**
 * A fix as data, so that the prose of a message can change freely. `replace`: write this
 * text in place of the key or scalar the finding points at. `add`: add `key: value` to the
 * mapping at `path` (a JSON pointer; "" the document) of `file` (a path as findings show it),
 * or, without a key, `value` as the last item of the list at `path`.
 */
export type FindingFix = { title: string; replace: string } | { title: string; add: { file: string; path: string; key?: string; value: unknown } };

/** The fix that writes `text` in place of a mistyped word ("did you mean"). */
export const replaceFix = (text: string): FindingFix => ({ title: `Change to '${text}'`, replace: text });

export const SEVERITY_RANK: Record<Severity, number> = { error: 3, warning: 2, info: 1 };

export function pointer(path: readonly PathSegment[]): string {
  return path.length === 0 ? "" : "/" + path.map((s) => String(s).replace(/~/g, "~0").replace(/\//g, "~1")).join("/");
}
