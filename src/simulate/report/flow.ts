/** Values in YAML flow style, for one-line display: `{ t: 0, type: attempt, n: 1 }`. */
import { inertJson } from "failbook-runtime/util/inert.js";

const PLAIN = /^[A-Za-z_][\w./-]*(?: [\w./-]+)*$/;
const KEYWORDS = new Set(["true", "false", "null", "yes", "no", "on", "off", "~"]);

/** A plain word stays bare; anything else is quoted and escaped, so no value breaks the line or drives a terminal. */
const scalar = (text: string): string => (PLAIN.test(text) && !KEYWORDS.has(text.toLowerCase()) ? text : inertJson(text));

export function flow(value: unknown): string {
  if (value === undefined) return "(nothing)";
  if (value === null) return "null";
  if (typeof value === "string") return scalar(value);
  if (typeof value !== "object") return String(value);
  if (Array.isArray(value)) return value.length === 0 ? "[]" : `[ ${value.map(flow).join(", ")} ]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return entries.length === 0 ? "{}" : `{ ${entries.map(([k, v]) => `${scalar(k)}: ${flow(v)}`).join(", ")} }`;
}
