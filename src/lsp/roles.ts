/**
 * What a key or value names, by where it stands: the one table that tells hover, definition,
 * references and completion that `verdicts/*` in a playbook is a verdict code and
 * `throttle/class` a class. Everything else the editor says about a key comes from the JSON
 * Schemas (./schema.ts), so a new key needs no new code here; a new kind of cross-reference
 * needs one row.
 */
import type { DocumentKind } from "../load/schema.js";
import type { PathSegment } from "failbook-runtime/model/finding.js";

export type Role =
  /** A verdict code of the registry. */
  | "code"
  | "class"
  | "action"
  /** A tool name (a `tools:` key of the playbook may be a glob). */
  | "tool"
  /** An adapter error's kind, as the registry's match rules recognise it. */
  | "kind"
  /** A declared error field (the registry's error_fields). */
  | "field"
  | "adr"
  /** A path of the project (the config names the registry, playbook, fixtures, adr_dir). */
  | "file"
  /** A lint rule id (the config's rules:). */
  | "rule";

export interface RoleRow {
  in: DocumentKind;
  /** Path segments: a key, `*` any key, `#` any index, `**` any run of segments. */
  path: string;
  role: Role;
  /** The key names it (a mapping keyed by codes, classes...), or the value does (the default). */
  at?: "key";
  /** Where the thing is declared (definition goes here; references start here). */
  declares?: true;
}

export const ROLES: readonly RoleRow[] = [
  { in: "registry", path: "verdicts/#/code", role: "code", declares: true },
  { in: "registry", path: "verdicts/#/replaced_by", role: "code" },
  { in: "registry", path: "fallback", role: "code" },
  { in: "registry", path: "classes/*", role: "class", at: "key", declares: true },
  { in: "registry", path: "verdicts/#/class", role: "class" },
  { in: "registry", path: "error_fields/*", role: "field", at: "key", declares: true },
  { in: "registry", path: "verdicts/#/match/#/**/fields/*", role: "field", at: "key" },
  { in: "registry", path: "verdicts/#/examples/#/**/fields/*", role: "field", at: "key" },
  { in: "registry", path: "verdicts/#/match/#/**/kind", role: "kind" },
  { in: "registry", path: "verdicts/#/match/#/**/kind/#", role: "kind" },
  { in: "registry", path: "verdicts/#/examples/#/**/kind", role: "kind" },
  { in: "registry", path: "verdicts/#/match/#/tool", role: "tool" },
  { in: "registry", path: "verdicts/#/match/#/tool/#", role: "tool" },
  { in: "registry", path: "verdicts/#/examples/#/tool", role: "tool" },
  { in: "registry", path: "verdicts/#/adr", role: "adr" },
  { in: "registry", path: "classes/*/adr", role: "adr" },
  { in: "playbook", path: "verdicts/*", role: "code", at: "key" },
  { in: "playbook", path: "verdicts/*/action", role: "action" },
  { in: "playbook", path: "on_exhausted/action", role: "action" },
  { in: "playbook", path: "verdicts/*/tool", role: "tool" },
  { in: "playbook", path: "tools/*", role: "tool", at: "key", declares: true },
  { in: "playbook", path: "throttle/class", role: "class" },
  { in: "playbook", path: "retry_quota/cost_by_class/*", role: "class", at: "key" },
  { in: "playbook", path: "retry_quota/cost_by_kind/*", role: "kind", at: "key" },
  { in: "fixture", path: "**/verdict", role: "code" },
  { in: "fixture", path: "**/call/tool", role: "tool" },
  { in: "fixture", path: "**/error/**/kind", role: "kind" },
  { in: "fixture", path: "**/error/**/fields/*", role: "field", at: "key" },
  { in: "config", path: "registry", role: "file" },
  { in: "config", path: "playbook", role: "file" },
  { in: "config", path: "fixtures", role: "file" },
  { in: "config", path: "fixtures/#", role: "file" },
  { in: "config", path: "adr_dir", role: "file" },
  { in: "config", path: "gen/*", role: "file" },
  { in: "config", path: "rules/*", role: "rule", at: "key" },
];

/** The role of the node at `path` (its key when `on` is "key", else its value). */
export function roleAt(kind: DocumentKind, path: readonly PathSegment[], on: "key" | "value"): RoleRow | undefined {
  return ROLES.find((r) => r.in === kind && (r.at === "key") === (on === "key") && pathMatches(r.path, path));
}

/** The rows whose values (or keys) are of `role` in documents of `kind`. */
export const rowsOf = (kind: DocumentKind, role: Role): RoleRow[] => ROLES.filter((r) => r.in === kind && r.role === role);

const patterns = new Map<string, string[]>();

export function pathMatches(pattern: string, path: readonly PathSegment[]): boolean {
  let segments = patterns.get(pattern);
  if (!segments) patterns.set(pattern, (segments = pattern.split("/")));
  return matchFrom(segments, 0, path, 0);
}

function matchFrom(pattern: readonly string[], p: number, path: readonly PathSegment[], i: number): boolean {
  if (p === pattern.length) return i === path.length;
  const seg = pattern[p];
  if (seg === "**") {
    for (let k = i; k <= path.length; k++) if (matchFrom(pattern, p + 1, path, k)) return true;
    return false;
  }
  if (i === path.length) return false;
  const here = path[i];
  const ok = seg === "#" ? typeof here === "number" : seg === "*" ? typeof here === "string" : here === seg;
  return ok && matchFrom(pattern, p + 1, path, i + 1);
}

/**
 * Every node of a document that a row of `role` covers, as [path, name]: walked once, in
 * document order. References and completion read the project through this.
 */
export function* namesOf(kind: DocumentKind, role: Role, value: unknown): Generator<{ path: PathSegment[]; name: string; row: RoleRow }> {
  const rows = rowsOf(kind, role);
  if (rows.length === 0) return;
  const walk = function* (node: unknown, path: PathSegment[]): Generator<{ path: PathSegment[]; name: string; row: RoleRow }> {
    if (node === null || typeof node !== "object") return;
    const entries: [PathSegment, unknown][] = Array.isArray(node) ? node.map((v, i) => [i, v]) : Object.entries(node);
    for (const [k, v] of entries) {
      const here = [...path, k];
      for (const row of rows) {
        if (!pathMatches(row.path, here)) continue;
        if (row.at === "key") yield { path: here, name: String(k), row };
        else if (typeof v === "string") yield { path: here, name: v, row };
      }
      yield* walk(v, here);
    }
  };
  yield* walk(value, []);
}
