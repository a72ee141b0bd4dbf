// The failbook extension: a client only. It starts `failbook lsp` (the project's own failbook,
// `npx --no-install failbook lsp` by default: npx never fetches one from the registry) for the
// YAML files of a workspace that holds a failbook.yaml;
// the server finds each file's project and says nothing about the files of none.
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function start() {
  const settings = vscode.workspace.getConfiguration("failbook");
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const server = {
    command: settings.get("server.command", "npx"),
    args: settings.get("server.args", ["--no-install", "failbook", "lsp"]),
    // The client adds --stdio; failbook lsp accepts it.
    transport: TransportKind.stdio,
    // npx is a script on Windows.
    options: { cwd: folder, shell: process.platform === "win32" },
  };
  client = new LanguageClient("failbook", "failbook", server, {
    documentSelector: [{ scheme: "file", language: "yaml" }],
    // ADRs (adr_dir) and files saved by other programs change what lint says.
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/*.{yaml,yml,md}") },
  });
  return client.start();
}

function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand("failbook.restart", async () => {
      if (client) await client.stop();
      await start();
    }),
  );
  return start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
