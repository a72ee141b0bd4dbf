/**
 * The JSON Schemas (schemas/*.schema.json) as the editor's vocabulary: what a key means (its
 * description), which keys a mapping takes, which values an enumerated field takes. Hover
 * and completion read them, so a key added to a schema is described and completed with no
 * change to the server.
 */
import { readFileSync } from "node:fs";
import type { DocumentKind } from "../load/schema.js";
import type { PathSegment } from "failbook-runtime/model/finding.js";
import { packageFile } from "../version.js";

type Schema = { [key: string]: unknown };

const schemas = new Map<DocumentKind, Schema>();

function schemaOf(kind: DocumentKind): Schema {
  let schema = schemas.get(kind);
  if (!schema) schemas.set(kind, (schema = JSON.parse(readFileSync(packageFile(`schemas/${kind}.schema.json`), "utf8")) as Schema));
  return schema;
}

const isSchema = (v: unknown): v is Schema => v !== null && typeof v === "object" && !Array.isArray(v);

/** A node with its `$ref` and every branch of its combinators, each a node of its own. */
function expand(root: Schema, node: Schema, out: Schema[] = [], depth = 0): Schema[] {
  if (depth > 16 || out.includes(node)) return out;
  out.push(node);
  const ref = node.$ref;
  if (typeof ref === "string" && ref.startsWith("#/")) {
    const target = ref
      .slice(2)
      .split("/")
      .reduce<unknown>((n, seg) => (isSchema(n) ? n[seg] : undefined), root);
    if (isSchema(target)) expand(root, target, out, depth + 1);
  }
  for (const key of ["allOf", "anyOf", "oneOf"]) {
    const list = node[key];
    if (Array.isArray(list)) for (const branch of list) if (isSchema(branch)) expand(root, branch, out, depth + 1);
  }
  for (const key of ["then", "else"]) if (isSchema(node[key])) expand(root, node[key] as Schema, out, depth + 1);
  return out;
}

function child(node: Schema, seg: PathSegment): Schema | undefined {
  if (typeof seg === "number") return isSchema(node.items) ? node.items : undefined;
  const properties = node.properties;
  if (isSchema(properties) && isSchema(properties[seg])) return properties[seg] as Schema;
  const patterns = node.patternProperties;
  if (isSchema(patterns)) {
    for (const [pattern, sub] of Object.entries(patterns)) if (isSchema(sub) && safeTest(pattern, seg)) return sub;
  }
  return isSchema(node.additionalProperties) ? node.additionalProperties : undefined;
}

function safeTest(pattern: string, text: string): boolean {
  try {
    return new RegExp(pattern, "u").test(text);
  } catch {
    return false;
  }
}

/** The schema nodes for the value at `path` of a document of `kind`: each the first node of its expansion. */
export function schemaAt(kind: DocumentKind, path: readonly PathSegment[]): Schema[] {
  const root = schemaOf(kind);
  let nodes = [root];
  for (const seg of path) {
    const next: Schema[] = [];
    for (const node of nodes.flatMap((n) => expand(root, n))) {
      const sub = child(node, seg);
      if (sub && !next.includes(sub)) next.push(sub);
    }
    if (next.length === 0) return [];
    nodes = next;
  }
  return nodes.flatMap((n) => expand(root, n));
}

/** What the value at `path` is, from the first description found. */
export function descriptionAt(kind: DocumentKind, path: readonly PathSegment[]): string | undefined {
  for (const node of schemaAt(kind, path)) if (typeof node.description === "string") return node.description;
  return undefined;
}

export interface SchemaKey {
  name: string;
  description: string | undefined;
  required: boolean;
}

/** The keys the mapping at `path` takes, in the schema's order. */
export function keysAt(kind: DocumentKind, path: readonly PathSegment[]): SchemaKey[] {
  const out = new Map<string, SchemaKey>();
  const nodes = schemaAt(kind, path);
  const required = new Set(nodes.flatMap((n) => (Array.isArray(n.required) ? (n.required as string[]) : [])));
  for (const node of nodes) {
    if (!isSchema(node.properties)) continue;
    for (const [name, sub] of Object.entries(node.properties)) {
      if (!isSchema(sub) || out.has(name)) continue;
      out.set(name, { name, description: descriptionAt(kind, [...path, name]), required: required.has(name) });
    }
  }
  return [...out.values()];
}

/** The values an enumerated field at `path` takes (true and false for a boolean). */
export function valuesAt(kind: DocumentKind, path: readonly PathSegment[]): string[] {
  const out = new Set<string>();
  for (const node of schemaAt(kind, path)) {
    if (Array.isArray(node.enum)) for (const v of node.enum) out.add(String(v));
    if (node.const !== undefined) out.add(String(node.const));
    if (node.type === "boolean") ["true", "false"].forEach((v) => out.add(v));
  }
  return [...out];
}
