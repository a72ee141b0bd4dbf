/**
 * Diagnostics: lint's findings for every open file, exactly as `failbook lint --format json`
 * reports them (the rule id as the code, the severity, the position, the related positions,
 * the message redacted), published again after each check of its project, so that an edit
 * to the registry updates the playbook and the fixtures that depend on it, and a fixed
 * finding disappears. A file is published only when what it shows changed.
 */
import type { Connection, Diagnostic, DiagnosticRelatedInformation } from "vscode-languageserver";
import type { TextDocument } from "vscode-languageserver-textdocument";
import { redactFindings } from "../lint/redact.js";
import type { Finding } from "failbook-runtime/model/finding.js";
import { nodeExtent } from "./cursor.js";
import { absoluteOf, kindIn, redactorOf, uriOf, type ProjectState, type Workspace } from "./workspace.js";

const SEVERITY = { error: 1, warning: 2, info: 3 } as const;

/** What a diagnostic carries for the code actions: the finding's fix and fingerprint. */
export interface DiagnosticData {
  fingerprint: string;
  path: string;
  fix?: Finding["fix"];
}

/**
 * A finding's diagnostic, kept while lint hands back the same finding: it does so only while
 * the lines around it are the same (lint/incremental.ts). Valid for the config it was made
 * under (the redaction patterns) when redaction left the finding alone, else for its project
 * only (redaction keeps the project's vocabulary).
 */
const made = new WeakMap<Finding, { under: object; diagnostic: Diagnostic }>();

export class Diagnostics {
  private readonly shown = new Map<string, { version: number; diagnostics: Diagnostic[]; text: string | undefined }>();

  constructor(
    private readonly connection: Connection,
    private readonly workspace: Workspace,
  ) {}

  /** After a check (or an open that no project claims): every open file gets what it should show. */
  publish(state: ProjectState | undefined): void {
    const open = this.workspace.openDocuments();
    const byFile = state ? findingsByFile(state, new Set(open.map((o) => o.absolute))) : undefined;
    const project = state?.project;
    for (const { absolute, document, state: owner } of open) {
      if (owner !== state) continue;
      let diagnostics: Diagnostic[];
      if (!owner) diagnostics = outsideProject(document, "no failbook.yaml in this folder or any above it, so failbook lint does not check this file; run `failbook init` in the project's root");
      else if (owner.problem) diagnostics = [{ range: LINE_ONE, severity: 1, source: "failbook", code: "project", message: owner.problem }];
      else if (absolute !== owner.configFile && owner.project && kindIn(owner, absolute) === undefined && !byFile?.has(absolute)) {
        diagnostics = outsideProject(document, `not the registry, the playbook or a fixture file of the project at ${owner.files.display(owner.configFile)}, so failbook lint does not check it; name it there (fixtures:) to have it checked`);
      } else diagnostics = (byFile?.get(absolute) ?? []).map((f) => diagnosticOf(f, document, owner, project));
      this.send(document, diagnostics);
    }
  }

  /** A closed buffer shows nothing (its project's diagnostics are for open files). */
  clear(uri: string): void {
    this.shown.delete(uri);
    void this.connection.sendDiagnostics({ uri, diagnostics: [] });
  }

  private send(document: TextDocument, diagnostics: Diagnostic[]): void {
    const shown = this.shown.get(document.uri);
    // The same diagnostic objects (most, after an edit elsewhere) need no encoding to compare.
    if (shown && shown.version === document.version && (sameItems(shown.diagnostics, diagnostics) || (shown.text ??= JSON.stringify(shown.diagnostics)) === JSON.stringify(diagnostics))) return;
    this.shown.set(document.uri, { version: document.version, diagnostics, text: undefined });
    void this.connection.sendDiagnostics({ uri: document.uri, version: document.version, diagnostics });
  }
}

const LINE_ONE = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

/** The findings in the open files, by absolute path. */
function findingsByFile(state: ProjectState, open: ReadonlySet<string>): Map<string, Finding[]> {
  const out = new Map<string, Finding[]>();
  const absolute = new Map<string, string>();
  for (const f of state.findings) {
    let file = absolute.get(f.file);
    if (file === undefined) absolute.set(f.file, (file = absoluteOf(state, f.file)));
    if (!open.has(file)) continue;
    const list = out.get(file);
    if (list) list.push(f);
    else out.set(file, [f]);
  }
  return out;
}

/** A finding as a diagnostic, redacted as lint redacts it (the one made for the same finding before, when still valid). */
function diagnosticOf(f: Finding, document: TextDocument, state: ProjectState, project: object | undefined): Diagnostic {
  const known = made.get(f);
  if (known && (known.under === project || known.under === state.project?.config)) return known.diagnostic;
  const [redacted] = redactFindings([f], redactorOf(state));
  const diagnostic = toDiagnostic(redacted, document, state);
  const clean = JSON.stringify(redacted) === JSON.stringify(f);
  if (project) made.set(f, { under: clean && state.project ? state.project.config : project, diagnostic });
  return diagnostic;
}

const sameItems = <T>(a: readonly T[], b: readonly T[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

export function toDiagnostic(f: Finding, document: TextDocument, state: ProjectState): Diagnostic {
  const start = { line: f.line - 1, character: f.column - 1 };
  const extent = nodeExtent(document.getText(), document.offsetAt(start));
  const related: DiagnosticRelatedInformation[] | undefined = f.related?.map((r) => {
    const at = { line: r.line - 1, character: r.column - 1 };
    return { location: { uri: uriOf(absoluteOf(state, r.file)), range: { start: at, end: at } }, message: r.message };
  });
  const data: DiagnosticData = { fingerprint: f.fingerprint, path: f.path, ...(f.fix ? { fix: f.fix } : {}) };
  return {
    range: { start, end: document.positionAt(extent.end) },
    severity: SEVERITY[f.severity],
    code: f.rule,
    source: "failbook",
    message: f.message,
    ...(related ? { relatedInformation: related } : {}),
    data,
  };
}

/** A file no project checks: said once, when it looks like one of failbook's (a kind or apiVersion of its own). */
function outsideProject(document: TextDocument, why: string): Diagnostic[] {
  const head = document.getText().slice(0, 4096);
  if (!/^(apiVersion:\s*failbook\/|kind:\s*(Registry|Playbook|Fixture)\b)/m.test(head)) return [];
  return [{ range: LINE_ONE, severity: 3, source: "failbook", code: "not-in-project", message: why }];
}
