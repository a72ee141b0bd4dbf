/** `failbook init [DIR]`: a starter project that lints clean, never over existing files. */
import { join, relative, resolve } from "node:path";
import { UsageError } from "../model/errors.js";
import { starterFiles } from "../load/starter.js";
import { pathExists, writeFileAtomic } from "../util/fs.js";
import type { CommandRegistrar } from "./command.js";

export const registerInit: CommandRegistrar = (program, run) => {
  program
    .command("init")
    .description("write a starter config, registry, playbook and fixture that pass lint")
    .argument("[dir]", "where to create the project", ".")
    .addHelpText(
      "after",
      `
Writes failbook.yaml, playbooks/registry.yaml, playbooks/playbook.yaml and
playbooks/fixtures/refund-with-conflict.yaml: failbook's recommended taxonomy for
tool-calling agents. Nothing is overwritten: if any of these files exists, init writes
nothing and exits 2.

Example:
  failbook init my-agent && cd my-agent && failbook lint`,
    )
    .action(
      run((io, _globals, dir: string) => {
        const target = resolve(dir);
        const files = starterFiles();
        // lstat, not exists: a dangling link counts too, or init would write wherever it points.
        const existing = Object.keys(files).filter((f) => pathExists(join(target, f)));
        if (existing.length > 0) {
          throw new UsageError(`init would overwrite ${existing.map((f) => join(dir, f)).join(", ")}; nothing was written (choose an empty directory)`);
        }
        for (const [path, content] of Object.entries(files)) writeFileAtomic(join(target, path), content, { shown: join(dir, path) });
        const shown = relative(process.cwd(), target) || ".";
        io.out(`created a failbook project in ${shown}:\n${Object.keys(files).map((f) => `  ${f}\n`).join("")}next: ${shown === "." ? "" : `cd ${shown} && `}npx failbook lint\n`);
        return 0;
      }),
    );
};
