/**
 * The projects the editor has open: for each failbook.yaml, the project as last loaded from
 * open buffers over the files on disk, and lint's findings for it. A project is checked again
 * shortly after any of its files changes; the loader reuses every file whose text is the
 * same (LoadCache), so an edit re-reads and re-checks only the file that changed (of the
 * registry, only the verdicts an edit inside them touched: editedYaml), and lint
 * runs its one set of rules over the result, each per-verdict rule only over the verdicts
 * the edit changed (VerdictFindings).
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { TextDocument } from "vscode-languageserver-textdocument";
// Registers change control's rules in the catalogue, as `failbook lint` does: a config may set their severities.
import "../change/rules/index.js";
import { findConfig } from "../load/config.js";
import { InvalidProject, LoadCache, loadProjectFrom, type Loaded, type Project } from "../load/project.js";
import type { DocumentKind } from "../load/schema.js";
import type { YamlDocument } from "../load/yaml.js";
import { lintProject, sortFindings } from "../lint/lint.js";
import { VerdictFindings } from "../lint/incremental.js";
import { patternRedactor, projectRedactor } from "../load/redaction.js";
import { PatternsUnjudged } from "../load/regex-safety.js";
import type { Redactor } from "failbook-runtime/engine/redact.js";
import { UsageError } from "failbook-runtime/model/errors.js";
import type { Finding } from "failbook-runtime/model/finding.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import type { Registry } from "failbook-runtime/model/registry.js";
import { editorFiles, type EditorFiles } from "./files.js";

/** How long a project waits after an edit before it is checked: enough for a burst of changes to arrive. */
const SETTLE_MS = 10;

export interface ProjectState {
  configFile: string;
  /** The config's directory: paths in findings are shown relative to it. */
  root: string;
  files: EditorFiles;
  cache: LoadCache;
  /** The per-verdict findings of the last check: an edit to one verdict re-checks that verdict (lint/incremental.ts). */
  previous: VerdictFindings;
  /** The last load: absent when the config itself could not be read. */
  project: Project | undefined;
  /** Lint's findings of the last check, sorted, not yet redacted. */
  findings: Finding[];
  /** What stopped the last load (a missing registry file, a file over max_file_mb), said once. */
  problem: string | undefined;
  /** The registry and playbook of the last load that had them: hover and completion go on while a buffer does not parse. */
  registry: Loaded<Registry> | undefined;
  playbook: Loaded<Playbook> | undefined;
  /** Bumped by every check. */
  generation: number;
  timer: NodeJS.Timeout | undefined;
}

/** An open (or named) file, as the features see it. */
export interface FileView {
  uri: string;
  absolute: string;
  /** The open buffer, or the file on disk. */
  document: TextDocument;
  text: string;
  state: ProjectState;
  /** What the file is to its project; undefined when it is none of its files. */
  kind: DocumentKind | undefined;
  /** The file's documents as last loaded (positions of the last check). */
  documents: YamlDocument[];
}

export interface WorkspaceOptions {
  /** `failbook --config PATH lsp`: every file belongs to this project. */
  config?: string;
  /** Called after a project was checked (diagnostics are published from here); undefined: a file of no project opened. */
  onChecked(state: ProjectState | undefined): void;
  log(message: string): void;
  /**
   * Judges `message_matches` patterns off this thread (lsp/patterns.ts), resolving when they
   * are judged or needed no more; a load that meets one not judged yet waits for it. Without
   * it, patterns are checked as the load meets them.
   */
  judge?(project: string, patterns: readonly string[]): Promise<void>;
}

export class Workspace {
  private readonly projects = new Map<string, ProjectState>();
  private readonly open = new Map<string, { document: TextDocument; state: ProjectState | undefined }>();
  /** Files on disk read as documents (for positions in them), each kept while its text is the same. */
  private readonly onDisk = new Map<string, TextDocument>();

  constructor(private readonly options: WorkspaceOptions) {}

  /** An open buffer's text, by absolute path. */
  bufferText(absolute: string): string | undefined {
    return this.open.get(absolute)?.document.getText();
  }

  /** The open buffers, each with the project above it (undefined when there is none). */
  openDocuments(): { absolute: string; document: TextDocument; state: ProjectState | undefined }[] {
    return [...this.open].map(([absolute, { document, state }]) => ({ absolute, document, state }));
  }

  /** A buffer opened or changed: its project is checked again shortly (at once when it is new). */
  changed(document: TextDocument): void {
    const absolute = pathOf(document.uri);
    if (absolute === undefined) return;
    const known = this.open.get(absolute);
    this.open.set(absolute, { document, state: known?.state });
    const projects = this.projects.size;
    const state = known?.state ?? this.stateFor(absolute);
    this.open.set(absolute, { document, state });
    // A project seen for the first time was just checked, with this buffer: show its findings
    // (once they are there: its first check may wait for its patterns to be judged).
    if (state && this.projects.size === projects) this.schedule(state);
    else if (state === undefined || state.generation > 0) this.options.onChecked(state);
  }

  closed(uri: string): void {
    const absolute = pathOf(uri);
    if (absolute === undefined) return;
    this.open.delete(absolute);
    // The file on disk counts again.
    const state = this.stateFor(absolute);
    if (state) this.schedule(state);
  }

  /** A file changed on disk (the client's file watcher). */
  changedOnDisk(uri: string): void {
    const absolute = pathOf(uri);
    if (absolute === undefined) return;
    for (const state of this.projects.values()) {
      state.files.forget(absolute);
      if (absolute === state.configFile || kindIn(state, absolute) !== undefined || dirname(absolute).startsWith(state.root)) this.schedule(state);
    }
  }

  /** The project a file belongs to (checked first if it never was); undefined when no failbook.yaml is above it. */
  stateFor(absolute: string): ProjectState | undefined {
    let configFile: string;
    try {
      configFile = findConfig(this.options.config, this.options.config ? process.cwd() : dirname(absolute));
    } catch (e) {
      if (e instanceof UsageError) return undefined;
      throw e;
    }
    let state = this.projects.get(configFile);
    if (!state) {
      const root = dirname(configFile);
      state = {
        configFile,
        root,
        files: editorFiles(root, (p) => this.bufferText(p)),
        cache: new LoadCache(),
        previous: new VerdictFindings(),
        project: undefined,
        findings: [],
        problem: undefined,
        registry: undefined,
        playbook: undefined,
        generation: 0,
        timer: undefined,
      };
      this.projects.set(configFile, state);
      this.check(state);
    }
    return state;
  }

  /** A file by its URI, with its project; undefined when no project is above it. */
  view(uri: string): FileView | undefined {
    const absolute = pathOf(uri);
    if (absolute === undefined) return undefined;
    const state = this.open.get(absolute)?.state ?? this.stateFor(absolute);
    if (!state) return undefined;
    const document = this.documentAt(state, absolute);
    if (!document) return undefined;
    return { uri: document.uri, absolute, document, text: document.getText(), state, kind: kindIn(state, absolute), documents: documentsOf(state, absolute) };
  }

  /** A file of a project as a text document: the open buffer, else the file on disk (undefined when unreadable). */
  documentAt(state: ProjectState, absolute: string): TextDocument | undefined {
    const open = this.open.get(absolute)?.document;
    if (open) return open;
    let text: string;
    try {
      text = state.files.readText(absolute);
    } catch {
      return undefined;
    }
    const known = this.onDisk.get(absolute);
    if (known && known.getText() === text) return known;
    const document = TextDocument.create(uriOf(absolute), "yaml", 0, text);
    this.onDisk.set(absolute, document);
    return document;
  }

  private schedule(state: ProjectState): void {
    if (state.timer) clearTimeout(state.timer);
    state.timer = setTimeout(() => {
      state.timer = undefined;
      this.check(state);
    }, SETTLE_MS);
  }

  /** Load and lint the project now. Never throws: what stops it is kept as the project's problem. */
  check(state: ProjectState): void {
    if (state.timer) {
      clearTimeout(state.timer);
      state.timer = undefined;
    }
    try {
      const { project, findings } = loadProjectFrom(state.files, state.configFile, { cwd: state.root, cache: state.cache });
      state.project = project;
      state.findings = lintProject(project, findings, { previous: state.previous });
      state.problem = undefined;
      state.registry = project.registry ?? state.registry;
      state.playbook = project.playbook ?? state.playbook;
    } catch (e) {
      if (e instanceof PatternsUnjudged && this.options.judge) {
        // The last check's findings stand until the patterns are judged; then it loads again.
        void this.options.judge(state.configFile, e.patterns).then(() => this.schedule(state));
        return;
      }
      state.findings = [];
      state.problem = undefined;
      if (e instanceof InvalidProject) state.findings = sortFindings(e.findings);
      else if (e instanceof UsageError) state.problem = e.message;
      else {
        const err = e as Error;
        state.problem = `internal error: ${err?.message ?? String(e)} (this is a bug in failbook)`;
        this.options.log(`failbook lsp: ${err?.stack ?? String(e)}`);
      }
      state.project = undefined;
    }
    state.generation++;
    this.options.onChecked(state);
  }
}

/** The kind of a file in its project, by the last load. */
export function kindIn(state: ProjectState, absolute: string): DocumentKind | undefined {
  if (absolute === state.configFile) return "config";
  const files = state.project?.files;
  if (!files) return undefined;
  if (absolute === files.registry) return "registry";
  if (absolute === files.playbook) return "playbook";
  return files.fixtures.includes(absolute) ? "fixture" : undefined;
}

/** The documents of a file as last loaded (a fixture file holds many). */
function documentsOf(state: ProjectState, absolute: string): YamlDocument[] {
  const project = state.project;
  if (!project) return [];
  const shown = state.files.display(absolute);
  return project.sources.get(shown)?.documents ?? [];
}

/** The absolute path of a file: URI; undefined for any other scheme (an untitled buffer). */
export function pathOf(uri: string): string | undefined {
  if (typeof uri !== "string" || !uri.startsWith("file:")) return undefined;
  try {
    return resolve(fileURLToPath(uri));
  } catch {
    return undefined;
  }
}

export const uriOf = (absolute: string): string => pathToFileURL(absolute).href;

/** The absolute path of a file as findings show it (relative to the project's root). */
export const absoluteOf = (state: ProjectState, shown: string): string => resolve(state.root, shown);

const redactors = new WeakMap<Project, Redactor>();

/**
 * What the editor shows passes the redactor `failbook lint` prints through: the built-in
 * families and the config's patterns on the linear engine, the project's vocabulary kept.
 * One a load, not one a request.
 */
export function redactorOf(state: ProjectState): Redactor {
  const project = state.project;
  if (project === undefined) return patternRedactor();
  let redact = redactors.get(project);
  if (redact === undefined) redactors.set(project, (redact = projectRedactor(project)));
  return redact;
}
