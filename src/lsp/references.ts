/**
 * References: every place a code (or a class, a tool, a field, an error kind) is declared or
 * used, across the registry, the playbook and the fixtures, as the role table names them.
 */
import type { Location, ReferenceParams } from "vscode-languageserver";
import { locationOf } from "./locate.js";
import { namesInProject, targetAt } from "./names.js";
import type { Workspace } from "./workspace.js";

const FOLLOWED = new Set(["code", "class", "tool", "field", "kind"]);

export function references(workspace: Workspace, params: ReferenceParams): Location[] | null {
  const target = targetAt(workspace, params);
  const name = target?.cursor.word?.text;
  const role = target?.role;
  if (!target || name === undefined || role === undefined || !FOLLOWED.has(role)) return null;
  const { state } = target.view;
  const out: Location[] = [];
  for (const place of namesInProject(state, role)) {
    if (place.name !== name || (place.row.declares && !params.context.includeDeclaration)) continue;
    const location = locationOf(workspace, state, place.doc, place.path, place.row.at === "key" ? "key" : "value");
    if (location) out.push(location);
  }
  return out;
}
