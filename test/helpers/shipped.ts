/** Throwaway projects over the shipped registry and playbook. */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO, tempProject } from "./cli.js";

/** A copy of the whole shipped project (registry, playbook, fixtures). */
export function shippedCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), "failbook-sim-"));
  cpSync(join(REPO, "playbooks"), join(dir, "playbooks"), { recursive: true });
  writeFileSync(join(dir, "failbook.yaml"), "registry: playbooks/registry.yaml\nplaybook: playbooks/playbook.yaml\nfixtures: [playbooks/fixtures]\n");
  return dir;
}

/** The shipped registry and playbook with one fixture file, `f.yaml`; `config` adds lines to failbook.yaml. */
export function withShippedRules(fixtureLines: string[], config = ""): string {
  return tempProject({
    "failbook.yaml": `registry: r.yaml\nplaybook: p.yaml\nfixtures: [f.yaml]\n${config}`,
    "r.yaml": readFileSync(join(REPO, "playbooks/registry.yaml"), "utf8"),
    "p.yaml": readFileSync(join(REPO, "playbooks/playbook.yaml"), "utf8"),
    "f.yaml": fixtureLines.join("\n"),
  });
}
