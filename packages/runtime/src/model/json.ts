/** JSON-like values (documents, outcomes, events): the one walk over every string inside one. */

/**
 * `value` with every string inside it replaced by `map(text, key)` (`key` is the object key
 * the string sits under, or the array's key for an array's items, if any). Plain objects and arrays are walked; anything else is kept
 * as is. Nothing is copied unless a string changed, and then only the path to it: a value
 * that needs no change comes back as the very same value.
 */
export function mapStrings<T>(value: T, map: (text: string, key: string | undefined) => string, key?: string): T {
  if (typeof value === "string") return map(value, key) as T;
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v = mapStrings(value[i], map, key);
      if (v !== value[i]) (out ??= value.slice())[i] = v;
    }
    return (out ?? value) as T;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const source = value as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const k in source) {
    if (!Object.hasOwn(source, k)) continue;
    const was = source[k];
    const v = mapStrings(was, map, k);
    if (v === was) continue;
    out ??= copy(source);
    setOwn(out, k, v);
  }
  return (out ?? value) as T;
}

function copy(source: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(source)) setOwn(out, k, source[k]);
  return out;
}

/** Assignment, except that a "__proto__" key (YAML allows it) stays an own key instead of setting the prototype. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** How deep `jsonSafe` walks; below this a value is `[Truncated]`. */
export const JSON_SAFE_DEPTH = 16;
/** How many items and keys `jsonSafe` keeps of one array or object. */
export const JSON_SAFE_WIDTH = 1000;

/**
 * Any value from outside (an adapter's error, a caller's arguments) as plain JSON data that
 * `JSON.stringify` always writes: a cycle becomes `[Circular]`, a BigInt its digits, a Date
 * its ISO text, a class instance its own enumerable properties, what JSON has no form for
 * (functions, symbols, undefined) is left out, and depth and width are bounded
 * (`[Truncated]`). Plain data comes back as the very same value.
 */
export function jsonSafe(value: unknown, depth = 0, seen?: unknown[]): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : null;
    case "bigint":
      return value.toString();
    case "object":
      break;
    default:
      return undefined;
  }
  if (value === null) return null;
  if (seen?.includes(value)) return "[Circular]";
  if (depth >= JSON_SAFE_DEPTH) return "[Truncated]";
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  const path = seen === undefined ? [value] : [...seen, value];
  let changed = false;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (let i = 0; i < value.length && i < JSON_SAFE_WIDTH; i++) {
      const v = jsonSafe(value[i], depth + 1, path);
      out.push(v === undefined ? null : v);
      if (v !== value[i]) changed = true;
    }
    return changed || value.length > JSON_SAFE_WIDTH ? out : value;
  }
  const proto = Object.getPrototypeOf(value);
  const out: Record<string, unknown> = {};
  let kept = 0;
  for (const k of Object.keys(value)) {
    if (kept++ >= JSON_SAFE_WIDTH) {
      changed = true;
      break;
    }
    let was: unknown;
    try {
      was = (value as Record<string, unknown>)[k];
    } catch {
      changed = true; // a getter that throws
      continue;
    }
    const v = jsonSafe(was, depth + 1, path);
    if (v !== was) changed = true;
    if (v !== undefined) setOwn(out, k, v);
  }
  return changed || (proto !== Object.prototype && proto !== null) ? out : value;
}
