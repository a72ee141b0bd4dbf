/** `failbook lsp`: the language server for editors, on stdio. */
import { VERSION } from "../version.js";
import type { CommandRegistrar, Globals } from "./command.js";

export const registerLsp: CommandRegistrar = (program, run) => {
  program
    .command("lsp")
    .description("serve editors: a Language Server Protocol server on stdio (lint's diagnostics as you type, hover, definition, references, completion, quick fixes, outline, fixture outcomes)")
    .option("--stdio", "talk LSP over stdin and stdout (the default and only transport; accepted because clients pass it)")
    .option("--clientProcessId <pid>", "exit when this process is gone (clients pass it)")
    .addHelpText(
      "after",
      `
An editor starts this command and talks JSON-RPC (the Language Server Protocol) to it over
stdin and stdout; nothing else is written to stdout. For the config, registry, playbook and
fixture files of the project above each file it opens (failbook.yaml, or --config):

  diagnostics      exactly failbook lint's findings (rule id as the code, severity, position,
                   related positions), for every open file, after every edit; unsaved buffers
                   count over the files on disk, and an edit to the registry re-checks the
                   playbook and fixtures that depend on it
  hover            a verdict code: summary, class, retryable, side effect, its action and
                   worst case; an action: the action reference; any other key: what the JSON
                   Schema says it means, and its value
  definition       a code to its verdict, a class, field or tool to its declaration, adr: to
                   the ADR file, a path in the config to the file
  references       every place a code (class, tool, field, error kind) is declared or used
  completion       keys the schema allows (a playbook entry's action parameters), codes,
                   actions, classes, error kinds, fields, tools, rule ids, enumerated values
  code actions     the quick fixes lint knows: "did you mean" replacements, the missing
                   playbook entry, on_unknown_side_effect, a breaker's circuit_open verdict
  symbols, lenses  the verdicts as an outline; on each fixture, its simulated outcome

A file that is in no project (no failbook.yaml above it, or not named by its config) gets
one note if it looks like a failbook file, and nothing else. Keep yaml-language-server for
schema completion beside it: the files' $schema modelines point it at schemas/.

Exit status: 0 after the client's shutdown and exit; 1 when the client exits or closes stdin
without a shutdown.

Set-up (docs/lsp.md has more, Neovim 0.7 to 0.9 included): run the project's own failbook,
npx --no-install failbook lsp (or node_modules/.bin/failbook lsp), never one npx would fetch.
  VS Code   the extension in editor/vscode/ of failbook's repository (not published)
  Neovim    (0.10+) local root = vim.fs.root(0, { "failbook.yaml" })
            vim.lsp.start({ name = "failbook", cmd = { "npx", "--no-install", "failbook", "lsp" },
              cmd_cwd = root, root_dir = root })`,
    )
    .action(run((_io, globals) => lsp(globals)));
};

async function lsp(globals: Globals): Promise<number> {
  const { serveLsp } = await import("../lsp/server.js");
  serveLsp({ version: VERSION, config: globals.config });
  // The server ends the process itself (`exit`, or stdin closed).
  return new Promise<number>(() => {});
}
