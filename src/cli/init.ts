/** `failbook init [DIR]`: a starter project that lints clean, never over existing files unless told. */
import { existsSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { UsageError } from "failbook-runtime/model/errors.js";
import { starterFiles, TEMPLATES } from "../load/starter.js";
import { ancestors, pathExists, writeFileAtomic } from "../util/fs.js";
import { choiceFlag, type CommandRegistrar } from "./command.js";

interface InitOptions {
  adr?: boolean;
  force?: boolean;
  template?: string;
}

export const registerInit: CommandRegistrar = (program, run) => {
  program
    .command("init")
    .description("write a starter config, registry, playbook and fixtures that pass lint and simulate")
    .argument("[dir]", "where to create the project", ".")
    .option("--template <name>", `which starter: ${TEMPLATES.join(" | ")} (default agent)`)
    .option("--adr", "also write docs/adr/ with the ADRs the registry cites, and check them (adr_dir)")
    .option("--force", "overwrite files that already exist")
    .addHelpText(
      "after",
      `
Writes failbook.yaml, playbooks/registry.yaml, playbooks/playbook.yaml and fixtures under
playbooks/fixtures/, from a template:
  agent     failbook's recommended taxonomy for tool-calling agents, with one fixture
            (refund-with-conflict.yaml)
  http-api  a service calling an HTTP API: 429 with Retry-After, 502/503, 504, timeouts,
            connection resets, 4xx validation errors, 401 (refresh_credentials), with an
            attempt timeout, a circuit breaker and a retry budget; a fixture for each
            verdict (throttling.yaml, timeouts.yaml, refusals.yaml)
The project stands alone: it cites nothing it does not write, and \`failbook lint\` and
\`failbook simulate\` pass in it. With --adr (agent only) the registry keeps its adr:
references, the ADRs they name are written to docs/adr/, and the config sets adr_dir so
lint checks them.

Each file's yaml-language-server modeline points editors at failbook's JSON Schemas in the
node_modules that holds failbook (up the tree, as Node resolves it), else in the one beside
the nearest package.json, else beside the project.

Nothing is overwritten: if any of these files exists, init names them, writes nothing and
exits 2. --force overwrites them.

Examples:
  failbook init my-agent && cd my-agent && failbook lint
  failbook init . --adr
  failbook init orders-client --template http-api && cd orders-client && failbook simulate`,
    )
    .action(
      run((io, _globals, dir: string, options: InitOptions) => {
        const template = choiceFlag("--template", options.template, TEMPLATES, "agent");
        if (options.adr === true && template !== "agent") throw new UsageError(`--adr applies to --template agent only: the ${template} starter cites no ADRs (drop --adr)`);
        const target = resolve(dir);
        const files = starterFiles({ template, adr: options.adr === true, schemas: relative(target, schemaDirectory(target)).split(sep).join("/") });
        // lstat, not exists: a dangling link counts too, or init would write wherever it points.
        const existing = Object.keys(files).filter((f) => pathExists(join(target, f)));
        if (existing.length > 0 && options.force !== true) {
          throw new UsageError(`init would overwrite ${existing.map((f) => join(dir, f)).join(", ")}; nothing was written (choose an empty directory, or pass --force to overwrite them)`);
        }
        for (const [path, content] of Object.entries(files)) writeFileAtomic(join(target, path), content, { shown: join(dir, path) });
        const shown = relative(process.cwd(), target) || ".";
        const overwritten = new Set(existing);
        const listed = Object.keys(files).map((f) => `  ${f}${overwritten.has(f) ? "  (overwritten)" : ""}\n`).join("");
        io.out(`created a failbook project in ${shown}:\n${listed}next: ${shown === "." ? "" : `cd ${shown} && `}npx failbook lint\n`);
        return 0;
      }),
    );
};

/**
 * Where editors will find failbook's schemas from a project at `target`: the node_modules
 * up the tree that holds failbook (hoisted to a workspace's root, say), else the one beside
 * the nearest package.json (where npm will install it), else one beside the project.
 */
export function schemaDirectory(target: string): string {
  const installed = (dir: string) => join(dir, "node_modules", "failbook", "schemas");
  const up = [...ancestors(target)];
  return installed(up.find((dir) => existsSync(installed(dir))) ?? up.find((dir) => existsSync(join(dir, "package.json"))) ?? target);
}
