import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allRuleMeta } from "../src/index.js";
import { OUTCOME_KINDS } from "../src/model/outcome.js";
import { REPO, failbook, tempProject } from "./helpers/cli.js";

describe("README", () => {
  const readme = readFileSync(join(REPO, "README.md"), "utf8");

  it("documents every lint rule with its current default severity and description", () => {
    for (const rule of allRuleMeta()) {
      const row = readme.split("\n").find((l) => l.includes(`\`${rule.id}\``) && l.startsWith("| <a id="));
      expect(row, `README rule table lacks ${rule.id}; run npm run docs`).toBeDefined();
      expect(row).toContain(`| ${rule.severity} |`);
      expect(row).toContain(rule.description.replace(/\|/g, "\\|"));
    }
  });

  it("has a rule table that the generator reproduces exactly", () => {
    const r = spawnSync(process.execPath, ["scripts/rules-table.mjs", "--check"], { cwd: REPO, encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
  });

  it("tells a team how to add failbook to its own repository: install, init, scripts, CI", () => {
    const section = readme.slice(readme.indexOf("## Add failbook to your repository"), readme.indexOf("## The files"));
    for (const text of [
      "npm install -D ./failbook-0.1.0.tgz",
      "npm install -D github:OWNER/failbook",
      "npx failbook init .",
      "init --adr",
      "--force",
      '"failbook:check": "failbook lint && failbook simulate && failbook storm && failbook gen ts --check"',
      "fetch-depth: 0",
      "npm run failbook:check",
      "--format github",
    ]) expect(section, text).toContain(text);
    const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string };
    expect(section).toContain(`failbook-${pkg.version}.tgz`);
  });

  it("gives the two-command quick start and the test command", () => {
    expect(readme).toContain("npm install && npx failbook lint");
    expect(readme).toContain("npm test");
  });

  it("shows command samples that are exactly what failbook prints today (npm run docs regenerates them)", () => {
    const r = spawnSync(process.execPath, ["scripts/doc-samples.mjs", "--check"], { cwd: REPO, encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    // The check covers the samples a reader copies: classify's positions, simulate's timeline.
    expect(readme).toMatch(/^\$ failbook classify --error /m);
    expect(readme).toMatch(/^\$ failbook simulate playbooks\/fixtures\//m);
  });

  it("lists every outcome kind wherever it lists them", () => {
    const docs = [readme, readFileSync(join(REPO, "docs/simulate.md"), "utf8")];
    for (const doc of docs) {
      const lists = doc.split("\n").filter((l) => l.includes("outcome.kind: "));
      expect(lists.length).toBeGreaterThan(0);
      for (const list of lists) for (const kind of OUTCOME_KINDS) expect(list).toMatch(new RegExp(`\\b${kind}\\b`));
    }
  });

  it("names every field of lint's JSON output", () => {
    const dir = tempProject({
      "failbook.yaml": "registry: r.yaml\nplaybook: p.yaml\n",
      "r.yaml": "apiVersion: failbook/v1\nkind: Registry\nname: x\nrevision: 1\nclasses: { t: { description: T. } }\nverdicts:\n  - { code: a, class: t, retryable: false, summary: A., recovery: R., match: [{ kind: k }] }\n  - { code: b, class: t, retryable: false, summary: B., recovery: R., match: [{ kind: k }] }\nfallback: a\n",
      "p.yaml": "apiVersion: failbook/v1\nkind: Playbook\nname: p\nverdicts:\n  a: { action: fail }\n  b: { action: fail }\n",
    });
    const written = failbook(["lint", "--write-baseline", "base.json"], { cwd: dir });
    expect(written.code).toBe(0);
    const out = JSON.parse(failbook(["lint", "--format", "json", "--baseline", "base.json"], { cwd: dir }).stdout) as Record<string, unknown>;
    const direct = JSON.parse(failbook(["lint", "--format", "json"], { cwd: dir }).stdout) as { findings: Record<string, unknown>[] };
    const keys = new Set([...Object.keys(out), ...direct.findings.flatMap((f) => Object.keys(f))]);
    expect(keys).toContain("related"); // the shadowed rule names the rule that shadows it
    expect(keys).toContain("baseline");
    const doc = readme.slice(readme.indexOf("- `--format json`: `{ \"findings\""), readme.indexOf("- `--format sarif`"));
    for (const key of keys) expect(doc, `README's lint --format json lacks "${key}"`).toContain(`"${key}"`);
  });
});
