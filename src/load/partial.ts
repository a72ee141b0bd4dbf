/**
 * What lint's rules check of a registry or playbook that failed its schema (SPEC 21): the
 * entries that passed. A schema error in one entry (a breaker, a verdict, a playbook action)
 * must not hide the semantic findings of the others, so the rules run on the document without
 * the entries that failed; the project itself keeps no registry or playbook (nothing else runs
 * on a document that failed its schema).
 *
 * An entry is an item of a list or map the rules read one by one: a registry verdict, a
 * playbook action, a circuit breaker, a tool, or a playbook setting (`hedging`, `budgets`...). A
 * verdict's code ties its registry verdict to its playbook action, so leaving out one leaves
 * out both (else playbook-exhaustive would report the one left). A problem anywhere else (a
 * class, the fallback, the document's own keys) leaves nothing to check, as before.
 */
import type { PathSegment } from "failbook-runtime/model/finding.js";
import type { YamlDocument } from "./yaml.js";

export type PartialKind = "registry" | "playbook";

/** The entries a schema problem at each of `paths` takes out; undefined when one is not in an entry. */
export interface Failed {
  /** Paths of the entries left out (`["circuit_breakers", "payments"]`, `["tools", "legacy.*"]`, `["hedging"]`). */
  entries: PathSegment[][];
  /** Codes whose verdict or action failed: left out of both documents. */
  codes: Set<string>;
}

/** Playbook settings whose absence a rule reports (unknown-side-effect-silent, playbook-exhaustive): never left out. */
const KEPT_PLAYBOOK = new Set(["apiVersion", "kind", "name", "verdicts", "escalation_queue", "on_unknown_side_effect"]);
/** Registry keys the rules read as a whole (classes, error fields, the fallback): a problem there leaves nothing to check. */
const KEPT_REGISTRY = new Set(["apiVersion", "kind", "name", "verdicts", "classes", "fallback", "error_fields"]);

export function failedEntries(kind: PartialKind, value: Record<string, unknown>, paths: readonly (readonly PathSegment[])[]): Failed | undefined {
  const entries: PathSegment[][] = [];
  const codes = new Set<string>();
  for (const path of paths) {
    const [top, item] = path;
    if (typeof top !== "string") return undefined;
    if (top === "verdicts" && item !== undefined) {
      if (kind === "playbook") codes.add(String(item));
      else {
        const code = (value.verdicts as { code?: unknown }[] | undefined)?.[item as number]?.code;
        if (typeof code !== "string") return undefined;
        codes.add(code);
      }
      continue;
    }
    if (kind === "playbook" && (top === "circuit_breakers" || top === "tools") && item !== undefined) entries.push([top, item]);
    else if (!(kind === "playbook" ? KEPT_PLAYBOOK : KEPT_REGISTRY).has(top)) entries.push([top]);
    else return undefined;
  }
  return { entries, codes };
}

/**
 * `doc` without the `failed` entries and every verdict or action of `codes`: the same
 * document to every rule (its positions, its file), read through the entries that passed.
 */
export function withoutEntries(kind: PartialKind, doc: YamlDocument, entries: readonly PathSegment[][], codes: ReadonlySet<string>): YamlDocument {
  const source = doc.value as Record<string, unknown>;
  const value: Record<string, unknown> = { ...source };
  /** For each list left shorter, the index in the file of each item kept. */
  const kept = new Map<string, number[]>();
  const dropFromList = (key: string, drop: (item: unknown, index: number) => boolean) => {
    const list = source[key];
    if (!Array.isArray(list)) return;
    const indexes = list.map((_, i) => i).filter((i) => !drop(list[i], i));
    if (indexes.length === list.length) return;
    value[key] = indexes.map((i) => list[i]);
    kept.set(key, indexes);
  };
  if (kind === "registry") dropFromList("verdicts", (v) => codes.has((v as { code: string }).code));
  else if (codes.size > 0) value.verdicts = Object.fromEntries(Object.entries(source.verdicts as object).filter(([code]) => !codes.has(code)));
  for (const entry of entries) {
    const [key, item] = entry as [string, PathSegment | undefined];
    if (item === undefined) delete value[key];
    else if (Array.isArray(source[key])) dropFromList(key, (_, i) => entries.some((e) => e[0] === key && e[1] === i));
    else value[key] = Object.fromEntries(Object.entries(value[key] as object).filter(([name]) => name !== String(item)));
  }
  const inFile = (path: readonly PathSegment[]): readonly PathSegment[] => {
    const indexes = typeof path[0] === "string" && typeof path[1] === "number" ? kept.get(path[0]) : undefined;
    return indexes === undefined ? path : [path[0], indexes[path[1] as number] ?? path[1], ...path.slice(2)];
  };
  return {
    file: doc.file,
    index: doc.index,
    value,
    locate: (path, target) => doc.locate(inFile(path), target),
    has: (path) => doc.has(inFile(path)),
    inFile,
  };
}
