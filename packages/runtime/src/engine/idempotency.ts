/**
 * Idempotency keys (SPEC 4): the same logical call gets the same key in every run, so an
 * upstream can deduplicate a retry. Keyed on the run, the call id, the tool and the
 * arguments in canonical JSON (RFC 8785).
 */
import type { Call } from "../model/fixture.js";
import { nodeCrypto } from "../util/builtin.js";
import { taggedHex48 } from "../util/hash.js";

let hashHex: ((text: string) => string) | undefined;

/** Hex SHA-256, with Node's one-shot hash (20.12+, about twice as fast) where it has one; crypto is loaded by the first hash (util/builtin.ts). */
export function sha256Hex(text: string): string {
  if (hashHex === undefined) {
    const crypto = nodeCrypto();
    hashHex = typeof crypto.hash === "function" ? (t) => crypto.hash("sha256", t, "hex") : (t) => crypto.createHash("sha256").update(t, "utf8").digest("hex");
  }
  return hashHex(text);
}

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
  switch (hexPrefix(key)) {
    case "lower":
      return `fb_${key.slice(0, 12)}`;
    case "mixed":
      return `fb_${key.slice(0, 12).toLowerCase()}`;
    default:
      return taggedHex48("fb_", key);
  }
}

/** Whether `key` starts with 12 hex digits, and in which case (a derived key's are lower case): the test of every dispatch, without a regular expression. */
function hexPrefix(key: string): "lower" | "mixed" | undefined {
  if (key.length < 12) return undefined;
  let lower = true;
  for (let i = 0; i < 12; i++) {
    const c = key.charCodeAt(i);
    if ((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66)) continue;
    if (c >= 0x41 && c <= 0x46) lower = false;
    else return undefined;
  }
  return lower ? "lower" : "mixed";
}

/**
 * RFC 8785 canonical JSON: object keys sorted by UTF-16 code units, no insignificant
 * white space, numbers and strings serialised as ECMAScript does. `undefined` members are
 * dropped, as JSON does. NaN and Infinity have no representation: they throw.
 */
export function canonicalJson(value: unknown): string {
  if (typeof value === "string") return quote(value);
  if (value === null || typeof value === "boolean") return JSON.stringify(value);
  if (typeof value === "number") {
    if (Number.isFinite(value)) return JSON.stringify(value);
    throw new TypeError("canonical JSON has no representation for NaN or Infinity");
  }
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += (i > 0 ? "," : "") + (value[i] === undefined ? "null" : canonicalJson(value[i]));
    return out + "]";
  }
  if (typeof value === "object") {
    const record = value as Record<string, unknown>;
    // sort() without a comparator orders strings by UTF-16 code units, as RFC 8785 asks.
    const keys = Object.keys(record);
    if (keys.length > 1) keys.sort();
    let out = "{";
    let first = true;
    for (const key of keys) {
      const v = record[key];
      if (v === undefined) continue;
      out += (first ? "" : ",") + quote(key) + ":" + canonicalJson(v);
      first = false;
    }
    return out + "}";
  }
  throw new TypeError(`canonical JSON has no representation for a ${typeof value}`);
}

/** A JSON string literal; plain text (no quote, backslash, control or surrogate) skips JSON.stringify. */
function quote(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(text);
  }
  return `"${text}"`;
}
