/**
 * References: every place a code (or a class, a tool, a field, an error kind) is declared or
 * used, across the registry, the playbook and the fixtures, as the role table names them.
 */
import type { Location, ReferenceParams } from "vscode-languageserver";
import { verdictIndex } from "../lint/rules/support.js";
import { cursorAt } from "./cursor.js";
import { locationOf } from "./locate.js";
import { namesInProject } from "./names.js";
import { roleAt } from "./roles.js";
import type { Workspace } from "./workspace.js";

const FOLLOWED = new Set(["code", "class", "tool", "field", "kind"]);

export function references(workspace: Workspace, params: ReferenceParams): Location[] | null {
  const view = workspace.view(params.textDocument.uri);
  if (!view?.kind) return null;
  const cursor = cursorAt(view.text, view.document.offsetAt(params.position));
  const name = cursor.word?.text;
  if (name === undefined) return null;
  const { state } = view;
  const role = roleAt(view.kind, cursor.path, cursor.on)?.role ?? (state.registry && verdictIndex(state.registry.value).has(name) ? "code" : undefined);
  if (role === undefined || !FOLLOWED.has(role)) return null;
  const out: Location[] = [];
  for (const place of namesInProject(state, role)) {
    if (place.name !== name || (place.row.declares && !params.context.includeDeclaration)) continue;
    const location = locationOf(workspace, state, place.doc, place.path, place.row.at === "key" ? "key" : "value");
    if (location) out.push(location);
  }
  return out;
}
