/**
 * Identifiers derived from verdict codes (`net.timeout` -> `NetTimeoutDetails`,
 * `netTimeoutEnvelope`). Readable when that is unambiguous; when two codes would give the
 * same name (they differ only by separators or case, or the name is taken by a fixed export),
 * every one of them gets a suffix from a hash of its own code instead. So a name never
 * silently moves to another code: adding a colliding code renames the old one, which is
 * a compile error in the adapter, not a wrong envelope.
 */
import { sha256Hex } from "failbook-runtime/engine/idempotency.js";

export interface VerdictNames {
  /** PascalCase stem, e.g. `NetTimeout`. */
  stem: string;
  /** The details type, e.g. `NetTimeoutDetails`. */
  detailsType: string;
  /** The envelope constructor, e.g. `netTimeoutEnvelope`. */
  constructor: string;
}

/** Words that cannot name a binding (ES reserved words, strict-mode and TypeScript type names). */
const RESERVED = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false finally for function if import in " +
    "instanceof new null return super switch this throw true try typeof var void while with implements interface let package private " +
    "protected public static yield await arguments eval any boolean never number object string symbol undefined unknown bigint"
  ).split(" "),
);

/** Is `name` usable as a binding name in a strict-mode module? */
export function isSafeIdentifier(name: string): boolean {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) && !RESERVED.has(name);
}

/** The readable stem of a code: alphanumeric runs, each capitalised; never starts with a digit. */
export function readableStem(code: string): string {
  const words = code.split(/[^A-Za-z0-9]+/).filter((w) => w !== "");
  const stem = words.map((w) => w[0].toUpperCase() + w.slice(1)).join("");
  if (stem === "") return "Verdict";
  return /^[0-9]/.test(stem) ? `V${stem}` : stem;
}

const namesFor = (stem: string): VerdictNames => ({
  stem,
  detailsType: `${stem}Details`,
  constructor: `${stem[0].toLowerCase()}${stem.slice(1)}Envelope`,
});

const hashOf = sha256Hex;

/**
 * Names for every code, collision-free among themselves and against `taken` (the module's
 * fixed exports). Readable stems have no `_`; hashed stems do, so the two never meet.
 */
export function assignVerdictNames(codes: readonly string[], taken: ReadonlySet<string>): Map<string, VerdictNames> {
  return assignNames(codes, taken, {
    stem: readableStem,
    hashed: (code, hash) => `${readableStem(code)}_${hash}`,
    names: namesFor,
    bindings: (n) => [n.detailsType, n.constructor],
    safe: isSafeIdentifier,
  });
}

/** Names a module derives from one code, for one target language. */
interface Naming<N> {
  stem(code: string): string;
  /** A stem with a hash suffix, which no readable stem can equal. */
  hashed(code: string, hash: string): string;
  names(stem: string): N;
  bindings(names: N): string[];
  safe(name: string): boolean;
}

/**
 * Readable names where they are unambiguous; every code of a group that would share one (or
 * whose name is taken or unusable) gets a hash of its own code as a suffix instead.
 */
function assignNames<N>(codes: readonly string[], taken: ReadonlySet<string>, naming: Naming<N>): Map<string, N> {
  const byStem = new Map<string, string[]>();
  for (const code of codes) {
    const stem = naming.stem(code);
    const group = byStem.get(stem);
    if (group === undefined) byStem.set(stem, [code]);
    else group.push(code);
  }
  const clashes = (n: N) => naming.bindings(n).some((x) => taken.has(x) || !naming.safe(x));
  const out = new Map<string, N>();
  let hashed: string[] = [];
  for (const [stem, group] of byStem) {
    const names = naming.names(stem);
    if (group.length === 1 && !clashes(names)) out.set(group[0], names);
    else hashed.push(...group);
  }
  for (let length = 8; hashed.length > 0; length += 4) {
    const candidates = new Map(hashed.map((code) => [code, naming.hashed(code, hashOf(code).slice(0, length))]));
    const seen = new Map<string, number>();
    for (const stem of candidates.values()) seen.set(stem, (seen.get(stem) ?? 0) + 1);
    for (const [code, stem] of candidates) {
      const names = naming.names(stem);
      if (seen.get(stem) === 1 && !clashes(names)) out.set(code, names);
    }
    hashed = hashed.filter((code) => !out.has(code));
    if (length >= 64 && hashed.length > 0) throw new Error(`cannot derive a unique identifier for verdict codes ${hashed.join(", ")}`);
  }
  return out;
}

/** Python's keywords and soft keywords, and builtins a module should not shadow. */
const PYTHON_RESERVED = new Set(
  (
    "False None True and as assert async await break class continue def del elif else except finally for from global if import in is " +
    "lambda nonlocal not or pass raise return try while with yield match case type _ print object str int float bool dict list tuple set"
  ).split(" "),
);

/** Is `name` usable as a Python binding name (ASCII identifier, no keyword)? */
export function isSafePythonIdentifier(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !PYTHON_RESERVED.has(name);
}

/** The snake_case stem of a code: lower-cased alphanumeric runs joined by `_`; never starts with a digit. */
export function snakeStem(code: string): string {
  const words = code.split(/[^A-Za-z0-9]+/).filter((w) => w !== "").map((w) => w.toLowerCase());
  const stem = words.join("_");
  if (stem === "") return "verdict";
  return /^[0-9]/.test(stem) ? `v${stem}` : stem;
}

/** A verdict's names in a generated Python module: its envelope constructor. */
export interface PythonVerdictNames {
  constructor: string;
}

/**
 * Python names for every code, as for TypeScript: readable snake_case stems (single `_`
 * between words) where unambiguous, else the stem, `__` and a hash of the code.
 */
export function assignPythonNames(codes: readonly string[], taken: ReadonlySet<string>): Map<string, PythonVerdictNames> {
  return assignNames(codes, taken, {
    stem: snakeStem,
    hashed: (code, hash) => `${snakeStem(code)}__${hash}`,
    names: (stem) => ({ constructor: `${stem}_envelope` }),
    bindings: (n) => [n.constructor],
    safe: isSafePythonIdentifier,
  });
}
