/** `failbook render`: the error-code registry as Markdown, a self-contained HTML page, or JSON. */
import { Option } from "commander";
import { extname, resolve } from "node:path";
import { UsageError } from "failbook-runtime/model/errors.js";
import type { Loaded, Project } from "../load/project.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import type { Registry } from "failbook-runtime/model/registry.js";
import { NotRenderable, projectModel, renderModel, RENDER_FORMATS, type RenderFormat } from "../render/render.js";
import type { RegistryModel } from "../render/model.js";
import { FileRefused } from "../util/fs.js";
import { plural } from "../util/text.js";
import { type CommandRegistrar, findingsText, type Globals, loadFor, refusesSecrets } from "./command.js";
import type { Io } from "./io.js";

interface RenderFlags {
  format?: RenderFormat;
  out?: string;
}

const BY_EXTENSION: Record<string, RenderFormat> = { ".md": "md", ".markdown": "md", ".html": "html", ".htm": "html", ".json": "json" };

export const registerRender: CommandRegistrar = (program, run) => {
  program
    .command("render")
    .description("the error-code registry as Markdown, a self-contained HTML page, or JSON")
    .argument("[format]", "md, html or json: the same as --format")
    .addOption(new Option("--format <format>", "md, html or json (default: from the --out extension, else md)").choices([...RENDER_FORMATS]))
    .option("--out <file>", "write to this file (atomically) instead of stdout")
    .addHelpText(
      "after",
      `
Formats:
  md    a table of every active and deprecated code (code, class, retryable, side effect,
        status, summary, playbook action), the classes, the reserved codes apart, then a
        section per code: cause, recovery, safe and unsafe next actions, worst case, match
        rules, details schema, ADR. Fit for a repository's docs/.
  html  one self-contained page to publish as the team's error-code index: search box,
        filters by class and status, an anchor per code (page.html#net.timeout),
        deprecated codes struck through and linked to their replacement, light and dark
        mode, phone layout. No external request: inline CSS and JS only.
  json  every code with its guidance, action and worst case, for other tools; the shape is
        the JSON Schema schemas/render.schema.json (format_version 1).

Codes are sorted. The output is deterministic (no timestamps), and secrets are redacted
(built-in patterns plus the config's redact: list); a string of the registry or playbook
that lint's secret-in-project flags is refused: one located line each, nothing written.

Exit status: 0 rendered; 1 the registry or playbook is invalid (the findings are printed),
or one of its strings holds a secret;
2 render could not run (no failbook.yaml, a missing file, a bad flag, an unwritable --out).

Examples:
  failbook render > docs/error-codes.md
  failbook render html > errors.html
  failbook render --out public/errors.html
  failbook render --format json | jq '.codes[] | select(.retryable) | .code'`,
    )
    .action(run((io, globals, positional: string | undefined, flags: RenderFlags) => render(io, globals, { ...flags, ...formatArgument(positional, flags) })));
};

/** `render html` is `render --format html`; both at once must agree. */
function formatArgument(positional: string | undefined, flags: RenderFlags): { format?: RenderFormat } {
  if (positional === undefined) return {};
  if (!(RENDER_FORMATS as readonly string[]).includes(positional)) {
    throw new UsageError(`unknown format '${positional}': render takes md, html or json (failbook render html, or --format html)`);
  }
  if (flags.format !== undefined && flags.format !== positional) throw new UsageError(`render was given two formats, '${positional}' and --format ${flags.format}; give one`);
  return { format: positional as RenderFormat };
}

function render(io: Io, globals: Globals, flags: RenderFlags): number {
  const format = flags.format ?? (flags.out ? BY_EXTENSION[extname(flags.out).toLowerCase()] : undefined) ?? "md";
  const loaded = loadModel(io, globals, "render");
  if (!loaded) return 1;
  if (refusesSecrets(io, loaded.project, [loaded.registry.doc, loaded.playbook.doc], flags.out ?? "stdout")) return 1;
  const text = renderModel(loaded.model, format);
  if (flags.out === undefined) {
    io.out(text);
    return 0;
  }
  writeOutput(io, flags.out, text);
  io.err(`wrote ${plural(loaded.model.codes.length, "code")} of registry ${loaded.model.registry.name} as ${format} to ${flags.out}\n`);
  return 0;
}

function writeOutput(io: Io, out: string, text: string): void {
  try {
    io.writeFile(resolve(out), text, { shown: out });
  } catch (e) {
    if (e instanceof FileRefused) throw e; // a file failbook will not replace: its own located line
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new UsageError(`cannot write --out ${out}: ${code}; choose a file path in a writable directory`);
  }
}

export interface LoadedModel {
  project: Project;
  registry: Loaded<Registry>;
  playbook: Loaded<Playbook>;
  model: RegistryModel;
}

/**
 * Load the project and build the rendered model. When the registry or playbook did not load,
 * print why (the load findings) and return undefined: the caller exits 1.
 */
export function loadModel(io: Io, globals: Globals, command: string): LoadedModel | undefined {
  const { project, findings } = loadFor(io, globals);
  try {
    const model = projectModel(project);
    if (!project.registry || !project.playbook) throw new NotRenderable(project.registry ? "playbook" : "registry");
    return { project, registry: project.registry, playbook: project.playbook, model };
  } catch (e) {
    if (!(e instanceof NotRenderable)) throw e;
    const relevant = findings.filter((f) => f.severity === "error");
    io.err(findingsText(io, relevant, project.sources));
    io.err(`failbook: cannot ${command}: the ${e.missing} is invalid; fix the errors above (failbook lint shows them all)\n`);
    return undefined;
  }
}
