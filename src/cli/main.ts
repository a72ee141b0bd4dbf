/** The failbook command line: global options, the command list, exit codes. */
import type { EventEmitter } from "node:events";
import { Command, CommanderError, Option } from "commander";
import { UsageError } from "failbook-runtime/model/errors.js";
import { nearest } from "../util/text.js";
import { VERSION } from "../version.js";
import { makeRunner, type CliState } from "./runner.js";
import type { OutputStreams } from "./io.js";
import { commandsFor } from "./commands.js";

// One line per paragraph: commander wraps them to the terminal's width.
const DESCRIPTION = [
  "Failure taxonomies and failure playbooks as code.",
  "",
  "failbook keeps a registry (the closed set of failure verdicts, and how an adapter error is recognised as one) and a playbook (the one compensation action for each verdict). It lints them, simulates dispatch against recorded failures, generates typed TypeScript bindings and renders the error-code registry.",
  "",
  "The project is found from failbook.yaml in the current directory or the nearest parent (or --config). Run `failbook COMMAND --help` for a command's flags, formats and examples.",
  "",
  "Exit status: 0 clean; 1 the check found something; 2 the command could not run.",
].join("\n");

/** Run the command line; `streams` replace stdout and stderr (tests run many commands in one process). */
export async function main(argv: string[], streams: OutputStreams = {}): Promise<number> {
  const state: CliState = { exitCode: 0 };
  const program = new Command("failbook")
    .description(DESCRIPTION)
    .version(VERSION, "-V, --version", "print the version")
    // `-v` is what many tools answer with their version: an alias, kept out of the help.
    .addOption(new Option("-v").hideHelp())
    .option("--config <path>", "the project config (default: failbook.yaml here or in the nearest parent)")
    .option("--no-color", "plain output, even on a terminal (NO_COLOR and FORCE_COLOR are honoured too)")
    .helpOption("-h, --help", "show help")
    .helpCommand("help [command]", "show help for a command")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  // Commander's version option answers on this event; -v raises it too.
  program.on("option:v", () => (program as unknown as EventEmitter).emit("option:version"));
  const run = makeRunner(program, state, streams);
  for (const register of await commandsFor(argv.slice(2))) register(program, run);
  for (const command of program.commands) configure(command, run);
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      // `--help`, `help COMMAND` and `--version` end here, having printed to stdout.
      if (e.code === "commander.helpDisplayed" || e.code === "commander.version" || (e.code === "commander.help" && e.exitCode === 0)) return 0;
      return 2; // commander has printed what was wrong
    }
    throw e;
  }
  return state.exitCode;
}

/**
 * Every command alike: usage errors end with the same hint, and a command with subcommands
 * answers `help SUBCOMMAND` as the program answers `help COMMAND`. A group (subcommands and no
 * arguments of its own: gen, new, import) run without a known subcommand says so in one line
 * naming them, rather than printing its whole help as an error.
 */
function configure(command: Command, run: ReturnType<typeof makeRunner>): void {
  command.exitOverride().showHelpAfterError("(run with --help for usage)");
  if (command.commands.length === 0) return;
  command.helpCommand("help [command]", "show help for a subcommand");
  if (command.registeredArguments.length === 0) {
    command.allowExcessArguments().action(run((_io, _globals, _options: unknown, self: Command) => groupWithout(self)));
  }
  for (const sub of command.commands) configure(sub, run);
}

const ancestry = (c: Command): string[] => (c.parent ? [...ancestry(c.parent), c.name()] : []);

function groupWithout(group: Command): never {
  const names = group.commands.map((c) => c.name()).filter((n) => n !== "help");
  const choices = names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
  const name = ancestry(group).join(" ");
  const help = `failbook ${name} --help describes each`;
  const [given] = group.args;
  if (given === undefined) throw new UsageError(`${name} needs a subcommand: ${choices} (e.g. failbook ${name} ${names[0]}; ${help})`);
  const [near] = nearest(given, names, 1);
  throw new UsageError(`${name} has no subcommand '${given}'${near === undefined ? "" : `; did you mean ${near}?`} It takes ${choices} (${help})`);
}
