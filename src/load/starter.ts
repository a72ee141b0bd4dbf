/**
 * The starter project `failbook init` writes: the recommended taxonomy and playbook that
 * ship in this package's playbooks/, one fixture, and a config over them.
 */
import { readFileSync } from "node:fs";
import { packageFile } from "../version.js";


const CONFIG = `# yaml-language-server: $schema=./node_modules/failbook/schemas/config.schema.json
# failbook project: \`npx failbook lint\` checks it, \`npx failbook simulate\` replays the fixtures.
registry: playbooks/registry.yaml
playbook: playbooks/playbook.yaml
fixtures: [playbooks/fixtures]
gen:
  ts: src/generated/failbook.ts
`;

/** Relative path -> content of every file of the starter project. */
export function starterFiles(): Record<string, string> {
  const read = (path: string) => readFileSync(packageFile(path), "utf8");
  // Editors find the schemas in the installed package rather than in failbook's own tree.
  const schemaFrom = (text: string, depth: string) => text.replace(/\$schema=(?:\.\.\/)+schemas\//, `$schema=${depth}node_modules/failbook/schemas/`);
  return {
    "failbook.yaml": CONFIG,
    "playbooks/registry.yaml": schemaFrom(read("playbooks/registry.yaml"), "../"),
    "playbooks/playbook.yaml": schemaFrom(read("playbooks/playbook.yaml"), "../"),
    "playbooks/fixtures/refund-with-conflict.yaml": schemaFrom(read("playbooks/fixtures/refund-with-conflict.yaml"), "../../"),
  };
}
