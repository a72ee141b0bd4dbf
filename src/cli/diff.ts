/**
 * `failbook diff OLD [NEW]`: what changed between two versions of a project, breaking first,
 * as a changelog for a pull request.
 */
import { Option } from "commander";
import { currentConfigPath, loadBaseline } from "../change/baseline.js";
import { sideOf } from "../change/check.js";
import { diffProjects, type DiffReport } from "../change/diff.js";
import { redactValue, type Redactor } from "failbook-runtime/engine/redact.js";
import { redactFindings } from "../lint/redact.js";
import { projectRedactor } from "../load/redaction.js";
import { formatDiffJson, formatDiffMarkdown, formatDiffText } from "../change/report.js";
import type { Side } from "../change/rule.js";
import { choiceFlag, type CommandRegistrar, findingsText, type Globals, loadFor } from "./command.js";
import type { Io } from "./io.js";

const DIFF_FORMATS = ["text", "json", "md"] as const;
const WORKING_TREE = "working tree";

export const registerDiff: CommandRegistrar = (program, run) => {
  program
    .command("diff")
    .description("what changed between two versions of the registry and playbook, breaking first")
    .argument("<old>", "the baseline: a config file, a directory holding failbook.yaml, or git:REV")
    .argument("[new]", "the version to compare with it (default: the current project, as found by --config or discovery)")
    .addOption(new Option("--format <format>", "output format").choices([...DIFF_FORMATS]).default("text"))
    .addHelpText(
      "after",
      `
OLD and NEW are each a config file, a directory holding failbook.yaml, or git:REV: the same
files as committed at REV (read with git, relative to the repository root; the config is
looked for at the current config's path). Without NEW, OLD is compared with the project in
the working tree.

The report lists, in this order: breaking changes (change rules at error severity: a removed
code, retryable loosened, a new code or class without an adr, a class change without a new
adr, a changed action without a golden fixture, a registry edit without a revision bump),
warnings and notes, the fixtures whose outcome (kind, verdict, attempts, elapsed_ms) differs
with before and after, and every edit. Severities follow NEW's rules: in failbook.yaml.

Output formats:
  text  for a terminal
  md    Markdown to paste into a pull request
  json  { old, new, breaking, findings: [...], outcomes: [{ fixture, file, before, after }], changes: [...] }

Exit status: 0 nothing breaking; 1 a breaking change; 2 diff could not run (a missing
baseline, an unknown git revision, a shallow clone without the history, an invalid baseline).

Examples:
  failbook diff git:origin/main
  failbook diff git:v1.2.0 git:HEAD --format md
  failbook diff ../released/failbook.yaml . --format json`,
    )
    .action(run((io, globals, oldRef: string, newRef: string | undefined, flags: { format?: string }) => diff(io, globals, oldRef, newRef, flags)));
};

async function diff(io: Io, globals: Globals, oldRef: string, newRef: string | undefined, flags: { format?: string }): Promise<number> {
  const format = choiceFlag("--format", flags.format, DIFF_FORMATS, "text");
  const current = newRef === undefined ? workingTree(io, globals) : loadBaseline(newRef, { currentConfig: currentConfigPath(globals.config) });
  if (!current) return 1;
  io.useRedactor(projectRedactor(current.project));
  const old = loadBaseline(oldRef, { currentConfig: current.project.configFile });
  const report = redactReport(await diffProjects(old, current), (text) => io.redact(text));
  io.out(format === "json" ? formatDiffJson(report) : format === "md" ? formatDiffMarkdown(report) : formatDiffText(report, io.c));
  return report.breaking > 0 ? 1 : 0;
}

/** The project on disk; when its registry or playbook fails the schema, say where and stop (exit 1). */
function workingTree(io: Io, globals: Globals): Side | undefined {
  const { project, findings } = loadFor(io, globals);
  const side = sideOf(project, WORKING_TREE);
  if (!side) io.err(findingsText(io, findings, project.sources));
  return side;
}

/** The report with every text from either side redacted, before a format (Markdown, JSON) encodes it. */
function redactReport(report: DiffReport, redact: Redactor): DiffReport {
  return { ...redactValue(report, redact), findings: redactFindings(report.findings, redact) };
}
