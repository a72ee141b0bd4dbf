/**
 * Document symbols, the outline: a file's top-level keys; under the registry's `verdicts`
 * and the playbook's, every verdict by its code; the registry's classes; each fixture of a
 * fixture file by its name.
 */
import type { DocumentSymbol, DocumentSymbolParams, Position, Range, SymbolKind } from "vscode-languageserver";
import type { TextDocument } from "vscode-languageserver-textdocument";
import type { YamlDocument } from "../load/yaml.js";
import type { PathSegment } from "failbook-runtime/model/finding.js";
import { nodeExtent } from "./cursor.js";
import type { Workspace } from "./workspace.js";

const KIND = { key: 20, verdict: 22, class: 5, list: 18, fixture: 24 } satisfies Record<string, SymbolKind>;

export function documentSymbols(workspace: Workspace, params: DocumentSymbolParams): DocumentSymbol[] {
  const view = workspace.view(params.textDocument.uri);
  if (!view?.kind) return [];
  const { document } = view;
  const docs = view.documents;
  const end = document.positionAt(document.getText().length);
  if (view.kind === "fixture") {
    return docs.map((doc, i) => {
      const value = doc.value as { name?: unknown; description?: unknown } | null;
      const name = typeof value?.name === "string" ? value.name : `document ${i + 1}`;
      const range = { start: at(doc, []), end: i + 1 < docs.length ? at(docs[i + 1], []) : end };
      return symbol(name, KIND.fixture, range, selection(document, doc, doc.has(["name"]) ? ["name"] : [], range), typeof value?.description === "string" ? value.description : undefined);
    });
  }
  const doc = docs[0];
  if (!doc || doc.value === null || typeof doc.value !== "object") return [];
  return children(document, doc, [], doc.value as Record<string, unknown>, { start: at(doc, []), end }, (key, value, range) => {
    const path = [key];
    if (key === "verdicts" && Array.isArray(value)) {
      return value.map((v: { code?: unknown; class?: unknown; summary?: unknown }, i) => {
        const item = { start: at(doc, [...path, i]), end: i + 1 < value.length ? at(doc, [...path, i + 1]) : range.end };
        const code = typeof v?.code === "string" ? v.code : `verdict ${i + 1}`;
        return symbol(code, KIND.verdict, item, selection(document, doc, [...path, i, "code"], item), [v?.class, v?.summary].filter((s) => typeof s === "string").join(" · ") || undefined);
      });
    }
    if ((key === "verdicts" || key === "classes") && value !== null && typeof value === "object") {
      return children(document, doc, path, value as Record<string, unknown>, range, undefined, key === "verdicts" ? KIND.verdict : KIND.class, (v) => {
        const action = (v as { action?: unknown } | null)?.action;
        return typeof action === "string" ? action : undefined;
      });
    }
    return undefined;
  });
}

/** The keys of a mapping as symbols, each spanning to the next; `nested` gives a key's own children. */
function children(
  document: TextDocument,
  doc: YamlDocument,
  path: PathSegment[],
  value: Record<string, unknown>,
  range: Range,
  nested?: (key: string, value: unknown, range: Range) => DocumentSymbol[] | undefined,
  kind: SymbolKind = KIND.key,
  detail?: (value: unknown) => string | undefined,
): DocumentSymbol[] {
  const keys = Object.keys(value);
  return keys.map((key, i) => {
    const own = { start: at(doc, [...path, key], "key"), end: i + 1 < keys.length ? at(doc, [...path, keys[i + 1]], "key") : range.end };
    const s = symbol(key, kind, own, selection(document, doc, [...path, key], own, "key"), detail?.(value[key]));
    const inner = nested?.(key, value[key], own);
    if (inner && inner.length > 0) s.children = inner;
    return s;
  });
}

function symbol(name: string, kind: SymbolKind, range: Range, selectionRange: Range, detail?: string): DocumentSymbol {
  return { name, kind, range, selectionRange, ...(detail ? { detail } : {}) };
}

const at = (doc: YamlDocument, path: readonly PathSegment[], target: "key" | "value" = "value"): Position => {
  const p = doc.locate(path, target);
  return { line: p.line - 1, character: p.column - 1 };
};

/** The name's own extent, kept inside the symbol's range (an editor requires it). */
function selection(document: TextDocument, doc: YamlDocument, path: readonly PathSegment[], range: Range, target: "key" | "value" = "value"): Range {
  const start = at(doc, path, target);
  const extent = nodeExtent(document.getText(), document.offsetAt(start));
  const end = document.positionAt(extent.end);
  const inside = (p: Position) => (p.line > range.start.line || (p.line === range.start.line && p.character >= range.start.character)) && (p.line < range.end.line || (p.line === range.end.line && p.character <= range.end.character));
  return inside(start) && inside(end) ? { start, end } : { start: range.start, end: range.start };
}
