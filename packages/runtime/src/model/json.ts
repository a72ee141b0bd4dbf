/** JSON-like values (documents, outcomes, events): the one walk over every string inside one. */

/**
 * `value` with every string inside it replaced by `map(text, key)` (`key` is the object key
 * the string sits under, if any). Plain objects and arrays are walked; anything else is kept
 * as is. Nothing is copied unless a string changed, and then only the path to it: a value
 * that needs no change comes back as the very same value.
 */
export function mapStrings<T>(value: T, map: (text: string, key: string | undefined) => string, key?: string): T {
  if (typeof value === "string") return map(value, key) as T;
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v = mapStrings(value[i], map);
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
