/** `failbook simulate`: replay the fixtures through the dispatcher and compare with their goldens. */
import { Option } from "commander";
import { UsageError } from "failbook-runtime/model/errors.js";
import { resolve } from "node:path";
import type { Outcome } from "failbook-runtime/model/outcome.js";
import type { Project } from "../load/project.js";
import { lintProject } from "../lint/lint.js";
// Registers change control's rules in the catalogue: a config may set their severities.
import "../change/rules/index.js";
import { computeCoverage } from "../simulate/coverage.js";
import { compareGolden, recordedGolden } from "../simulate/golden.js";
import { projectRules, simulateProject, type FixtureResult, type ProjectSimulation } from "../simulate/project.js";
import { formatSimulationJson } from "../simulate/report/json.js";
import { formatCoverageText, formatSimulationText } from "../simulate/report/text.js";
import { rewriteGoldens, type GoldenUpdate } from "../simulate/update.js";
import type { LiveProgress } from "../tui/progress.js";
import { writeFileAtomic } from "../util/fs.js";
import { inert } from "failbook-runtime/util/inert.js";
import { plural } from "../util/text.js";
import { choiceFlag, type CommandRegistrar, findingsText, type Globals, intFlag, loadFor } from "./command.js";
import type { Io } from "./io.js";

const FORMATS = ["text", "json"] as const;
const RUNTIMES = ["ts", "py"] as const;

interface SimulateFlags {
  seed?: string;
  update?: boolean;
  withDelays?: boolean;
  format?: string;
  coverage?: boolean;
  minCoverage?: string;
  runtime?: string;
}

export const registerSimulate: CommandRegistrar = (program, run) => {
  program
    .command("simulate")
    .description("dispatch the recorded fixtures through the playbook and compare each outcome with its golden")
    .argument("[paths...]", "fixture files or directories (default: the config's fixtures)")
    .option("--seed <n>", "jitter seed for fixtures that do not name one (default 0)")
    .option("--update", "rewrite the expect blocks to what the run did, keeping comments and layout")
    .option("--with-delays", "with --update: also pin every golden's retry delays (expect.delays_ms)")
    .addOption(new Option("--format <format>", "output format").choices([...FORMATS]).default("text"))
    .addOption(new Option("--runtime <runtime>", "which runtime dispatches the fixtures: ts (failbook-runtime) or py (failbook_runtime for Python, packages/runtime-py)").choices([...RUNTIMES]).default("ts"))
    .option("--coverage", "also report which verdicts, actions and outcomes the fixtures exercise")
    .option("--min-coverage <percent>", "exit 1 when fewer than this percent (0-100) of active verdicts are exercised by a passing fixture (implies --coverage)")
    .addHelpText(
      "after",
      `
Each fixture replays recorded responses, attempt by attempt, through the same dispatcher a
production runtime uses, on a virtual clock (nothing sleeps) with seeded jitter. Its
optional \`expect\` block is the golden: \`outcome\` is the outcome's kind, \`events\` the
full decision-event list, any other key (verdict, attempts, retried, elapsed_ms, reason,
queue, replan, exhausted, envelope, packet, steps, compensations, calls, parallelism) the
outcome field of that name. Objects in a golden match on the keys they give.

Output formats:
  text    each fixture as a timeline (virtual ms, attempts, verdicts, delays, the end),
          then how it compares with its golden, then a summary line
  json    { results: [{ fixture, file, outcome, events, passed, diff }], passed, failed }
          (passed is null for a fixture without expect)

On an interactive terminal outside CI, text output shows a live progress line while the
fixtures run (how many ran, passed and failed, the one running now), then erases it; the
report that stays is exactly the one a pipe gets.

--update rewrites only the expect blocks of fixtures that differ (and adds one to fixtures
that have none); every other line of the file stays as it was.

expect.delays_ms (opt-in) pins the delays of the run's retries, in order: the outcome alone
does not show a backoff change. --update keeps it current where a fixture has it;
--update --with-delays writes it into every golden. A recorded golden holds a
saga's steps and compensations and a wave fixture's calls in full. Run with --seed N (not
0), it also writes seed: N into a fixture that names none, so that the golden holds
without the flag. It writes nothing, and exits 1, when a file fails to load, the project
has lint errors or a fixture cannot run.

A golden records intended behaviour: when the project has lint errors, simulate says so in
its first line (failbook lint shows them), runs the fixtures, suggests no --update, and
--update records nothing.

--runtime py runs the fixtures through failbook_runtime, the Python runtime
(packages/runtime-py; pip install it, or run from a failbook checkout), with the module
that gen py writes for this project: the same report, from the code a Python service ships.
It needs python3 (3.9 or later; FAILBOOK_PYTHON names another interpreter).

--coverage ends with the verdict coverage: how many active verdicts a passing fixture (one
whose golden holds) classifies at least once. --min-coverage P makes it a gate: exit 1
when that share is below P percent.

Exit status: 0 every golden matches; 1 a golden differs, a fixture cannot run (it ran out
of responses), a document is invalid, the verdict coverage is below --min-coverage, or
--update recorded nothing; 2
simulate could not run (no failbook.yaml, a missing path, a bad flag).

Examples:
  failbook simulate
  failbook simulate playbooks/fixtures/refund-with-conflict.yaml --format json
  failbook simulate --update && git diff playbooks/fixtures
  failbook simulate --coverage --seed 42
  failbook simulate --min-coverage 80`,
    )
    .action(run((io, globals, paths: string[], flags: SimulateFlags) => simulate(io, globals, paths, flags)));
};

async function simulate(io: Io, globals: Globals, paths: string[], flags: SimulateFlags): Promise<number> {
  const format = choiceFlag("--format", flags.format, FORMATS, "text");
  const seed = intFlag("--seed", flags.seed);
  const runtime = choiceFlag("--runtime", flags.runtime, RUNTIMES, "ts");
  const minCoverage = percentFlag("--min-coverage", flags.minCoverage);
  if (flags.withDelays && !flags.update) throw new UsageError("--with-delays pins the retry delays when --update records goldens; run failbook simulate --update --with-delays");
  const { project, findings } = loadFor(io, globals, paths.length > 0 ? { fixturePaths: paths } : {});
  const loadErrors = findings.filter((f) => f.severity === "error");
  // A golden records intended behaviour: say first when lint rejects the project it would come from.
  const lintErrors = lintProject(project, findings, { errorsOnly: true }).length;
  if (lintErrors > 0) io.err(`failbook: this project has ${plural(lintErrors, "lint error")} (failbook lint shows ${lintErrors === 1 ? "it" : "them"}); fix ${lintErrors === 1 ? "it" : "them"} before recording a golden from what it does\n`);
  if (findings.length > 0) io.err(findingsText(io, findings, project.sources));
  const rules = projectRules(project);
  if (!rules) {
    io.err("failbook: cannot simulate until the registry and playbook load; fix the errors above\n");
    return 1;
  }
  // The view is two lines: on a terminal no taller, Ink would clear the screen every frame.
  const live = io.interactive && format === "text" && project.fixtures.length > 1 && (process.stdout.rows ?? 0) > 2 ? await liveProgress(io, project) : undefined;
  const sim = await simulateProject(project, { ...(seed === undefined ? {} : { seed }), ...(live ? { onResult: live.onResult } : {}), runtime }).finally(() => live?.close());

  let updated = new Set<FixtureResult>();
  let updateBlocked: string | undefined;
  if (flags.update) {
    updateBlocked =
      loadErrors.length > 0 ? "a file failed to load"
      : lintErrors > 0 ? `the project has ${plural(lintErrors, "lint error")}`
      : sim.results.some((r) => r.error) ? "a fixture could not run"
      : undefined;
    if (updateBlocked) io.err(`failbook: --update wrote nothing because ${updateBlocked}; fix that first\n`);
    else updated = writeGoldens(io, sim, (file) => project.sources.get(file)?.text, { seed: seed ?? 0, withDelays: flags.withDelays === true });
  }

  const coverage = (flags.coverage || minCoverage !== undefined) && project.registry && project.playbook
    ? computeCoverage(project.registry.value, project.playbook.value, sim.results.map((r) => ({ fixture: r.fixture, kind: r.outcome?.kind ?? null, events: r.events, passed: r.passed })))
    : undefined;
  if (format === "json") io.out(formatSimulationJson(sim, coverage));
  else {
    io.out(formatSimulationText(sim, { c: io.c, updated, lintErrors, ...(updateBlocked ? { updateBlocked } : {}) }));
    if (coverage) io.out("\n" + formatCoverageText(coverage, io.c));
  }
  const below = coverage !== undefined && minCoverage !== undefined && coverage.verdict_coverage.percent < minCoverage;
  if (below && coverage) {
    const vc = coverage.verdict_coverage;
    io.err(`failbook: verdict coverage ${vc.percent.toFixed(1)}% (${vc.exercised} of ${vc.active} active verdicts) is below --min-coverage ${minCoverage}; add fixtures with goldens for ${vc.untested.slice(0, 5).join(", ")}${vc.untested.length > 5 ? ` and ${vc.untested.length - 5} more` : ""} (failbook new fixture --verdict CODE)\n`);
  }
  return loadErrors.length > 0 || sim.failed > 0 || below || updateBlocked !== undefined ? 1 : 0;
}

/** A percentage flag: a number from 0 to 100, or a usage error naming the flag. */
function percentFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d+(\.\d+)?$/.test(value) ? Number(value) : NaN;
  if (!(n >= 0 && n <= 100)) throw new UsageError(`${name} takes a percentage from 0 to 100, not '${value}'`);
  return n;
}

/** The live view (Ink, loaded only here) while the fixtures run; it is erased before the report prints. */
async function liveProgress(io: Io, project: Project): Promise<LiveProgress> {
  const { showProgress } = await import("../tui/progress.js");
  return showProgress(project.fixtures.length, project.fixtures[0]?.value.name, { color: io.color, redact: (s) => io.printable(inert(s)) });
}

/**
 * Record the goldens of fixtures that differ or have none (and, `withDelays`, of those that
 * do not pin their delays yet); mark them passed when they now match.
 */
function writeGoldens(io: Io, sim: ProjectSimulation, sourceText: (file: string) => string | undefined, options: { seed: number; withDelays: boolean }): Set<FixtureResult> {
  const { seed, withDelays } = options;
  const byFile = new Map<string, { result: FixtureResult; outcome: Outcome; update: GoldenUpdate }[]>();
  for (const result of sim.results) {
    const outcome = result.outcome;
    const pinsDelays = result.source.value.expect?.delays_ms !== undefined;
    if ((result.passed === true && (pinsDelays || !withDelays)) || !outcome) continue;
    const expect = recordedGolden(result.source.value.expect, outcome, result.events, { withDelays });
    const list = byFile.get(result.file) ?? [];
    // A golden recorded under --seed N holds only under that seed: pin it in a fixture that names none.
    const pin = seed !== 0 && result.source.value.seed === undefined ? { seed } : {};
    list.push({ result, outcome, update: { index: result.source.doc.index, expect, ...pin } });
    byFile.set(result.file, list);
  }
  const updated = new Set<FixtureResult>();
  for (const [file, entries] of byFile) {
    const text = sourceText(file);
    if (text === undefined) continue;
    // `file` is the path as shown: relative to the working directory the project was loaded from.
    writeFileAtomic(resolve(file), rewriteGoldens(text, entries.map((e) => e.update), (s) => io.redact(s)), { shown: file });
    for (const { result, outcome, update } of entries) {
      if (compareGolden(update.expect, outcome, result.events).length === 0) {
        result.passed = true;
        result.diff = null;
        updated.add(result);
      }
    }
  }
  sim.passed = sim.results.filter((r) => r.passed === true).length;
  sim.failed = sim.results.filter((r) => r.passed === false).length;
  if (updated.size > 0) io.err(`updated the goldens of ${plural(updated.size, "fixture")} in ${plural(byFile.size, "file")}\n`);
  return updated;
}
