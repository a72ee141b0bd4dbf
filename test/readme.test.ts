import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allRuleMeta } from "../src/index.js";
import { REPO } from "./helpers/cli.js";

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

  it("gives the two-command quick start and the test command", () => {
    expect(readme).toContain("npm install && npx failbook lint");
    expect(readme).toContain("npm test");
  });
});
