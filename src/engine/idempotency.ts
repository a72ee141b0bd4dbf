/**
 * Idempotency keys (SPEC 4): the same logical call gets the same key in every run, so an
 * upstream can deduplicate a retry. Keyed on the run, the call id, the tool and the
 * arguments in canonical JSON (RFC 8785).
 */
import * as crypto from "node:crypto";
import type { Call } from "../model/fixture.js";

/** Hex SHA-256, with Node's one-shot hash (20.12+, about twice as fast) where it has one. */
const sha256Hex: (text: string) => string =
  typeof crypto.hash === "function" ? (text) => crypto.hash("sha256", text, "hex") : (text) => crypto.createHash("sha256").update(text, "utf8").digest("hex");

/** The call's idempotency key: the fixture's own when it gives one, else a SHA-256. */
export function idempotencyKey(runId: string, call: Call): string {
  if (call.idempotency_key !== undefined) return call.idempotency_key;
  const text = `${runId}\n${call.id}\n${call.tool}\n${canonicalJson(call.args ?? {})}`;
  return sha256Hex(text);
}

/**
 * The trace id shown to agents and humans: `fb_` and the key's first 12 hex digits. A key
 * the caller chose that does not start with 12 hex digits gets 12 of a 53-bit hash of it
 * instead: a trace id correlates, it guards nothing, so it need not cost a SHA-256 a call.
 */
export function traceId(key: string): string {
  if (key.length >= 12 && /^[0-9a-f]{12}/i.test(key)) return `fb_${key.slice(0, 12).toLowerCase()}`;
  return `fb_${hash48Hex(key)}`;
}

const HEX = "0123456789abcdef";

/** 48 bits of cyrb53 (a fast, well-mixed string hash; public domain, bryc) as 12 hex digits. */
function hash48Hex(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  // Number#toString(16) is slow: write the nibbles out, 16 bits of h2 then 32 of h1.
  let out = "";
  for (let shift = 12; shift >= 0; shift -= 4) out += HEX[(h2 >>> shift) & 15];
  for (let shift = 28; shift >= 0; shift -= 4) out += HEX[(h1 >>> shift) & 15];
  return out;
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
