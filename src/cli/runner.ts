/**
 * The wrapper every command body runs in: output streams, then the shared error handling.
 * Kept apart from ./command.ts so that `failbook --version` and `--help` load neither the
 * project loader nor the output layer: both are imported when a command body first runs.
 */
import type { Command } from "commander";
import type { CommandBody, Globals } from "./command.js";
import type { OutputStreams } from "./io.js";

export interface CliState {
  exitCode: number;
}

export function makeRunner(program: Command, state: CliState, streams: OutputStreams = {}) {
  return <A extends unknown[]>(body: CommandBody<A>) =>
    async (...args: A): Promise<void> => {
      const [{ Io }, { reportError }] = await Promise.all([import("./io.js"), import("./command.js")]);
      const globals = program.opts<Globals>();
      const io = new Io({ noColor: globals.color === false, ...streams });
      try {
        state.exitCode = await body(io, globals, ...args);
      } catch (e) {
        state.exitCode = reportError(e, io);
      }
    };
}
