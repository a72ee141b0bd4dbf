/** `failbook explore`: browse codes, actions and fixture timelines; a plain form in pipes and CI. */
import { simulateProject } from "../simulate/project.js";
import { exploreData, formatExplorePlain } from "../tui/data.js";
import type { CommandRegistrar, Globals } from "./command.js";
import type { Io } from "./io.js";
import { loadModel } from "./render.js";

const MIN_COLUMNS = 60;
const MIN_ROWS = 10;

export const registerExplore: CommandRegistrar = (program, run) => {
  program
    .command("explore")
    .description("interactive terminal browser with two tabs: Codes (what explain shows, the playbook action included) and Fixtures (simulated timelines); plain tables in a pipe")
    .addHelpText(
      "after",
      `
Interactive: on a terminal outside CI, explore opens a two-pane browser. The left pane lists
the codes (● active, ◐ deprecated, ○ reserved, with their class) or the fixtures (✓ matches
its golden, ✗ differs or cannot run, · no expect, with how it ended); the right pane shows
what \`failbook explain CODE\` prints for the selected code, or the selected fixture's
simulated timeline as \`failbook simulate\` prints it.

Keys:
  ↑ ↓  j k        move in the list (in the details: scroll)
  tab  ← →        switch between Codes and Fixtures
  /               filter the list by typing (code, class, status, action; fixture name,
                  file, outcome); enter keeps the filter, esc clears it
  enter           focus the details; then space or page down pages, esc goes back
  q  ctrl-c       quit

Plain form: in a pipe, in CI (CI or GITHUB_ACTIONS set), with TERM=dumb or on a terminal
smaller than 60x10, explore prints the codes table (code, class, retryable, status, action)
and one outcome line per fixture, then exits.

Exit status: 0 quit or printed; 1 the registry or playbook is invalid (the findings are
printed); 2 explore could not run (no failbook.yaml, a missing file).

Examples:
  failbook explore
  failbook explore | less`,
    )
    .action(run((io, globals) => explore(io, globals)));
};

async function explore(io: Io, globals: Globals): Promise<number> {
  const loaded = loadModel(io, globals, "explore");
  if (!loaded) return 1;
  const { project, registry, playbook, model } = loaded;
  const sim = await simulateProject(project);
  const data = exploreData({ model, registry: registry.value, playbook: playbook.value, fixtures: project.fixtures, sim, c: io.c, redact: (s) => io.printable(s) });
  const fits = (process.stdout.columns ?? 0) >= MIN_COLUMNS && (process.stdout.rows ?? 0) >= MIN_ROWS;
  if (!io.interactive || !fits) {
    if (io.interactive) io.err(`failbook: explore needs a terminal of at least ${MIN_COLUMNS}x${MIN_ROWS}; here is the plain form\n`);
    io.out(formatExplorePlain(data, io.c));
    return 0;
  }
  const { runExplore } = await import("../tui/explore.js");
  await runExplore(data, { color: io.color });
  return 0;
}
