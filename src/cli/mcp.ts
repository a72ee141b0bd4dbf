/** `failbook mcp`: the registry for agents, as a Model Context Protocol server on stdio. */
import { VERSION } from "../version.js";
import { projectRedactor } from "../load/redaction.js";
import type { CommandRegistrar, Globals } from "./command.js";
import type { Io } from "./io.js";
import { loadModel } from "./render.js";

export const registerMcp: CommandRegistrar = (program, run) => {
  program
    .command("mcp")
    .description("serve the registry to agents: a Model Context Protocol server on stdio (tools classify, explain, list_verdicts)")
    .addHelpText(
      "after",
      `
An MCP client (Claude Desktop, Claude Code, an agent framework) starts this command and talks
JSON-RPC to it over stdin and stdout. Tools, each with an input and an output schema:

  classify       { error, tool? }: an adapter error in (or null); the verdict, the matching
                 rule, the playbook action and the envelope an agent is shown out
  explain        { code }: a verdict code (any case) or an action name; what
                 failbook explain prints, as text and as data
  list_verdicts  { class?, status? }: every code with its class, status, retryable flag,
                 side effect, summary and action

Every result carries structuredContent matching the tool's outputSchema and the same JSON as
text. An unknown tool, bad arguments or an unknown code is a tool result with isError: true;
a line that is not JSON-RPC gets a JSON-RPC error, and the server keeps serving. Secrets are
redacted (built-in patterns plus the config's redact: list).

The project is loaded once, at start: restart the server after editing the registry or the
playbook. Diagnostics go to stderr; stdout carries only the protocol.

Exit status: 0 the client closed stdin; 1 the registry or playbook is invalid (the findings
are printed on stderr); 2 the server could not start (no failbook.yaml, a missing file).

Example client configuration (claude_desktop_config.json, .mcp.json):
  { "mcpServers": { "failbook": { "command": "npx", "args": ["failbook", "mcp", "--config", "/path/to/failbook.yaml"] } } }`,
    )
    .action(run((io, globals) => mcp(io, globals)));
};

async function mcp(io: Io, globals: Globals): Promise<number> {
  const loaded = loadModel(io, globals, "serve mcp");
  if (!loaded) return 1;
  const { project, registry, playbook, model } = loaded;
  const { serveMcp } = await import("../mcp/server.js");
  const redact = projectRedactor(project);
  io.err(`failbook mcp: serving registry ${model.registry.name} (revision ${model.registry.revision}, ${model.codes.length} codes) on stdio\n`);
  await serveMcp({ project, registry, playbook, model, redact }, { version: VERSION, log: (line) => io.err(`${line}\n`) });
  return 0;
}
