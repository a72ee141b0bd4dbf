/**
 * The shape a JSON value read back from a file must have (a shard's report, before a merge):
 * small checkers that compose, and the first field that does not fit, named by its path
 * (`storms[0].current.summary.verdict`), so a tampered or foreign file is one clear line and
 * never a TypeError deep in a printer. Extra fields are allowed: a shape says what is read.
 */

/** What a field holds instead of what its shape wants. */
export interface ShapeMismatch {
  /** The field's path from the root: `storms[0].file`; empty for the root itself. */
  field: string;
  /** What the shape wants: "a number", "one of stable, recovered". */
  expected: string;
  /** What the field holds: "null", "a string", "missing". */
  found: string;
}

/** Checks a value at a path; returns the first mismatch, or undefined when it fits. */
export type Shape = (value: unknown, field: string) => ShapeMismatch | undefined;

const kind = (expected: string, fits: (value: unknown) => boolean): Shape => (value, field) => (fits(value) ? undefined : { field, expected, found: describe(value) });

export const number: Shape = kind("a number", (v) => typeof v === "number" && Number.isFinite(v));
export const integer: Shape = kind("an integer", (v) => Number.isSafeInteger(v));
export const string: Shape = kind("a string", (v) => typeof v === "string");
export const boolean: Shape = kind("true or false", (v) => typeof v === "boolean");

/** One of these strings or numbers. */
export const oneOf = (...values: readonly (string | number)[]): Shape => kind(`one of ${values.join(", ")}`, (v) => values.includes(v as string | number));

/** The shape, or null. */
export const nullable =
  (shape: Shape): Shape =>
  (value, field) =>
    value === null ? undefined : shape(value, field);

/** Any of these shapes (the first's expectation is named when none fits). */
export const either =
  (...shapes: readonly Shape[]): Shape =>
  (value, field) => {
    const misses = shapes.map((s) => s(value, field));
    return misses.some((m) => m === undefined) ? undefined : { field, expected: misses.map((m) => m!.expected).join(" or "), found: describe(value) };
  };

/** A list whose every item has the shape. */
export const listOf =
  (item: Shape): Shape =>
  (value, field) => {
    if (!Array.isArray(value)) return { field, expected: "a list", found: describe(value) };
    for (let i = 0; i < value.length; i++) {
      const miss = item(value[i], `${field}[${i}]`);
      if (miss !== undefined) return miss;
    }
    return undefined;
  };

/** A mapping whose every value has the shape (keys are free). */
export const mapOf =
  (item: Shape): Shape =>
  (value, field) => {
    if (!isMapping(value)) return { field, expected: "a mapping", found: describe(value) };
    for (const key of Object.keys(value)) {
      const miss = item(value[key], join(field, key));
      if (miss !== undefined) return miss;
    }
    return undefined;
  };

/** A mapping with these fields (each required unless `optional` names it); other fields are allowed. */
export const object =
  (fields: Readonly<Record<string, Shape>>, optional: Readonly<Record<string, Shape>> = {}): Shape =>
  (value, field) => {
    if (!isMapping(value)) return { field, expected: "a mapping", found: describe(value) };
    for (const key of Object.keys(fields)) {
      const path = join(field, key);
      if (!Object.hasOwn(value, key)) return { field: path, expected: expectation(fields[key]), found: "missing" };
      const miss = fields[key](value[key], path);
      if (miss !== undefined) return miss;
    }
    for (const key of Object.keys(optional)) {
      if (value[key] === undefined) continue;
      const miss = optional[key](value[key], join(field, key));
      if (miss !== undefined) return miss;
    }
    return undefined;
  };

/** The first field of `value` that does not fit `shape`, or undefined. */
export const mismatchOf = (value: unknown, shape: Shape): ShapeMismatch | undefined => shape(value, "");

/** The mismatch as a phrase: "storms[0].file must be a string, not null". */
export const mismatchText = (m: ShapeMismatch): string => `${m.field === "" ? "the file" : m.field} must be ${m.expected}, not ${m.found}`;

/** A value as a message names it. */
export function describe(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") return "a string";
  if (typeof value === "number") return Number.isFinite(value) ? (Number.isInteger(value) ? `the number ${value}` : "a fraction") : "not a finite number";
  return typeof value === "boolean" ? String(value) : typeof value;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

const join = (field: string, key: string): string => (field === "" ? key : /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${field}.${key}` : `${field}[${JSON.stringify(key)}]`);

/** What a shape wants, asked of a value that fits no shape. */
const expectation = (shape: Shape): string => shape(Symbol("missing"), "")?.expected ?? "a value";
