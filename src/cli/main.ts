/** The failbook command line: global options, the command list, exit codes. */
import { Command, CommanderError } from "commander";
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
    .option("--config <path>", "the project config (default: failbook.yaml here or in the nearest parent)")
    .option("--no-color", "plain output, even on a terminal (NO_COLOR and FORCE_COLOR are honoured too)")
    .helpOption("-h, --help", "show help")
    .addHelpCommand(false)
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  const run = makeRunner(program, state, streams);
  for (const register of await commandsFor(argv.slice(2))) register(program, run);
  program.commands.forEach((c) => c.exitOverride().showHelpAfterError("(run with --help for usage)"));
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === "commander.helpDisplayed" || e.code === "commander.version") return 0;
      return 2; // commander has printed what was wrong
    }
    throw e;
  }
  return state.exitCode;
}
