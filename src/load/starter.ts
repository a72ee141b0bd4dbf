/**
 * The starter projects `failbook init` writes. `agent` (the default): the recommended
 * taxonomy and playbook that ship in this package's playbooks/, one fixture, and a config
 * over them. `http-api`: playbooks/starters/http-api/, a service calling an HTTP API, with
 * fixtures for each of its verdicts. A starter stands alone:
 * it cites nothing it does not write. Without ADRs the registry's `adr:` references are
 * left out; with them, the ADRs the registry cites are written to docs/adr/ and the config
 * sets `adr_dir`, so lint checks every reference.
 */
import { readdirSync, readFileSync } from "node:fs";
import { posix } from "node:path";
import { packageFile } from "../version.js";

/** The starters `init --template` writes, the default first. */
export const TEMPLATES = ["agent", "http-api"] as const;
export type Template = (typeof TEMPLATES)[number];

/** Each starter's files: project path -> the shipped file it is written from. */
const SHIPPED: Record<Template, Record<string, string>> = {
  agent: {
    "playbooks/registry.yaml": "playbooks/registry.yaml",
    "playbooks/playbook.yaml": "playbooks/playbook.yaml",
    "playbooks/fixtures/refund-with-conflict.yaml": "playbooks/fixtures/refund-with-conflict.yaml",
  },
  "http-api": Object.fromEntries(
    ["registry.yaml", "playbook.yaml", "fixtures/throttling.yaml", "fixtures/timeouts.yaml", "fixtures/refusals.yaml"].map((f) => [`playbooks/${f}`, `playbooks/starters/http-api/${f}`]),
  ),
};

export interface StarterOptions {
  /** Which starter: `agent` (default) or `http-api`. */
  template?: Template;
  /** Write docs/adr/ with the ADRs the registry cites, and keep the citations. */
  adr?: boolean;
  /**
   * Where editors find failbook's JSON Schemas, relative to the project (POSIX separators):
   * the modeline of each file points there from the file's own directory. Default:
   * node_modules/failbook/schemas, beside the project.
   */
  schemas?: string;
}

const config = (adr: boolean, schema: string) => `# yaml-language-server: $schema=${schema}
# failbook project: \`npx failbook lint\` checks it, \`npx failbook simulate\` replays the fixtures.
registry: playbooks/registry.yaml
playbook: playbooks/playbook.yaml
fixtures: [playbooks/fixtures]
${adr ? "adr_dir: docs/adr                      # every `adr:` reference must resolve to a file here\n" : ""}gen:
  ts: src/generated/failbook.ts
`;

/** A verdict's or a class's `adr: ADR-NNNN` line. */
const ADR_LINE = /^[ \t]+adr:[ \t]*(\S+)[ \t]*\r?\n/gm;

/** Relative path -> content of every file of the starter project. */
export function starterFiles(options: StarterOptions = {}): Record<string, string> {
  const read = (path: string) => readFileSync(packageFile(path), "utf8");
  // Editors find the schemas in the installed package rather than in failbook's own tree.
  const schemas = options.schemas ?? "node_modules/failbook/schemas";
  const schemaFor = (file: string, name: string) => {
    const path = posix.relative(posix.dirname(file), posix.join(schemas, name));
    return path.startsWith("../") || posix.isAbsolute(path) ? path : `./${path}`;
  };
  // Each file's modeline is rewritten for where it lands in the project.
  const shipped = (file: string, from: string) => read(from).replace(/\$schema=(?:\.\.\/)+schemas\/([\w.-]+)/, (_, name: string) => `$schema=${schemaFor(file, name)}`);
  const files: Record<string, string> = { "failbook.yaml": config(options.adr === true, schemaFor("failbook.yaml", "config.schema.json")) };
  for (const [file, from] of Object.entries(SHIPPED[options.template ?? "agent"])) files[file] = shipped(file, from);
  const registry = files["playbooks/registry.yaml"] as string;
  if (options.adr !== true) files["playbooks/registry.yaml"] = registry.replace(ADR_LINE, "");
  if (options.adr === true) {
    const cited = new Set([...registry.matchAll(ADR_LINE)].map((m) => m[1] as string));
    const shipped = readdirSync(packageFile("docs/adr/")).filter((f) => f.endsWith(".md")).sort();
    for (const id of [...cited].sort()) {
      const file = shipped.find((f) => f === `${id}.md` || f.startsWith(`${id}-`));
      if (file === undefined) throw new Error(`the starter registry cites ${id}, which failbook does not ship in docs/adr/`);
      files[`docs/adr/${file}`] = read(`docs/adr/${file}`);
    }
  }
  return files;
}
