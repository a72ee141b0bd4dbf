/**
 * The project's names, read through the role table (./roles.ts): every place a code, class,
 * tool, field or kind is declared or used, in the registry, the playbook and the fixtures.
 * Walked once per check and role, then kept until the next check.
 */
import { join, resolve } from "node:path";
import { resolves } from "../lint/rules/adr-unresolved.js";
import type { DocumentKind } from "../load/schema.js";
import type { YamlDocument } from "../load/yaml.js";
import type { PathSegment } from "failbook-runtime/model/finding.js";
import type { TextDocumentPositionParams } from "vscode-languageserver";
import { verdictIndex } from "../lint/rules/support.js";
import { cursorAt, type Cursor } from "./cursor.js";
import { namesOf, roleAt, type Role, type RoleRow } from "./roles.js";
import type { FileView, ProjectState, Workspace } from "./workspace.js";

export interface NamePlace {
  kind: DocumentKind;
  doc: YamlDocument;
  path: PathSegment[];
  name: string;
  row: RoleRow;
}

const walked = new WeakMap<ProjectState, { generation: number; byRole: Map<string, NamePlace[]> }>();

/** The documents of the last load, each with its kind. */
export function projectDocuments(state: ProjectState, kinds?: readonly DocumentKind[]): { kind: DocumentKind; doc: YamlDocument }[] {
  const project = state.project;
  if (!project) return [];
  const all: { kind: DocumentKind; doc: YamlDocument }[] = [
    { kind: "config", doc: project.configDoc },
    ...(project.registry ? [{ kind: "registry" as const, doc: project.registry.doc }] : []),
    ...(project.playbook ? [{ kind: "playbook" as const, doc: project.playbook.doc }] : []),
    ...project.fixtures.map((f) => ({ kind: "fixture" as const, doc: f.doc })),
  ];
  return kinds ? all.filter((d) => kinds.includes(d.kind)) : all;
}

/** Every place a name of `role` stands in the documents of `kinds` (all of them by default). */
export function namesInProject(state: ProjectState, role: Role, kinds?: readonly DocumentKind[]): NamePlace[] {
  let cache = walked.get(state);
  if (!cache || cache.generation !== state.generation) walked.set(state, (cache = { generation: state.generation, byRole: new Map() }));
  const key = `${role}\u0000${kinds?.join(",") ?? ""}`;
  let places = cache.byRole.get(key);
  if (!places) {
    places = [];
    for (const { kind, doc } of projectDocuments(state, kinds)) for (const n of namesOf(kind, role, doc.value)) places.push({ kind, doc, ...n });
    cache.byRole.set(key, places);
  }
  return places;
}

/** The ADR file an `adr:` reference resolves to, as the adr-unresolved rule resolves it. */
export function adrFileFor(state: ProjectState, ref: string): string | undefined {
  const project = state.project;
  const dir = project?.config.adr_dir;
  if (!project || dir === undefined || /^https?:\/\//i.test(ref.trim())) return undefined;
  const name = (project.adrFiles ?? []).find((file) => resolves(ref, [file]));
  return name === undefined ? undefined : resolve(join(project.root, dir), name);
}

export interface Target {
  view: FileView & { kind: DocumentKind };
  cursor: Cursor;
  /** What the word under the position names: by where it stands, else a verdict code when it is one. */
  role: Role | undefined;
}

/** What is at a position of a project's file; undefined for a file that is none of its project's. */
export function targetAt(workspace: Workspace, params: TextDocumentPositionParams): Target | undefined {
  const view = workspace.view(params.textDocument.uri);
  if (!view?.kind) return undefined;
  const cursor = cursorAt(view.text, view.document.offsetAt(params.position));
  const word = cursor.word?.text;
  const registry = view.state.registry;
  const role = roleAt(view.kind, cursor.path, cursor.on)?.role ?? (word !== undefined && registry && verdictIndex(registry.value).has(word) ? "code" : undefined);
  return { view: view as Target["view"], cursor, role };
}
