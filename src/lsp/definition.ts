/**
 * Go to definition: from a code (in the playbook, a fixture, the registry's own fallback or
 * replaced_by) to its verdict; from a class, a field or a tool to where it is declared; from
 * `adr:` to the ADR file; from a path in the config to the file it names.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { DefinitionParams, Location } from "vscode-languageserver";
import { verdictIndex } from "../lint/rules/support.js";
import { globMatches } from "failbook-runtime/engine/match.js";
import { locationOf } from "./locate.js";
import { adrFileFor, targetAt } from "./names.js";
import { uriOf, type Workspace } from "./workspace.js";

export function definition(workspace: Workspace, params: DefinitionParams): Location | null {
  const target = targetAt(workspace, params);
  const name = target?.cursor.word?.text;
  if (!target || name === undefined) return null;
  const { state } = target.view;
  const registry = state.registry;
  const start = { line: 0, character: 0 };
  switch (target.role) {
    case "code": {
      const at = registry && verdictIndex(registry.value).get(name);
      return registry && at !== undefined ? (locationOf(workspace, state, registry.doc, ["verdicts", at, "code"]) ?? null) : null;
    }
    case "class":
      return registry && Object.hasOwn(registry.value.classes, name) ? (locationOf(workspace, state, registry.doc, ["classes", name], "key") ?? null) : null;
    case "field":
      return registry && Object.hasOwn(registry.value.error_fields ?? {}, name) ? (locationOf(workspace, state, registry.doc, ["error_fields", name], "key") ?? null) : null;
    case "tool": {
      const playbook = state.playbook;
      const glob = Object.keys(playbook?.value.tools ?? {}).find((g) => g === name || globMatches(g, name));
      return playbook && glob !== undefined ? (locationOf(workspace, state, playbook.doc, ["tools", glob], "key") ?? null) : null;
    }
    case "adr": {
      const file = adrFileFor(state, name);
      return file ? { uri: uriOf(file), range: { start, end: start } } : null;
    }
    case "file": {
      const file = resolve(state.root, name);
      return existsSync(file) && statSync(file).isFile() ? { uri: uriOf(file), range: { start, end: start } } : null;
    }
    default:
      return null;
  }
}
