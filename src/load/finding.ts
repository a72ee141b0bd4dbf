/** Building findings that point at a node of a located document. */
import type { Severity } from "failbook-runtime/model/config.js";
import { sha256Hex } from "failbook-runtime/engine/idempotency.js";
import { pointer, type Finding, type FindingFix, type PathSegment, type Position } from "failbook-runtime/model/finding.js";
import type { YamlDocument } from "./yaml.js";

export interface FindingInput {
  rule: string;
  severity: Severity;
  message: string;
  /** The document and node the finding is about. */
  doc: YamlDocument;
  path: readonly PathSegment[];
  target?: "value" | "key";
  related?: { message: string; position: Position }[];
  fix?: FindingFix;
}

/** A finding located at its node. `file` is the path shown to the user (relative to cwd). */
export function findingAt(input: FindingInput): Finding {
  const pos = input.doc.locate(input.path, input.target ?? "value");
  return withFingerprint({
    rule: input.rule,
    severity: input.severity,
    message: input.message,
    file: pos.file,
    line: pos.line,
    column: pos.column,
    path: pointer(input.doc.inFile?.(input.path) ?? input.path),
    fingerprint: "",
    ...(input.related && input.related.length > 0
      ? { related: input.related.map((r) => ({ message: r.message, file: r.position.file, line: r.position.line, column: r.position.column })) }
      : {}),
    ...(input.fix ? { fix: input.fix } : {}),
  }, logicalPath(input.doc.value, input.path));
}

/** A finding at a bare position (a syntax error, a file that could not be parsed). */
export function findingAtPosition(rule: string, severity: Severity, message: string, pos: Position): Finding {
  return withFingerprint({ rule, severity, message, file: pos.file, line: pos.line, column: pos.column, path: "", fingerprint: "" }, "");
}

/**
 * The fingerprint survives moving lines and reordering verdicts: it hashes the rule, the
 * file, the node's logical path (array items named by their `code`, `name` or call id,
 * not their index) and the message.
 */
function withFingerprint(f: Finding, logical: string): Finding {
  const h = sha256Hex(`${f.rule}\u0000${f.file}\u0000${logical}\u0000${f.message}`);
  return { ...f, fingerprint: h.slice(0, 16) };
}

function logicalPath(root: unknown, path: readonly PathSegment[]): string {
  const out: string[] = [];
  let node = root;
  for (const seg of path) {
    const child = node !== null && typeof node === "object" ? (node as Record<string, unknown>)[String(seg)] : undefined;
    out.push(typeof seg === "number" ? nameOf(child) ?? String(seg) : seg);
    node = child;
  }
  return out.join("/");
}

function nameOf(item: unknown): string | undefined {
  if (item === null || typeof item !== "object") return undefined;
  const o = item as Record<string, unknown>;
  for (const key of ["code", "name", "id"]) if (typeof o[key] === "string") return `${key}=${o[key] as string}`;
  const call = o.call as Record<string, unknown> | undefined;
  if (call && typeof call.id === "string") return `call=${call.id}`;
  return undefined;
}
