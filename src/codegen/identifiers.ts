/**
 * Identifiers derived from verdict codes (`net.timeout` -> `NetTimeoutDetails`,
 * `netTimeoutEnvelope`). Readable when that is unambiguous; when two codes would give the
 * same name (they differ only by separators or case, or the name is taken by a fixed export),
 * every one of them gets a suffix from a hash of its own code instead. So a name never
 * silently moves to another code: adding a colliding code renames the old one, which is
 * a compile error in the adapter, not a wrong envelope.
 */
import { sha256Hex } from "../engine/idempotency.js";

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
  const byStem = new Map<string, string[]>();
  for (const code of codes) {
    const stem = readableStem(code);
    const group = byStem.get(stem);
    if (group === undefined) byStem.set(stem, [code]);
    else group.push(code);
  }
  const unusable = (x: string) => taken.has(x) || !isSafeIdentifier(x);
  const clashes = (n: VerdictNames) => unusable(n.detailsType) || unusable(n.constructor);
  const out = new Map<string, VerdictNames>();
  let hashed: string[] = [];
  for (const [stem, group] of byStem) {
    const names = namesFor(stem);
    if (group.length === 1 && !clashes(names)) out.set(group[0], names);
    else hashed.push(...group);
  }
  for (let length = 8; hashed.length > 0; length += 4) {
    const candidates = new Map(hashed.map((code) => [code, namesFor(`${readableStem(code)}_${hashOf(code).slice(0, length)}`)]));
    const seen = new Map<string, number>();
    for (const n of candidates.values()) seen.set(n.stem, (seen.get(n.stem) ?? 0) + 1);
    for (const [code, n] of candidates) if (seen.get(n.stem) === 1 && !clashes(n)) out.set(code, n);
    hashed = hashed.filter((code) => !out.has(code));
    if (length >= 64 && hashed.length > 0) throw new Error(`cannot derive a unique identifier for verdict codes ${hashed.join(", ")}`);
  }
  return out;
}
