/**
 * What a generated file was made from, written as its last line: a short hash per verdict
 * and per top-level setting. `gen ts --check` compares it with the current inputs to say
 * which verdicts were added, removed or changed, not just "the file differs".
 */
import { sha256Hex } from "failbook-runtime/engine/idempotency.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import type { Registry } from "failbook-runtime/model/registry.js";
import { Cyrb53 } from "failbook-runtime/util/hash.js";

export interface Manifest {
  /** Verdict code -> hash of its registry entry and its playbook action. */
  verdicts: Record<string, string>;
  /** Registry key other than `verdicts` (plus `verdicts.order`, the classify order) -> hash. */
  registry: Record<string, string>;
  /** Playbook key other than `verdicts` -> hash. */
  playbook: Record<string, string>;
}

export interface Staleness {
  added: string[];
  removed: string[];
  changed: string[];
  /** Settings outside the verdicts that changed, e.g. `registry.fallback`, `playbook.budgets`. */
  settings: string[];
}

/** The manifest line's lead, after the language's line-comment token. */
const MARKER = " failbook-manifest: ";

/**
 * The hash of everything the module is generated from: of its manifest, which has a hash of
 * every verdict and every setting.
 */
export function inputsHash(manifest: Manifest): string {
  return sha256Hex(JSON.stringify(manifest));
}

/** Each verdict's and setting's hash, as parsed: equal for inputs whose canonical JSON is equal. */
export function manifestOf(registry: Registry, playbook: Playbook): Manifest {
  const short = (value: unknown) => contentHash(new Cyrb53(), value).hex48();
  const verdicts: Record<string, string> = {};
  for (const v of registry.verdicts) verdicts[v.code] = short({ verdict: v, action: Object.hasOwn(playbook.verdicts, v.code) ? playbook.verdicts[v.code] : null });
  const registryKeys: Record<string, string> = { "verdicts.order": short(registry.verdicts.map((v) => v.code)) };
  for (const [key, value] of Object.entries(registry)) if (key !== "verdicts") registryKeys[key] = short(value);
  const playbookKeys: Record<string, string> = {};
  for (const [key, value] of Object.entries(playbook)) if (key !== "verdicts") playbookKeys[key] = short(value);
  return { verdicts: sorted(verdicts), registry: sorted(registryKeys), playbook: sorted(playbookKeys) };
}

/**
 * A value fed to the hash as its canonical JSON (RFC 8785) would read, without writing the
 * text: object keys sorted by UTF-16 code units, `undefined` members dropped, what JSON
 * cannot hold (`.inf`, say) as null. Each piece is tagged and strings carry their length,
 * so two values feed the same sequence only if their canonical JSON is the same.
 */
function contentHash(h: Cyrb53, value: unknown): Cyrb53 {
  if (typeof value === "string") return h.code(TAG_STRING).string(value);
  if (typeof value === "number" && Number.isFinite(value)) {
    // -0 and 0 are both "0" in JSON; an integer in 32 bits is one piece, any other number its text.
    return value === (value | 0) ? h.code(TAG_INT).code(value) : h.code(TAG_NUMBER).string(String(value));
  }
  if (typeof value === "boolean") return h.code(value ? TAG_TRUE : TAG_FALSE);
  if (value === null || typeof value !== "object") return h.code(TAG_NULL);
  if (Array.isArray(value)) {
    h.code(TAG_ARRAY).code(value.length);
    for (const item of value) contentHash(h, item);
    return h;
  }
  const record = value as Record<string, unknown>;
  // sort() without a comparator orders strings by UTF-16 code units, as RFC 8785 asks.
  const keys = Object.keys(record).sort();
  h.code(TAG_OBJECT);
  for (const key of keys) if (record[key] !== undefined) contentHash(h.string(key), record[key]);
  return h.code(TAG_END);
}

const [TAG_STRING, TAG_INT, TAG_NUMBER, TAG_TRUE, TAG_FALSE, TAG_NULL, TAG_ARRAY, TAG_OBJECT, TAG_END] = [1, 2, 3, 4, 5, 6, 7, 8, 9];

function sorted(record: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(record).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) out[key] = record[key];
  return out;
}

/**
 * The manifest as one line comment (`comment`: the language's token, `//` or `#`); U+2028/U+2029
 * and `<` escaped so the line stays one comment line.
 */
export function manifestLine(manifest: Manifest, comment = "//"): string {
  return comment + MARKER + JSON.stringify(manifest).replace(/[\u2028\u2029<]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The manifest of a generated file, or undefined when it has none (not generated, or edited). */
export function readManifest(text: string, comment = "//"): Manifest | undefined {
  const marker = comment + MARKER;
  const at = text.lastIndexOf(`\n${marker}`);
  if (at < 0) return undefined;
  const line = text.slice(at + 1 + marker.length).split("\n")[0];
  try {
    const parsed = JSON.parse(line) as Manifest;
    const isRecord = (r: unknown) => r !== null && typeof r === "object" && !Array.isArray(r);
    return isRecord(parsed) && isRecord(parsed.verdicts) && isRecord(parsed.registry) && isRecord(parsed.playbook) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** What changed between the manifest a file was generated from and the current one. */
export function compareManifests(before: Manifest, after: Manifest): Staleness {
  const diffKeys = (a: Record<string, string>, b: Record<string, string>) => ({
    added: Object.keys(b).filter((k) => !Object.hasOwn(a, k)),
    removed: Object.keys(a).filter((k) => !Object.hasOwn(b, k)),
    changed: Object.keys(b).filter((k) => Object.hasOwn(a, k) && a[k] !== b[k]),
  });
  const verdicts = diffKeys(before.verdicts, after.verdicts);
  // Adding or removing a verdict changes the order too; say so only for a pure reorder.
  const implied = verdicts.added.length + verdicts.removed.length > 0 ? ["verdicts.order"] : [];
  const settings = (doc: "registry" | "playbook") => {
    const d = diffKeys(before[doc], after[doc]);
    return [...d.added, ...d.removed, ...d.changed].filter((k) => doc !== "registry" || !implied.includes(k)).map((k) => `${doc}.${k}`);
  };
  const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return {
    added: verdicts.added.sort(byText),
    removed: verdicts.removed.sort(byText),
    changed: verdicts.changed.sort(byText),
    settings: [...settings("registry"), ...settings("playbook")].sort(byText),
  };
}
