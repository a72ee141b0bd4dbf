/**
 * A verdict's `details` JSON Schema -> a TypeScript type. The subset a details object
 * needs: types (and lists of them), objects with required and optional properties and
 * `additionalProperties`, arrays and tuples, `enum`/`const`, `anyOf`/`oneOf`/`allOf`,
 * nested objects. Anything else becomes `unknown`, which is always sound. Property order
 * and union order carry no meaning, so both are sorted.
 */
import { jsDoc, numberLiteral, propertyKey, tsString } from "./escape.js";

type Schema = Record<string, unknown>;

/** A type's text; a union keeps its members (to flatten into another union), an intersection says so (to be parenthesised). */
interface TypeText {
  text: string;
  compound: boolean;
  members?: string[];
}

const isSchema = (v: unknown): v is Schema => v !== null && typeof v === "object" && !Array.isArray(v);
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const atom = (text: string): TypeText => ({ text, compound: false });
const UNKNOWN = atom("unknown");

/** The TypeScript type for `schema`; nested lines are indented from `indent`. */
export function schemaToType(schema: unknown, indent = ""): string {
  return typeOf(schema, indent).text;
}

function typeOf(schema: unknown, indent: string): TypeText {
  if (schema === true) return UNKNOWN;
  if (schema === false) return atom("never");
  if (!isSchema(schema)) return UNKNOWN;
  const parts: TypeText[] = [];
  if ("const" in schema) parts.push(literalType(schema.const));
  else if (Array.isArray(schema.enum)) parts.push(union(schema.enum.map(literalType)));
  else if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) {
    const members = [...((schema.anyOf as unknown[]) ?? []), ...((schema.oneOf as unknown[]) ?? [])];
    parts.push(union(members.map((m) => typeOf(m, indent))));
  } else parts.push(typeFromTypeKeyword(schema, indent));
  if (Array.isArray(schema.allOf)) parts.push(...schema.allOf.map((m) => typeOf(m, indent)));
  const type = intersection(parts);
  return schema.nullable === true && type.text !== "unknown" ? union([type, atom("null")]) : type;
}

function typeFromTypeKeyword(schema: Schema, indent: string): TypeText {
  const declared = typeof schema.type === "string" ? [schema.type] : Array.isArray(schema.type) ? schema.type.filter((t): t is string => typeof t === "string") : [];
  const types = declared.length > 0 ? declared : isSchema(schema.properties) || schema.required ? ["object"] : schema.items !== undefined ? ["array"] : [];
  if (types.length === 0) return UNKNOWN;
  return union(types.map((t) => primitive(t, schema, indent)));
}

function primitive(type: string, schema: Schema, indent: string): TypeText {
  switch (type) {
    case "string":
      return atom("string");
    case "number":
    case "integer":
      return atom("number");
    case "boolean":
      return atom("boolean");
    case "null":
      return atom("null");
    case "array":
      return arrayType(schema, indent);
    case "object":
      return objectType(schema, indent);
    default:
      return UNKNOWN;
  }
}

function arrayType(schema: Schema, indent: string): TypeText {
  const items = schema.prefixItems ?? schema.items;
  if (Array.isArray(items)) {
    const rest = schema.prefixItems ? schema.items : schema.additionalItems;
    const members = items.map((s) => typeOf(s, indent).text);
    if (rest !== false) members.push(`...Array<${typeOf(rest ?? true, indent).text}>`);
    return atom(`[${members.join(", ")}]`);
  }
  return atom(`Array<${typeOf(items ?? true, indent).text}>`);
}

function objectType(schema: Schema, indent: string): TypeText {
  const props = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : []);
  const names = [...new Set([...Object.keys(props), ...required])].sort(byText);
  const inner = `${indent}  `;
  const lines: string[] = [];
  const memberTypes: TypeText[] = [];
  for (const name of names) {
    const prop = Object.hasOwn(props, name) ? props[name] : true;
    const type = typeOf(prop, inner);
    const optional = !required.has(name);
    memberTypes.push(type);
    if (optional) memberTypes.push(atom("undefined"));
    if (isSchema(prop) && typeof prop.description === "string") lines.push(jsDoc([prop.description], inner).trimEnd());
    lines.push(`${inner}${propertyKey(name)}${optional ? "?" : ""}: ${type.text};`);
  }
  const extra = additionalType(schema, inner);
  if (extra !== undefined) {
    const value = names.length > 0 && extra.text !== "unknown" ? union([extra, ...memberTypes]) : extra;
    lines.push(`${inner}[key: string]: ${value.text};`);
  }
  // `{}` would admit any value; an object that may have no property at all is this.
  if (lines.length === 0) return atom("Record<string, never>");
  return atom(`{\n${lines.filter((l) => l !== "").join("\n")}\n${indent}}`);
}

/** The index signature's value type, or undefined when no other property is allowed. */
function additionalType(schema: Schema, indent: string): TypeText | undefined {
  const extra = schema.additionalProperties;
  if (extra === false) return schema.patternProperties ? UNKNOWN : undefined;
  if (extra === undefined || extra === true || schema.patternProperties) return UNKNOWN;
  return typeOf(extra, indent);
}

/** A JSON value as a literal type; what a literal type cannot express widens. */
function literalType(value: unknown): TypeText {
  if (typeof value === "string") return atom(tsString(value));
  if (typeof value === "number") return atom(Number.isFinite(value) ? numberLiteral(value) : "number");
  if (typeof value === "boolean" || value === null) return atom(String(value));
  return UNKNOWN;
}

const paren = (t: TypeText) => (t.compound ? `(${t.text})` : t.text);

function union(members: TypeText[]): TypeText {
  if (members.some((m) => m.text === "unknown")) return UNKNOWN;
  const flat = new Map<string, TypeText>();
  for (const m of members) {
    if (m.members) for (const t of m.members) flat.set(t, atom(t));
    else if (m.text !== "never") flat.set(paren(m), m);
  }
  if (flat.size === 0) return atom("never");
  if (flat.size === 1) return [...flat.values()][0];
  const texts = [...flat.keys()].sort(byText);
  return { text: texts.join(" | "), compound: true, members: texts };
}

function intersection(parts: TypeText[]): TypeText {
  const kept = parts.filter((p) => p.text !== "unknown");
  if (kept.length === 0) return UNKNOWN;
  if (kept.length === 1) return kept[0];
  return { text: kept.map(paren).join(" & "), compound: true };
}
