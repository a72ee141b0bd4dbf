/**
 * An adapter error as failbook reads it (SPEC 2.2, 21). Adapters are other people's code: a
 * `message` may be null, a `kind` a number, `headers` a fetch `Headers`, a `Map` or a list
 * of pairs, a `cause` may point back at the error, and an SDK's error carries its request
 * (`url` with credentials, `config.accessKeyId`). Classification reads the error with its
 * headers made plain; what outputs and records keep is the error's schema shape only
 * (schemas/fixture.schema.json's `error`), every value of the wrong type left out, cycles cut
 * at the cause depth, then redacted.
 */
import type { AdapterError } from "../model/fixture.js";
import type { FieldValue, SideEffectState } from "../model/registry.js";
import { CAUSE_DEPTH, MAX_HINT_MS } from "./classifier.js";
import { redactDeep, type Redactor } from "./redact.js";

/**
 * The error a failed response carries, for classification: the error itself when its
 * headers are a plain object (almost always: no copy), else a copy with them made one.
 * Anything but an object is no error at all (null).
 */
export function adapterErrorOf(raw: unknown): AdapterError | null {
  if (raw === null || typeof raw !== "object") return null;
  return plainChain(raw as AdapterError, 0) ? (raw as AdapterError) : chainOf(raw as AdapterError, 0);
}

/** A cause chain whose headers are plain objects down to the depth the classifier reads (a cycle is read as that deep a chain). */
function plainChain(error: AdapterError, depth: number): boolean {
  for (let e: unknown = error; e !== null && typeof e === "object" && depth <= CAUSE_DEPTH; e = (e as { cause?: unknown }).cause, depth++) {
    const headers = (e as { headers?: unknown }).headers;
    if (headers !== undefined && !isPlainObject(headers)) return false;
  }
  return true;
}

function chainOf(error: AdapterError, depth: number): AdapterError {
  const out = { ...error };
  const headers = (error as { headers?: unknown }).headers;
  if (headers !== undefined && !isPlainObject(headers)) out.headers = plainHeadersOf(headers);
  const cause = (error as { cause?: unknown }).cause;
  if (cause !== null && typeof cause === "object" && depth < CAUSE_DEPTH) out.cause = chainOf(cause as AdapterError, depth + 1);
  else delete out.cause;
  return out;
}

/**
 * Headers in any shape an HTTP client gives them, as one plain object of strings: a fetch
 * `Headers` (or anything with `forEach(value, name)`), a `Map`, a list of pairs, an object.
 * A name given twice keeps its first value; values that are not strings are written as text
 * when they are numbers or BigInts, else left out.
 */
export function plainHeadersOf(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const add = (name: unknown, value: unknown) => {
    if (typeof name !== "string" || name === "__proto__" || Object.hasOwn(out, name)) return;
    const text = typeof value === "string" ? value : typeof value === "number" || typeof value === "bigint" ? String(value) : Array.isArray(value) ? value.filter((v) => typeof v === "string").join(", ") : undefined;
    if (text !== undefined) out[name] = text;
  };
  if (headers === null || typeof headers !== "object") return out;
  if (Array.isArray(headers)) {
    for (const pair of headers) if (Array.isArray(pair)) add(pair[0], pair[1]);
  } else if (headers instanceof Map) {
    for (const [name, value] of headers) add(name, value);
  } else if (!isPlainObject(headers) && typeof (headers as { forEach?: unknown }).forEach === "function") {
    try {
      (headers as { forEach(fn: (value: unknown, name: unknown) => void): void }).forEach((value, name) => add(name, value));
    } catch {
      // a hostile forEach: what it gave before throwing is kept
    }
  } else {
    for (const name of Object.keys(headers)) add(name, (headers as Record<string, unknown>)[name]);
  }
  return out;
}

const SIDE_EFFECT_STATES: readonly string[] = ["none", "unknown", "committed"];

/**
 * The error in its schema shape (what a fixture and a record may hold), not yet redacted:
 * `kind` always a string ("" when the adapter gave none), the other members only when of
 * their type, headers and fields plain, the cause chain cut at CAUSE_DEPTH (a cycle unrolled to it), and
 * nothing else: an SDK error's request, config and response stay out of every output.
 */
export function schemaError(error: AdapterError, depth = 0): AdapterError {
  const e = error as unknown as Record<string, unknown>;
  // A member of the wrong type is left out: the classifier reads it as absent too, so a record of it replays the same.
  const out: AdapterError = { kind: typeof e.kind === "string" ? e.kind : "" };
  if (typeof e.message === "string") out.message = e.message;
  const status = e.http_status;
  if (typeof status === "number" && Number.isInteger(status) && status >= 100 && status <= 999) out.http_status = status;
  if (typeof e.provider_code === "string") out.provider_code = e.provider_code;
  if (typeof e.side_effect_state === "string" && SIDE_EFFECT_STATES.includes(e.side_effect_state)) out.side_effect_state = e.side_effect_state as SideEffectState;
  const hint = e.retry_after_ms;
  if (typeof hint === "number" && Number.isFinite(hint)) out.retry_after_ms = Math.min(MAX_HINT_MS, Math.max(0, Math.floor(hint)));
  if (e.headers !== undefined && e.headers !== null && typeof e.headers === "object") out.headers = plainHeadersOf(e.headers);
  if (e.fields !== undefined && e.fields !== null && typeof e.fields === "object") out.fields = plainFieldsOf(e.fields as object);
  const cause = e.cause;
  // A cycle is unrolled to the depth the classifier reads: bounded, and a record of it replays the same.
  if (cause !== null && typeof cause === "object" && depth < CAUSE_DEPTH) out.cause = schemaError(cause as AdapterError, depth + 1);
  return out;
}

/** The error as outputs show it: its schema shape, every string redacted, a string under a secret-named header or field replaced whole. */
export function shownError(error: AdapterError, redact: Redactor): AdapterError {
  return redactDeep(schemaError(error), redact);
}

function plainFieldsOf(fields: object): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = {};
  for (const name of Object.keys(fields)) {
    const value = (fields as Record<string, unknown>)[name];
    if (name === "__proto__") continue;
    if (typeof value === "string" || typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value))) out[name] = value;
    else if (typeof value === "bigint") out[name] = value.toString();
  }
  return out;
}

/** A plain object (its prototype Object.prototype or none), not an array, a Map or a class instance. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
