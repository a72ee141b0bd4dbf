/**
 * The shape of a shard's JSON report, checked field by field before `replay merge` adds it up
 * (SPEC 21): a tampered or foreign report is one line that names the file and the field
 * (exit 2), never an internal error or a silently wrong total.
 */
import { UsageError } from "failbook-runtime/model/errors.js";
import { clip } from "../util/text.js";
import type { ReplayReport } from "./report.js";
import { MAX_SHARDS } from "./shard.js";

/** What a field must be, said as the message says it, and the test of it. */
interface Kind {
  what: string;
  holds(value: unknown): boolean;
}

const COUNT: Kind = { what: "a count (a whole number, 0 or more)", holds: (v) => Number.isSafeInteger(v) && (v as number) >= 0 };
const TEXT: Kind = { what: "a string", holds: (v) => typeof v === "string" };
const TEXT_OR_NULL: Kind = { what: "a string or null", holds: (v) => v === null || typeof v === "string" };
const PERCENT: Kind = { what: "a percentage from 0 to 100", holds: (v) => typeof v === "number" && v >= 0 && v <= 100 };
const LIST: Kind = { what: "a list", holds: Array.isArray };
const MAPPING: Kind = { what: "an object", holds: (v) => v !== null && typeof v === "object" && !Array.isArray(v) };

/** The report `value` read from `file`, when every field is of its kind; else a usage error naming the first field that is not. */
export function checkReportShape(value: unknown, file: string): ReplayReport {
  const must = (kind: Kind, field: string, v: unknown): void => {
    if (!kind.holds(v)) throw new UsageError(`${file}: ${field} must be ${kind.what}, not ${shown(v)}; give the reports of failbook replay --format json as it wrote them`);
  };
  if (!MAPPING.holds(value)) throw new UsageError(`${file} is not a replay report (an object with records, transitions, files...); give the reports of failbook replay --format json`);
  const r = value as Record<string, unknown>;
  for (const field of ["records", "invalid", "unknown", "changed", "unrecorded", "examples_per_transition"]) must(COUNT, field, r[field]);
  must(TEXT_OR_NULL, "against", r.against);
  must(LIST, "files", r.files);
  const files = r.files as unknown[];
  files.forEach((f, i) => must(TEXT, `files[${i}]`, f));
  const location: Kind = { what: "a location FILE:LINE of one of its files", holds: (v) => typeof v === "string" && isLocation(v, files as string[]) };

  must(MAPPING, "verdicts", r.verdicts);
  for (const [code, n] of Object.entries(r.verdicts as object)) must(COUNT, `verdicts.${code}`, n);
  must(LIST, "transitions", r.transitions);
  (r.transitions as unknown[]).forEach((t, i) => {
    const at = `transitions[${i}]`;
    must(MAPPING, at, t);
    const transition = t as Record<string, unknown>;
    must(TEXT, `${at}.from`, transition.from);
    must(TEXT, `${at}.to`, transition.to);
    must(TEXT_OR_NULL, `${at}.verdict`, transition.verdict);
    must(COUNT, `${at}.count`, transition.count);
    must(PERCENT, `${at}.percent`, transition.percent);
    must(LIST, `${at}.examples`, transition.examples);
    (transition.examples as unknown[]).forEach((e, k) => must(location, `${at}.examples[${k}]`, e));
  });
  must(LIST, "invalid_lines", r.invalid_lines);
  (r.invalid_lines as unknown[]).forEach((l, i) => {
    const at = `invalid_lines[${i}]`;
    must(MAPPING, at, l);
    must(location, `${at}.location`, (l as Record<string, unknown>).location);
    must(TEXT, `${at}.message`, (l as Record<string, unknown>).message);
  });
  if (r.shard !== undefined) {
    must(MAPPING, "shard", r.shard);
    const shard = r.shard as Record<string, unknown>;
    const count: Kind = { what: `a shard count from 1 to ${MAX_SHARDS}`, holds: (v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= MAX_SHARDS };
    must(count, "shard.count", shard.count);
    must({ what: `a shard from 1 to ${String(shard.count)}`, holds: (v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= (shard.count as number) }, "shard.index", shard.index);
  }
  return value as unknown as ReplayReport;
}

/** `FILE:LINE` with FILE one of the report's files and LINE a line number (1 or more). */
function isLocation(text: string, files: readonly string[]): boolean {
  const colon = text.lastIndexOf(":");
  const line = Number(text.slice(colon + 1));
  return colon > 0 && /^\d+$/.test(text.slice(colon + 1)) && Number.isSafeInteger(line) && line >= 1 && files.includes(text.slice(0, colon));
}

function shown(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  return clip(JSON.stringify(value), 40);
}
