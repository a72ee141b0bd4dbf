/** `failbook explain CODE`: one code in the terminal, paged when long on an interactive one. */
import { spawnSync } from "node:child_process";
import { explainActionText, isActionName } from "../render/actions.js";
import type { ActionName } from "../model/playbook.js";
import { UsageError } from "../model/errors.js";
import { explainCode, lookupCode } from "../render/explain.js";
import { fixturesExercising } from "../render/exercises.js";
import { type CommandRegistrar, type Globals, loadFor } from "./command.js";
import type { Io } from "./io.js";
import { loadModel } from "./render.js";

export const registerExplain: CommandRegistrar = (program, run) => {
  program
    .command("explain")
    .description("one error code in the terminal (guidance, playbook action, worst case, fixtures), or one playbook action")
    .argument("<code>", "the code to explain (any case: NET.TIMEOUT finds net.timeout), or an action name (retry_with_backoff)")
    .addHelpText(
      "after",
      `
Prints the code's summary, class, retryable, side effect, cause, recovery, safe and unsafe
next actions, the playbook action with its static worst case (the most attempts and the
longest total backoff, jitter at its maximum, and the budgets that cut it short), the match
rules, the details schema, and the fixtures that exercise the code, as file:line (a fixture
exercises a code when its expect names it, or when one of its recorded failures classifies
as it).

Given an action name (retry_with_backoff, retry_with_hint, refresh_evidence,
restore_checkpoint, escalate_to_human, issue_reversal, deprecate_tool_call, fallback,
fail, dead_letter), it prints the action's parameters, what dispatch does with it and the
outcomes it can end with (docs/actions.md has them all), and, in a project, the verdicts
whose playbook entry uses it. It needs no project; a code of the same name wins.

On an interactive terminal long output goes through a pager ($FAILBOOK_PAGER, else $PAGER,
else less; set FAILBOOK_PAGER=cat to turn it off). In a pipe the output is plain text.

Exit status: 0 explained; 1 no such code (the closest codes are suggested) or the registry
is invalid; 2 explain could not run (no failbook.yaml, a missing file).

Examples:
  failbook explain transient_timeout
  failbook explain IDEMPOTENCY_CONFLICT
  failbook explain retry_with_backoff
  failbook render --format json | jq -r '.codes[].code'   # every code there is`,
    )
    .action(run((io, globals, code: string) => explain(io, globals, code)));
};

function explain(io: Io, globals: Globals, query: string): number {
  if (isActionName(query)) return explainAction(io, globals, query);
  return explainCodeOf(io, globals, query);
}

function explainCodeOf(io: Io, globals: Globals, query: string): number {
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

/**
 * `explain ACTION` (SPEC 13): the action reference, which needs no project; with one, the
 * verdicts its playbook gives the action, and a code of the same name wins over the action.
 */
function explainAction(io: Io, globals: Globals, name: ActionName): number {
  let project;
  try {
    project = loadFor(io, globals).project;
  } catch (e) {
    if (!(e instanceof UsageError)) throw e; // no failbook.yaml: the reference alone
  }
  const registry = project?.registry?.value;
  const playbook = project?.playbook?.value;
  if (registry?.verdicts.some((v) => v.code === name)) return explainCodeOf(io, globals, name);
  const usedBy = playbook ? Object.entries(playbook.verdicts).filter(([, a]) => a.action === name).map(([code]) => code) : undefined;
  page(io, explainActionText(name, io.c, usedBy));
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
