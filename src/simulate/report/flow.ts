/** Values in YAML flow style, for one-line display: `{ t: 0, type: attempt, n: 1 }`. */

const PLAIN = /^[A-Za-z_][\w./-]*(?: [\w./-]+)*$/;
const KEYWORDS = new Set(["true", "false", "null", "yes", "no", "on", "off", "~"]);

export function flow(value: unknown): string {
  if (value === undefined) return "(nothing)";
  if (value === null) return "null";
  if (typeof value === "string") return PLAIN.test(value) && !KEYWORDS.has(value.toLowerCase()) ? value : JSON.stringify(value);
  if (typeof value !== "object") return String(value);
  if (Array.isArray(value)) return value.length === 0 ? "[]" : `[ ${value.map(flow).join(", ")} ]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return entries.length === 0 ? "{}" : `{ ${entries.map(([k, v]) => `${k}: ${flow(v)}`).join(", ")} }`;
}
