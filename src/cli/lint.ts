/** `failbook lint`: schema and semantic rules over the project, in a format for people or CI. */
import { Option } from "commander";
import { resolve } from "node:path";
import type { Severity } from "failbook-runtime/model/config.js";
import { SEVERITY_RANK, type Finding } from "failbook-runtime/model/finding.js";
import { InvalidProject, type Project } from "../load/project.js";
import { allRuleMeta, lintProject, sortFindings } from "../lint/lint.js";
// Registers change control's rules in the catalogue: a config may set their severities.
import "../change/rules/index.js";
import { lintStorms } from "../storm/lint.js";
import { loadStorms } from "../storm/load.js";
import { applyBaseline, readBaseline, serializeBaseline } from "../lint/baseline.js";
import { redactFindings } from "../lint/redact.js";
import { formatText } from "../lint/report/text.js";
import { formatJson, type BaselineSummary } from "../lint/report/json.js";
import { formatSarif } from "../lint/report/sarif.js";
import { formatGithub } from "../lint/report/github.js";
import { inert } from "failbook-runtime/util/inert.js";
import { plural } from "../util/text.js";
import { VERSION } from "../version.js";
import { choiceFlag, loadFor, type CommandRegistrar } from "./command.js";
import type { Io } from "./io.js";

export const LINT_FORMATS = ["text", "json", "sarif", "github"] as const;
export type LintFormat = (typeof LINT_FORMATS)[number];
const SEVERITIES = ["error", "warning", "info"] as const;

interface LintFlags {
  format?: string;
  failOn?: string;
  baseline?: string;
  writeBaseline?: string;
  against?: string;
}

export const registerLint: CommandRegistrar = (program, run) => {
  program
    .command("lint")
    .description("check the registry, playbook, fixtures and storms: JSON Schema and semantic rules")
    .addOption(new Option("--format <format>", "output format").choices([...LINT_FORMATS]).default("text"))
    .addOption(new Option("--fail-on <severity>", "exit 1 when a finding is at or above this severity").choices([...SEVERITIES]).default("error"))
    .option("--baseline <file>", "report only findings not recorded in this baseline file (yaml-syntax and schema errors are always reported)")
    .option("--write-baseline <file>", "record today's findings in this file and exit 0 (never yaml-syntax or schema errors)")
    .option("--against <ref>", "change control: also compare with a baseline (a config file, a directory holding one, or git:REV)")
    .addHelpText(
      "after",
      `
Output formats:
  text    compiler-style lines, file:line:column severity message [rule], with a source excerpt
  json    { findings: [{ rule, severity, message, file, line, column, path, fingerprint }], errors, warnings }
  sarif   SARIF 2.1.0 for code-scanning dashboards
  github  ::error file=...,line=...,col=...,title=RULE::message annotations for GitHub Actions

Storm files (the config's storms:, default storms/; see failbook storm --help) are checked
too: their schema and the storm-* rules.

Rules and their default severities: docs/rules.md, or \`failbook lint --format sarif\`.
Change a rule's severity (or turn it off) in failbook.yaml:
  rules:
    matcher-message-contains: warning

Change control (--against REF): REF is a config file, a directory holding failbook.yaml, or
git:REV (the same files as committed at REV, e.g. git:origin/main; a CI checkout needs the
history: fetch-depth: 0). Adds the change/* findings: a removed code, a retryable flag
flipped, a new code or class without an adr, a changed action without a golden fixture, a
registry edit without a revision bump, and every fixture whose outcome changes.

Exit status: 0 no finding at or above --fail-on; 1 there is one; 2 lint could not run
(no failbook.yaml, a missing file, a bad flag).

Examples:
  failbook lint
  failbook lint --format github --fail-on warning
  failbook lint --against git:origin/main --format github
  failbook lint --write-baseline .failbook-baseline.json && failbook lint --baseline .failbook-baseline.json`,
    )
    .action(run((io, globals, flags: LintFlags) => lint(io, globals, flags as LintFlags & Record<string, unknown>)));
};

async function lint(io: Io, globals: { config?: string }, flags: LintFlags & Record<string, unknown>): Promise<number> {
  const format = choiceFlag("--format", flags.format, LINT_FORMATS, "text");
  const failOn = choiceFlag("--fail-on", flags.failOn, SEVERITIES, "error");
  let findings: Finding[];
  let sources: Project["sources"];
  try {
    const { project, findings: loadFindings } = loadFor(io, { ...globals, color: true }, { locateDeep: true });
    findings = lintProject(project, loadFindings);
    const storms = lintStorms(project, loadStorms(project));
    if (storms.length > 0) findings = sortFindings([...findings, ...storms]);
    if (flags.against) {
      // Change control loads only when asked for: it reads a baseline and runs every fixture twice.
      const { changeFindings } = await import("../change/against.js");
      findings = sortFindings([...findings, ...(await changeFindings(project, flags.against))]);
    }
    sources = project.sources;
  } catch (e) {
    if (!(e instanceof InvalidProject)) throw e;
    findings = e.findings;
    sources = e.sources;
  }

  // Every format and the baseline file print these: redact them once, before any encodes them.
  findings = redactFindings(findings, (text) => io.redact(text));
  if (flags.writeBaseline) {
    const written = serializeBaseline(findings);
    io.writeFile(resolve(flags.writeBaseline), written.text, { shown: flags.writeBaseline });
    io.err(`wrote ${plural(written.recorded, "finding")} to baseline ${flags.writeBaseline}\n`);
    if (written.refused > 0) io.err(`failbook: ${plural(written.refused, "error")} not recorded: a baseline never hides yaml-syntax or schema errors; fix them (failbook lint shows them)\n`);
    return 0;
  }
  let baseline: BaselineSummary | undefined;
  if (flags.baseline) {
    const applied = applyBaseline(findings, readBaseline(resolve(flags.baseline), flags.baseline));
    findings = applied.findings;
    baseline = applied.summary;
  }

  io.out(render(format, findings, io, (f) => sources.get(f)?.text, baseline));
  if (baseline && format === "text") {
    if (baseline.suppressed > 0) io.err(`${plural(baseline.suppressed, "finding")} suppressed by baseline ${flags.baseline}\n`);
    if (baseline.stale.length > 0) {
      io.err(`${plural(baseline.stale.length, "baseline entry", "baseline entries")} no longer occur (rewrite the baseline with --write-baseline to drop them):\n`);
      // The entries come from the baseline file: each prints as one line of data.
      for (const s of baseline.stale) io.err(`  ${inert(s.file)} [${inert(s.rule)}] ${inert(s.message)}\n`);
    }
  }
  return findings.some((f) => SEVERITY_RANK[f.severity] >= SEVERITY_RANK[failOn as Severity]) ? 1 : 0;
}

function render(format: LintFormat, findings: Finding[], io: Io, sourceText: (f: string) => string | undefined, baseline?: BaselineSummary): string {
  switch (format) {
    case "text":
      return formatText(findings, { c: io.c, sourceText });
    case "json":
      return formatJson(findings, baseline);
    case "sarif":
      return formatSarif(findings, allRuleMeta(), VERSION);
    case "github":
      return formatGithub(findings);
  }
}
