/**
 * Idempotency keys (SPEC 4): the same logical call gets the same key in every run, so an
 * upstream can deduplicate a retry. Keyed on the run, the call id, the tool and the
 * arguments in canonical JSON (RFC 8785).
 */
import { createHash } from "node:crypto";
import type { Call } from "../model/fixture.js";

/** The call's idempotency key: the fixture's own when it gives one, else a SHA-256. */
export function idempotencyKey(runId: string, call: Call): string {
  if (call.idempotency_key !== undefined) return call.idempotency_key;
  const text = `${runId}\n${call.id}\n${call.tool}\n${canonicalJson(call.args ?? {})}`;
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** The trace id shown to agents and humans: `fb_` and the key's first 12 hex digits. */
export function traceId(key: string): string {
  const hex = /^[0-9a-f]{12}/i.test(key) ? key.slice(0, 12).toLowerCase() : createHash("sha256").update(key, "utf8").digest("hex").slice(0, 12);
  return `fb_${hex}`;
}

/**
 * RFC 8785 canonical JSON: object keys sorted by UTF-16 code units, no insignificant
 * white space, numbers and strings serialised as ECMAScript does. `undefined` members are
 * dropped, as JSON does.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError("canonical JSON has no representation for NaN or Infinity");
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  throw new TypeError(`canonical JSON has no representation for a ${typeof value}`);
}
