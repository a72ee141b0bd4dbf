/** `failbook explain CODE`: one code in the terminal, paged when long on an interactive one. */
import { spawnSync } from "node:child_process";
import { explainActionText, isActionName } from "../render/actions.js";
import { ACTION_NAMES, type ActionName } from "failbook-runtime/model/playbook.js";
import { nearest } from "../util/text.js";
import { UsageError } from "failbook-runtime/model/errors.js";
import { explainCode, lookupCode } from "../render/explain.js";
import { explainRuleText } from "../render/rule.js";
import { allRuleMeta } from "../lint/lint.js";
import type { RuleMeta } from "../lint/rule.js";
import type { Project } from "../load/project.js";
import "../change/rules/index.js";
import { fixturesExercising } from "../render/exercises.js";
import { type CommandRegistrar, type Globals, loadFor } from "./command.js";
import type { Io } from "./io.js";
import { loadModel } from "./render.js";

export const registerExplain: CommandRegistrar = (program, run) => {
  program
    .command("explain")
    .description("one error code in the terminal (guidance, playbook action, worst case, fixtures), one playbook action, or one lint rule")
    .argument("<code>", "the code to explain (any case: NET.TIMEOUT finds net.timeout), an action name (retry_with_backoff) or a rule id (retry-committed, change/code-removed)")
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

Given a rule id (a lint rule such as retry-committed, or a change-control rule such as
change/code-removed), it prints what the rule finds, an example of what it reports, the
fix, and how to set its severity. It needs no project either; a code of the same name wins.
A name that is no code, action or rule gets the closest of all three.

On an interactive terminal long output goes through a pager ($FAILBOOK_PAGER, else $PAGER,
else less; set FAILBOOK_PAGER=cat to turn it off). In a pipe the output is plain text.

Exit status: 0 explained; 1 no such code, action or rule (the closest are suggested) or the
registry is invalid; 2 explain could not run (no failbook.yaml, a missing file).

Examples:
  failbook explain transient_timeout
  failbook explain IDEMPOTENCY_CONFLICT
  failbook explain retry_with_backoff
  failbook explain retry-committed
  failbook explain change/code-removed
  failbook render --format json | jq -r '.codes[].code'   # every code there is`,
    )
    .action(run((io, globals, code: string) => explain(io, globals, code)));
};

function explain(io: Io, globals: Globals, query: string): number {
  if (isActionName(query)) return explainAction(io, globals, query);
  const rule = ruleNamed(query);
  if (rule) return explainRule(io, globals, rule);
  return explainCodeOf(io, globals, query);
}

const ruleNamed = (id: string): RuleMeta | undefined => allRuleMeta().find((r) => r.id === id);

/** Actions and rules are spelt in lower case; like a code, they are found in any case. */
function explainNamed(io: Io, globals: Globals, query: string): number | undefined {
  const folded = query.toLowerCase();
  if (isActionName(folded)) return explainAction(io, globals, folded);
  const rule = ruleNamed(folded);
  return rule ? explainRule(io, globals, rule) : undefined;
}

/** The actions and rules closest to a name that is none of them. */
const nearNames = (query: string, codes: readonly string[] = []): string[] => nearest(query, [...codes, ...ACTION_NAMES, ...allRuleMeta().map((r) => r.id)]);

function explainCodeOf(io: Io, globals: Globals, query: string): number {
  let loaded;
  try {
    loaded = loadModel(io, globals, "explain");
  } catch (e) {
    // No project here: a name near an action or a rule is still worth a suggestion.
    if (!(e instanceof UsageError)) throw e;
    const named = explainNamed(io, globals, query);
    if (named !== undefined) return named;
    const near = nearNames(query);
    if (near.length === 0) throw e;
    io.fail(`'${query}' is no action or rule (and there is no project here to hold a code of that name); did you mean ${near.join(", ")}?`);
    return 1;
  }
  if (!loaded) return 1;
  const { project, registry, playbook, model } = loaded;
  const lookup = lookupCode(model, query);
  if ("ambiguous" in lookup) {
    io.fail(`'${query}' matches ${lookup.ambiguous.join(", ")}, which differ only in case; give the exact code`);
    return 1;
  }
  if ("suggestions" in lookup) {
    const named = explainNamed(io, globals, query);
    if (named !== undefined) return named;
    const near = nearNames(query, model.codes.map((r) => r.code));
    const hint = near.length > 0 ? `did you mean ${near.join(", ")}?` : "failbook render lists every code, failbook explain --help every action";
    io.fail(`unknown code '${query}': registry ${model.registry.name} (${registry.doc.file}) has no such code, and no action or rule has that name; ${hint}`);
    return 1;
  }
  const row = lookup.found;
  const exercises = fixturesExercising(row.code, registry.value, playbook.value, project.fixtures);
  page(io, explainCode(row, model, exercises, { c: io.c, width: terminalWidth(io) }));
  return 0;
}

/**
 * `explain ACTION` (SPEC 13): the action reference, which needs no project; with one, the
 * verdicts its playbook gives the action, and a code of the same name wins over the action.
 */
function explainAction(io: Io, globals: Globals, name: ActionName): number {
  const project = projectIfAny(io, globals);
  if (hasCode(project, name)) return explainCodeOf(io, globals, name);
  const playbook = project?.playbook?.value;
  const usedBy = playbook ? Object.entries(playbook.verdicts).filter(([, a]) => a.action === name).map(([code]) => code) : undefined;
  page(io, explainActionText(name, io.c, usedBy));
  return 0;
}

/** `explain RULE-ID` (SPEC Part III): a lint or change rule's description, example and fix; a code of the same name wins. */
function explainRule(io: Io, globals: Globals, rule: RuleMeta): number {
  if (hasCode(projectIfAny(io, globals), rule.id)) return explainCodeOf(io, globals, rule.id);
  page(io, explainRuleText(rule, { c: io.c, width: terminalWidth(io) }));
  return 0;
}

/** The project, when there is one here: an action's or a rule's reference needs none. */
function projectIfAny(io: Io, globals: Globals): Project | undefined {
  try {
    return loadFor(io, globals).project;
  } catch (e) {
    if (!(e instanceof UsageError)) throw e; // no failbook.yaml: the reference alone
    return undefined;
  }
}

const hasCode = (project: Project | undefined, name: string): boolean => project?.registry?.value.verdicts.some((v) => v.code === name) === true;

/** Prose wraps on an interactive terminal, at most 100 columns; in a pipe it does not. */
const terminalWidth = (io: Io): number | undefined => (io.interactive ? Math.min(process.stdout.columns ?? 100, 100) : undefined);

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
