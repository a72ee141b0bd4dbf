/** `failbook explain CODE`: one code in the terminal, paged when long on an interactive one. */
import { spawnSync } from "node:child_process";
import { explainCode, lookupCode } from "../render/explain.js";
import { fixturesExercising } from "../render/exercises.js";
import type { CommandRegistrar, Globals } from "./command.js";
import type { Io } from "./io.js";
import { loadModel } from "./render.js";

export const registerExplain: CommandRegistrar = (program, run) => {
  program
    .command("explain")
    .description("one error code in the terminal: guidance, playbook action, worst case, fixtures")
    .argument("<code>", "the code to explain (any case: NET.TIMEOUT finds net.timeout)")
    .addHelpText(
      "after",
      `
Prints the code's summary, class, retryable, side effect, cause, recovery, safe and unsafe
next actions, the playbook action with its static worst case (the most attempts and the
longest total backoff, jitter at its maximum, and the budgets that cut it short), the match
rules, the details schema, and the fixtures that exercise the code, as file:line (a fixture
exercises a code when its expect names it, or when one of its recorded failures classifies
as it).

On an interactive terminal long output goes through a pager ($FAILBOOK_PAGER, else $PAGER,
else less; set FAILBOOK_PAGER=cat to turn it off). In a pipe the output is plain text.

Exit status: 0 explained; 1 no such code (the closest codes are suggested) or the registry
is invalid; 2 explain could not run (no failbook.yaml, a missing file).

Examples:
  failbook explain transient_timeout
  failbook explain IDEMPOTENCY_CONFLICT
  failbook render --format json | jq -r '.codes[].code'   # every code there is`,
    )
    .action(run((io, globals, code: string) => explain(io, globals, code)));
};

function explain(io: Io, globals: Globals, query: string): number {
  const loaded = loadModel(io, globals, "explain");
  if (!loaded) return 1;
  const { project, registry, playbook, model } = loaded;
  const lookup = lookupCode(model, query);
  if ("ambiguous" in lookup) {
    io.fail(`'${query}' matches ${lookup.ambiguous.join(", ")}, which differ only in case; give the exact code`);
    return 1;
  }
  if ("suggestions" in lookup) {
    const hint = lookup.suggestions.length > 0 ? `did you mean ${lookup.suggestions.join(", ")}?` : "failbook render lists every code";
    io.fail(`unknown code '${query}': registry ${model.registry.name} (${registry.doc.file}) has no such code; ${hint}`);
    return 1;
  }
  const row = lookup.found;
  const exercises = fixturesExercising(row.code, registry.value, playbook.value, project.fixtures);
  const width = io.interactive ? Math.min(process.stdout.columns ?? 100, 100) : undefined;
  page(io, explainCode(row, model, exercises, { c: io.c, width }));
  return 0;
}

/** On an interactive terminal, text taller than the screen goes through a pager. */
function page(io: Io, text: string): void {
  const rows = process.stdout.rows ?? 24;
  const pager = process.env.FAILBOOK_PAGER ?? process.env.PAGER ?? "less";
  if (!io.interactive || text.split("\n").length < rows || pager === "" || pager === "cat") {
    io.out(text);
    return;
  }
  const r = spawnSync(pager, {
    shell: true,
    input: io.printable(text),
    stdio: ["pipe", "inherit", "inherit"],
    env: { ...process.env, LESS: process.env.LESS ?? "FRX" },
  });
  if (r.error || r.status === 127) io.out(text);
}
