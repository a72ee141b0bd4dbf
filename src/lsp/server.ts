/**
 * `failbook lsp`: a Language Server Protocol server on stdio. This file only wires the
 * protocol to the features, one file each (diagnostics, hover, definition, references,
 * completion, code actions, symbols, code lens), all thin layers over the loader, lint,
 * explain and simulate. A handler that fails answers with an error; the server goes on.
 */
import { createConnection, ErrorCodes, ResponseError, TextDocuments, TextDocumentSyncKind } from "vscode-languageserver/node";
import { TextDocument } from "vscode-languageserver-textdocument";
import { codeActions } from "./code-actions.js";
import { codeLenses } from "./code-lens.js";
import { completion, resolveCompletion } from "./completion.js";
import { definition } from "./definition.js";
import { Diagnostics } from "./diagnostics.js";
import { hover } from "./hover.js";
import { PatternJudge } from "./patterns.js";
import { references } from "./references.js";
import { documentSymbols } from "./symbols.js";
import { protocolScreen, valueAt } from "./protocol.js";
import { stdioTransport } from "./transport.js";
import { Workspace } from "./workspace.js";

export interface LspOptions {
  version: string;
  /** `failbook --config PATH lsp`: one project for every file. */
  config?: string;
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
}

/** Serve until the client sends `exit` or closes stdin; the process then exits (0 after a `shutdown`, else 1). */
export function serveLsp(options: LspOptions): void {
  const input = options.input ?? process.stdin;
  const log = (message: string) => connection.console.error(message);
  const { reader, writer } = stdioTransport(input, options.output ?? process.stdout, { screen: protocolScreen(), log });
  const connection = createConnection(reader, writer);
  const documents = new TextDocuments(TextDocument);
  let diagnostics: Diagnostics | undefined;
  const patterns = new PatternJudge(log);
  const workspace = new Workspace({ config: options.config, onChecked: (state) => diagnostics?.publish(state), log, judge: (project, list) => patterns.judge(project, list) });
  diagnostics = new Diagnostics(connection, workspace);
  let shutdown = false;

  connection.onInitialize(() => ({
    capabilities: {
      textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
      hoverProvider: true,
      definitionProvider: true,
      referencesProvider: true,
      completionProvider: { resolveProvider: true, triggerCharacters: [":", " ", "."] },
      codeActionProvider: { codeActionKinds: ["quickfix"] },
      documentSymbolProvider: true,
      codeLensProvider: { resolveProvider: false },
    },
    serverInfo: { name: "failbook", version: options.version },
  }));
  connection.onShutdown(() => {
    shutdown = true;
  });
  documents.onDidChangeContent(({ document }) => workspace.changed(document));
  documents.onDidClose(({ document }) => {
    workspace.closed(document.uri);
    diagnostics?.clear(document.uri);
  });
  connection.onDidChangeWatchedFiles(({ changes }) => changes.forEach((c) => workspace.changedOnDisk(c.uri)));

  connection.onHover(guarded("hover", AT_POSITION, (p) => hover(workspace, p)));
  connection.onDefinition(guarded("definition", AT_POSITION, (p) => definition(workspace, p)));
  connection.onReferences(guarded("references", AT_POSITION, (p) => references(workspace, p)));
  connection.onCompletion(guarded("completion", AT_POSITION, (p) => completion(workspace, p)));
  connection.onCompletionResolve(guarded("completion resolve", ["label"], (item) => resolveCompletion(workspace, item)));
  connection.onCodeAction(guarded("code action", ["textDocument.uri", "range.start.line", "context.diagnostics"], (p) => codeActions(workspace, p)));
  connection.onDocumentSymbol(guarded("document symbols", ["textDocument.uri"], (p) => documentSymbols(workspace, p)));
  connection.onCodeLens(guarded("code lens", ["textDocument.uri"], (p) => codeLenses(workspace, p)));

  documents.listen(connection);
  connection.listen();
  // The client went away without `exit`: so does the server.
  reader.onClose(() => process.exit(shutdown ? 0 : 1));

  /** A handler that cannot fail the server: params without what it needs, or a bug, answer with an error. */
  function guarded<P, R>(what: string, needs: readonly string[], handler: (params: P) => R): (params: P) => R | ResponseError<void> | Promise<Awaited<R> | ResponseError<void>> {
    return (params: P) => {
      const missing = needs.find((path) => valueAt(params, path) === undefined);
      if (missing !== undefined) return new ResponseError<void>(ErrorCodes.InvalidParams, `${what}: the params have no ${missing}`);
      const fail = (e: unknown) => {
        log(`failbook lsp: ${what} failed: ${(e as Error)?.stack ?? String(e)}`);
        return new ResponseError<void>(ErrorCodes.InternalError, `${what} failed: ${(e as Error)?.message ?? String(e)} (this is a bug in failbook)`);
      };
      try {
        const result = handler(params);
        return result instanceof Promise ? (result.catch(fail) as Promise<Awaited<R> | ResponseError<void>>) : result;
      } catch (e) {
        return fail(e);
      }
    };
  }
}

/** What a request at a position needs. */
const AT_POSITION = ["textDocument.uri", "position.line", "position.character"];
