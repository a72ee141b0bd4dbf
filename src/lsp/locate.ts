/** Positions of the loaded project as editor locations: a node of a document, with its extent. */
import type { Location, Position, Range } from "vscode-languageserver";
import type { YamlDocument } from "../load/yaml.js";
import type { PathSegment } from "failbook-runtime/model/finding.js";
import { nodeExtent } from "./cursor.js";
import { absoluteOf, uriOf, type ProjectState, type Workspace } from "./workspace.js";

/** Where the node at `path` of a loaded document stands now (its key, or its value). */
export function locationOf(workspace: Workspace, state: ProjectState, doc: YamlDocument, path: readonly PathSegment[], target: "key" | "value" = "value"): Location | undefined {
  const absolute = absoluteOf(state, doc.file);
  const document = workspace.documentAt(state, absolute);
  if (!document) return undefined;
  const at = doc.locate(path, target);
  const start: Position = { line: at.line - 1, character: at.column - 1 };
  const extent = nodeExtent(document.getText(), document.offsetAt(start));
  return { uri: uriOf(absolute), range: { start, end: document.positionAt(extent.end) } };
}

export const rangeOf = (document: { positionAt(offset: number): Position }, start: number, end: number): Range => ({ start: document.positionAt(start), end: document.positionAt(end) });

/** The document of a multi-document file (a fixture stream) that holds a line (0-based). */
export function documentAtLine(documents: readonly YamlDocument[], line: number): YamlDocument | undefined {
  let found: YamlDocument | undefined;
  for (const doc of documents) {
    if (doc.locate([]).line - 1 > line) break;
    found = doc;
  }
  return found ?? documents[0];
}
