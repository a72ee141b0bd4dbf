/**
 * What a generated file was made from, written as its last line: a short hash per verdict
 * and per top-level setting. `gen ts --check` compares it with the current inputs to say
 * which verdicts were added, removed or changed, not just "the file differs".
 */
import { canonicalJson as canonical, sha256Hex } from "../engine/idempotency.js";
import type { Playbook } from "../model/playbook.js";
import type { Registry } from "../model/registry.js";

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

/** JSON with object keys sorted by code point and no insignificant whitespace (what YAML parsed: `.inf` is null). */
export const canonicalJson = (value: unknown, cache?: Map<object, string>): string => canonical(value, true, cache);

export const sha256 = sha256Hex;

/**
 * The hash of everything the module is generated from. Give it the cache `manifestOf` used
 * and each verdict is serialised once for both.
 */
export function inputsHash(registry: Registry, playbook: Playbook, cache?: Map<object, string>): string {
  return sha256(canonicalJson({ registry, playbook }, cache));
}

export function manifestOf(registry: Registry, playbook: Playbook, cache?: Map<object, string>): Manifest {
  const short = (value: unknown) => sha256(canonicalJson(value, cache)).slice(0, 12);
  const verdicts: Record<string, string> = {};
  for (const v of registry.verdicts) verdicts[v.code] = short({ verdict: v, action: Object.hasOwn(playbook.verdicts, v.code) ? playbook.verdicts[v.code] : null });
  const registryKeys: Record<string, string> = { "verdicts.order": short(registry.verdicts.map((v) => v.code)) };
  for (const [key, value] of Object.entries(registry)) if (key !== "verdicts") registryKeys[key] = short(value);
  const playbookKeys: Record<string, string> = {};
  for (const [key, value] of Object.entries(playbook)) if (key !== "verdicts") playbookKeys[key] = short(value);
  return { verdicts: sorted(verdicts), registry: sorted(registryKeys), playbook: sorted(playbookKeys) };
}

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
