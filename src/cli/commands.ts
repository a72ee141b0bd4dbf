/**
 * The command list: one module per command, loaded only when its command runs (or for
 * `--help`), so that `failbook lint` does not compile the code generator or the renderer.
 */
import type { CommandRegistrar } from "./command.js";

export interface CommandEntry {
  name: string;
  load: () => Promise<CommandRegistrar>;
}

export const COMMANDS: CommandEntry[] = [
  { name: "init", load: async () => (await import("./init.js")).registerInit },
  { name: "lint", load: async () => (await import("./lint.js")).registerLint },
  { name: "simulate", load: async () => (await import("./simulate.js")).registerSimulate },
  { name: "classify", load: async () => (await import("./classify.js")).registerClassify },
  { name: "gen", load: async () => (await import("./gen.js")).registerGen },
  { name: "render", load: async () => (await import("./render.js")).registerRender },
  { name: "explain", load: async () => (await import("./explain.js")).registerExplain },
  { name: "diff", load: async () => (await import("./diff.js")).registerDiff },
  { name: "explore", load: async () => (await import("./explore.js")).registerExplore },
  { name: "mcp", load: async () => (await import("./mcp.js")).registerMcp },
  { name: "lsp", load: async () => (await import("./lsp.js")).registerLsp },
  { name: "replay", load: async () => (await import("./replay.js")).registerReplay },
  { name: "storm", load: async () => (await import("./storm.js")).registerStorm },
  { name: "import", load: async () => (await import("./import.js")).registerImport },
  { name: "new", load: async () => (await import("./new.js")).registerNew },
  { name: "fleet", load: async () => (await import("./fleet.js")).registerFleet },
];

/** Global options that take a value, so that the value is not mistaken for the command. */
const GLOBAL_VALUE_OPTIONS = new Set(["--config"]);

/** The command named on the command line, if any: the first word that is not an option. */
export function commandName(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (GLOBAL_VALUE_OPTIONS.has(arg)) i++;
    else if (!arg.startsWith("-")) return arg;
  }
  return undefined;
}

/** The commands to register: the one named, or all of them (help, an unknown name). */
export async function commandsFor(args: readonly string[]): Promise<CommandRegistrar[]> {
  const name = commandName(args);
  if (name === undefined && ["--version", "-V", "-v"].some((flag) => args.includes(flag))) return [];
  const named = COMMANDS.filter((c) => c.name === name);
  return Promise.all((named.length > 0 ? named : COMMANDS).map((c) => c.load()));
}
