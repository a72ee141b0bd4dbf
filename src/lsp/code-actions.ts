/**
 * Code actions: the quick fixes lint already knows. A finding carries its fix as data
 * (model/finding.ts): a word to write in place of a mistyped one ("did you mean"), or a key
 * to add to a mapping (the missing playbook entry, on_unknown_side_effect). This file only
 * turns that data into text edits; it decides nothing.
 */
import jsyaml from "js-yaml";
import type { CodeAction, CodeActionParams, Diagnostic, TextEdit } from "vscode-languageserver";
import type { FindingFix } from "failbook-runtime/model/finding.js";
import type { TextDocument } from "vscode-languageserver-textdocument";
import { closingBracket } from "./cursor.js";
import type { DiagnosticData } from "./diagnostics.js";
import { absoluteOf, uriOf, type ProjectState, type Workspace } from "./workspace.js";

export function codeActions(workspace: Workspace, params: CodeActionParams): CodeAction[] {
  const view = workspace.view(params.textDocument.uri);
  if (!view) return [];
  const out = new Map<string, CodeAction>();
  for (const diagnostic of params.context.diagnostics) {
    if (diagnostic.source !== "failbook") continue;
    const fix = fixOf(view.state, view.state.files.display(view.absolute), diagnostic);
    if (!fix) continue;
    const edit = "replace" in fix ? replaceEdit(view.document, diagnostic, fix.replace) : addEdit(workspace, view.state, fix.add);
    if (!edit) continue;
    const key = `${fix.title}\u0000${JSON.stringify(edit)}`;
    const known = out.get(key);
    if (known) known.diagnostics?.push(diagnostic);
    else out.set(key, { title: fix.title, kind: "quickfix", diagnostics: [diagnostic], isPreferred: "replace" in fix, edit: { changes: { [edit.uri]: [edit.edit] } } });
  }
  return [...out.values()];
}

/** The fix a diagnostic carries, or, from a client that drops `data`, the fix of the finding at its place. */
function fixOf(state: ProjectState, shown: string, diagnostic: Diagnostic): FindingFix | undefined {
  const data = diagnostic.data as DiagnosticData | undefined;
  if (data && typeof data === "object") return data.fix;
  const { line, character } = diagnostic.range.start;
  return state.findings.find((f) => f.file === shown && f.line === line + 1 && f.column === character + 1 && f.rule === diagnostic.code)?.fix;
}

interface FileEdit {
  uri: string;
  edit: TextEdit;
}

/** Write `text` over the word the diagnostic points at (inside its quotes, when it is quoted). */
function replaceEdit(document: TextDocument, diagnostic: Diagnostic, replacement: string): FileEdit {
  const text = document.getText();
  let start = document.offsetAt(diagnostic.range.start);
  let end = document.offsetAt(diagnostic.range.end);
  const q = text[start];
  if ((q === '"' || q === "'") && end - start >= 2 && text[end - 1] === q) {
    start++;
    end--;
  }
  return { uri: document.uri, edit: { range: { start: document.positionAt(start), end: document.positionAt(end) }, newText: replacement } };
}

/** Add `key: value` at the end of the mapping at `path` of a file: in block style at the mapping's indentation, or inside its braces. */
function addEdit(workspace: Workspace, state: ProjectState, add: Extract<FindingFix, { add: unknown }>["add"]): FileEdit | undefined {
  const absolute = absoluteOf(state, add.file);
  const document = workspace.documentAt(state, absolute);
  const doc = state.project?.sources.get(add.file)?.documents[0];
  if (!document || !doc) return undefined;
  const path = add.path === "" ? [] : add.path.slice(1).split("/").map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  if (!doc.has(path)) return undefined;
  const at = doc.locate(path);
  const text = document.getText();
  const offset = document.offsetAt({ line: at.line - 1, character: at.column - 1 });
  // A key and its value for a mapping; an item for a list.
  const node = add.key === undefined ? [add.value] : { [add.key]: add.value };
  if (text[offset] === "{" || text[offset] === "[") {
    const close = closingBracket(text, offset);
    if (close === undefined) return undefined;
    const empty = text.slice(offset + 1, close).trim() === "";
    const flow = jsyaml.dump(node, { flowLevel: 0, lineWidth: -1 }).trim().slice(1, -1).trim();
    const position = document.positionAt(close);
    return { uri: uriOf(absolute), edit: { range: { start: position, end: position }, newText: `${empty ? " " : ", "}${flow} ` } };
  }
  const column = at.column - 1;
  const end = blockEnd(text, offset, column, add.key === undefined);
  const position = document.positionAt(end);
  const indented = jsyaml
    .dump(node, { indent: 2, lineWidth: -1 })
    .trimEnd()
    .split("\n")
    .map((l) => " ".repeat(column) + l)
    .join("\n");
  return { uri: uriOf(absolute), edit: { range: { start: position, end: position }, newText: `\n${indented}` } };
}

/**
 * The end of the last line of the block collection whose entries stand at `column` from
 * `offset` on (comments and blank lines after it excluded).
 */
function blockEnd(text: string, offset: number, column: number, list: boolean): number {
  let end = text.indexOf("\n", offset);
  if (end < 0) return text.length;
  for (let start = end + 1; start < text.length; ) {
    let next = text.indexOf("\n", start);
    if (next < 0) next = text.length;
    const line = text.slice(start, next).replace(/\r$/, "");
    const indent = line.length - line.trimStart().length;
    const blank = line.trim() === "" || line.trimStart().startsWith("#");
    if (!blank) {
      // At the column: a list goes on while its items do; a mapping's keys and compact lists (`key:` then `- x`) go on.
      const sibling = indent > column || (indent === column && (!list || /^-(\s|$)/.test(line.trimStart())));
      if (!sibling || (indent === 0 && /^(---|\.\.\.)(\s|$)/.test(line))) break;
      end = start + line.length;
    }
    start = next + 1;
  }
  return end;
}
