/** `failbook new fixture --verdict CODE`: scaffold a fixture for one verdict, golden included. */
import { statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { UsageError } from "failbook-runtime/model/errors.js";
import { verdictByCode } from "failbook-runtime/engine/classify.js";
import { configFixtures, type Project } from "../load/project.js";
import { projectRules } from "../simulate/project.js";
import { scaffoldFixture, ScaffoldError } from "../simulate/scaffold.js";
import { pathExists, writeFileAtomic } from "../util/fs.js";
import { nearest } from "../util/text.js";
import { type CommandRegistrar, findingsText, type Globals, loadFor } from "./command.js";
import { schemaDirectory } from "./init.js";
import type { Io } from "./io.js";

interface NewFixtureFlags {
  verdict: string;
  name?: string;
  tool?: string;
  out?: string;
}

export const registerNew: CommandRegistrar = (program, run) => {
  const command = program.command("new").description("scaffold a project file: new fixture --verdict CODE");
  command
    .command("fixture")
    .description("write a fixture whose failure classifies to a verdict, with the golden its run records")
    .requiredOption("--verdict <code>", "the verdict the fixture's failure classifies to")
    .option("--name <name>", "the fixture's name (default: the code, with - for _ and .)")
    .option("--tool <tool>", "the call's tool (default: the example's, else one the match rule accepts)")
    .option("--out <file>", "where to write it (default: NAME.yaml in the config's first fixtures directory)")
    .addHelpText(
      "after",
      `
The failure is the verdict's first example (examples: in the registry); without one, an
error built from its first match rule. Either way it is classified before it is used, so
the fixture's failure is known to classify to CODE. The call fails once, then succeeds;
the fixture is dispatched through the playbook and its expect block records what
happened (outcome, verdict, attempts, retried, reason, queue).

Nothing is overwritten: an existing --out file, a fixture name already in use or an
unknown code exits 2 with one line, and nothing is written.

Exit status: 0 written; 1 the registry or playbook is invalid; 2 new could not run (an
unknown code, an existing file, no failure classifies to the code, no failbook.yaml).

Examples:
  failbook new fixture --verdict rate_limited
  failbook new fixture --verdict transient_timeout --name refund-timeout --tool payments.refund
  failbook new fixture --verdict schema_mismatch --out playbooks/fixtures/schema.yaml`,
    )
    .action(run((io, globals, flags: NewFixtureFlags) => newFixture(io, globals, flags)));
};

async function newFixture(io: Io, globals: Globals, flags: NewFixtureFlags): Promise<number> {
  const { project, findings } = loadFor(io, globals);
  const rules = projectRules(project);
  if (!rules) {
    io.err(findingsText(io, findings, project.sources));
    io.err("failbook: cannot scaffold a fixture until the registry and playbook load; fix the errors above\n");
    return 1;
  }
  const verdict = verdictByCode(rules.registry, flags.verdict);
  if (!verdict) {
    const near = nearest(flags.verdict, rules.registry.verdicts.map((v) => v.code));
    throw new UsageError(`unknown verdict '${flags.verdict}': the registry has no such code; ${near.length > 0 ? `did you mean ${near.join(", ")}?` : "failbook render lists every code"}`);
  }
  const name = flags.name ?? verdict.code.replace(/[^A-Za-z0-9-]+/g, "-");
  if (project.fixtures.some((f) => f.value.name === name)) {
    throw new UsageError(`a fixture named '${name}' already exists in this project; nothing was written (choose another with --name)`);
  }
  const out = flags.out !== undefined ? resolve(flags.out) : join(defaultDirectory(project), `${name}.yaml`);
  // An --out is echoed as the user typed it; the default, relative to where they are.
  const shown = flags.out ?? (relative(process.cwd(), out) || out);
  if (pathExists(out)) throw new UsageError(`${shown} already exists; nothing was written (new fixture never overwrites: choose another --out or --name)`);

  let scaffold;
  try {
    scaffold = await scaffoldFixture(rules, verdict, { name, ...(flags.tool === undefined ? {} : { tool: flags.tool }) });
  } catch (e) {
    if (e instanceof ScaffoldError) throw new UsageError(e.message);
    throw e;
  }
  writeFileAtomic(out, modeline(out, project.root) + io.redact(scaffold.text), { shown });
  const expect = scaffold.fixture.expect ?? {};
  const action = rules.playbook.verdicts[verdict.code]?.action ?? "no action";
  io.out(`wrote ${shown}: fixture '${name}', its failure from the verdict's ${scaffold.source}; ${verdict.code} -> ${action} ends ${String(expect.outcome)} after ${String(expect.attempts)} ${expect.attempts === 1 ? "attempt" : "attempts"}\n`);
  if (!underFixtures(project, out)) io.out(`note: ${shown} is outside the config's fixtures, so failbook simulate will not run it; add it to fixtures: in ${relative(process.cwd(), project.configFile) || project.configFile}\n`);
  else io.out(`next: failbook simulate ${shown}\n`);
  return 0;
}

/** The config's first fixtures entry that is a directory: where a new fixture goes. */
function defaultDirectory(project: Project): string {
  for (const { value } of configFixtures(project.config)) {
    const dir = resolve(project.root, value);
    try {
      if (statSync(dir).isDirectory()) return dir;
    } catch {
      // A missing entry is the loader's to report.
    }
  }
  throw new UsageError("the config names no fixtures directory to write into; pass --out FILE (and list it under fixtures: in failbook.yaml)");
}

function underFixtures(project: Project, file: string): boolean {
  return configFixtures(project.config).some(({ value }) => {
    const entry = resolve(project.root, value);
    const rel = relative(entry, file);
    return rel === "" || (!rel.startsWith(".." + sep) && rel !== ".." && !isAbsolute(rel));
  });
}

/** The `yaml-language-server` modeline `init` writes, from the fixture's own directory to failbook's fixture schema. */
function modeline(file: string, root: string): string {
  const path = relative(dirname(file), join(schemaDirectory(root), "fixture.schema.json")).split(sep).join("/");
  return `# yaml-language-server: $schema=${path.startsWith("../") || isAbsolute(path) ? path : `./${path}`}\n`;
}
