/**
 * Completion: at a key, the keys the JSON Schema allows there (a playbook entry's keys are
 * its action's parameters, from the action reference), or the codes a playbook still lacks;
 * at a value, what the role table says it names (codes, classes, actions, tools, error kinds,
 * fields, rule ids) or the values the schema enumerates. Each item's documentation is filled
 * in when the editor shows it (completionItem/resolve), as hover says it.
 */
import type { CompletionItem, CompletionItemKind, CompletionParams } from "vscode-languageserver";
import { allRuleMeta } from "../lint/lint.js";
import { verdictIndex } from "../lint/rules/support.js";
import type { DocumentKind } from "../load/schema.js";
import type { PathSegment } from "failbook-runtime/model/finding.js";
import { ACTION_NAMES } from "failbook-runtime/model/playbook.js";
import { actionReference, isActionName } from "../render/actions.js";
import { cursorAt } from "./cursor.js";
import { describeNamed } from "./hover.js";
import { rangeOf } from "./locate.js";
import { namesInProject } from "./names.js";
import { roleAt, type Role } from "./roles.js";
import { keysAt, valuesAt } from "./schema.js";
import { pathOf, type ProjectState, type Workspace } from "./workspace.js";

/** CompletionItemKind: Property, Value, EnumMember, Class, Function, Method, Keyword, Field, Reference, File. */
const KIND: Record<Role | "key" | "value", CompletionItemKind> = { key: 10, value: 12, code: 20, class: 7, action: 3, tool: 2, kind: 14, field: 5, rule: 18, adr: 17, file: 17 };

/** What resolve needs to describe an item. */
interface ItemData {
  uri: string;
  role: Role;
  name: string;
}

export function completion(workspace: Workspace, params: CompletionParams): CompletionItem[] {
  const view = workspace.view(params.textDocument.uri);
  if (!view?.kind) return [];
  const offset = view.document.offsetAt(params.position);
  const cursor = cursorAt(view.text, offset);
  const word = cursor.word;
  // Replace the whole word typed so far: a code's dots are not word breaks to the editor.
  const range = word ? rangeOf(view.document, word.start, Math.max(offset, word.end)) : undefined;
  const item = (label: string, kind: CompletionItemKind, extra: Partial<CompletionItem> = {}): CompletionItem => ({
    label,
    kind,
    ...(range ? { textEdit: { range, newText: extra.insertText ?? label }, filterText: label } : {}),
    ...extra,
  });
  const named = (role: Role, names: Iterable<string>, detail?: (name: string) => string | undefined): CompletionItem[] =>
    [...names].map((name) => {
      const d = detail?.(name);
      return item(name, KIND[role], { ...(d ? { detail: d } : {}), data: { uri: view.uri, role, name } satisfies ItemData });
    });

  const { state, kind } = view;
  if (cursor.on === "key") {
    const container = cursor.path.slice(0, -1);
    const keyed = roleAt(kind, [...container, "\u0000"], "key");
    if (keyed) return named(keyed.role, keyedNames(state, kind, keyed.role, container), (name) => detailOf(state, keyed.role, name));
    const colonFollows = /^[ \t]*:/.test(view.text.slice(word?.end ?? offset, (word?.end ?? offset) + 80));
    const insert = (name: string) => (colonFollows ? name : `${name}: `);
    return keysFor(state, kind, container).map((k) => item(k.name, KIND.key, { insertText: insert(k.name), ...(k.description ? { documentation: { kind: "markdown", value: k.description } } : {}), ...(k.required ? { sortText: `0${k.name}` } : { sortText: `1${k.name}` }) }));
  }
  const role = roleAt(kind, cursor.path, "value")?.role;
  if (role) return named(role, valueNames(state, role), (name) => detailOf(state, role, name));
  return valuesAt(kind, cursor.path).map((v) => item(v, KIND.value));
}

export function resolveCompletion(workspace: Workspace, item: CompletionItem): CompletionItem {
  const data = item.data as ItemData | undefined;
  if (!data || typeof data.uri !== "string") return item;
  const absolute = pathOf(data.uri);
  const state = absolute === undefined ? undefined : workspace.stateFor(absolute);
  const text = state && describeNamed(state, data.role, data.name);
  return text ? { ...item, documentation: { kind: "markdown", value: text } } : item;
}

/** A word beside the label: a code's class, an action's summary. */
function detailOf(state: ProjectState, role: Role, name: string): string | undefined {
  if (role === "action" && isActionName(name)) return actionReference(name).summary;
  const registry = state.registry?.value;
  if (role !== "code" || !registry) return undefined;
  const at = verdictIndex(registry).get(name);
  return at === undefined ? undefined : registry.verdicts[at].class;
}

/** The names a value of `role` may take. */
function valueNames(state: ProjectState, role: Role): Iterable<string> {
  const registry = state.registry?.value;
  switch (role) {
    case "code":
      return registry ? verdictIndex(registry).keys() : [];
    case "class":
      return Object.keys(registry?.classes ?? {});
    case "action":
      return ACTION_NAMES;
    case "tool":
      return new Set([...Object.keys(state.playbook?.value.tools ?? {}).filter((t) => !/[*?]/.test(t)), ...namesInProject(state, "tool", ["registry", "playbook"]).map((n) => n.name)]);
    case "kind":
      return new Set(namesInProject(state, "kind", ["registry"]).map((n) => n.name));
    case "field":
      return Object.keys(registry?.error_fields ?? {});
    case "rule":
      return allRuleMeta().map((r) => r.id);
    case "adr":
      return state.project?.adrFiles ?? [];
    case "file":
      return [];
  }
}

/** The keys of a mapping keyed by names (a playbook's verdicts, a config's rules): those not there yet. */
function keyedNames(state: ProjectState, kind: DocumentKind, role: Role, container: readonly PathSegment[]): string[] {
  const names = [...valueNames(state, role)];
  if (kind === "playbook" && role === "code" && container.length === 1) {
    const present = state.playbook?.value.verdicts ?? {};
    return names.filter((code) => !Object.hasOwn(present, code));
  }
  return names;
}

/** The keys a mapping takes: its schema's, or a playbook entry's action parameters. */
function keysFor(state: ProjectState, kind: DocumentKind, container: readonly PathSegment[]): { name: string; description: string | undefined; required: boolean }[] {
  if (kind === "playbook" && container.length === 2 && container[0] === "verdicts") {
    const action = state.playbook?.value.verdicts[String(container[1])]?.action;
    if (action !== undefined && isActionName(action)) {
      return [{ name: "action", description: undefined, required: true }, ...actionReference(action).parameters.map((p) => ({ name: p.name, description: p.text, required: p.required }))];
    }
  }
  return keysAt(kind, container);
}
