import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { allRuleMeta } from "../src/index.js";
import { OUTCOME_KINDS } from "failbook-runtime/model/outcome.js";
import { builtFrom } from "../scripts/build-inputs.mjs";
import { REPO, failbook, tempProject } from "./helpers/cli.js";

const read = (file: string): string => readFileSync(join(REPO, file), "utf8");
/** Every page under docs/ (not the ADRs), as `docs/NAME.md`. */
const DOC_PAGES = readdirSync(join(REPO, "docs")).filter((f) => f.endsWith(".md")).sort().map((f) => `docs/${f}`);

describe("README", () => {
  const readme = read("README.md");

  it("documents every lint rule with its current default severity and description (docs/rules.md)", () => {
    const rules = read("docs/rules.md");
    for (const rule of allRuleMeta()) {
      const row = rules.split("\n").find((l) => l.includes(`\`${rule.id}\``) && l.startsWith("| <a id="));
      expect(row, `docs/rules.md lacks ${rule.id}; run npm run docs`).toBeDefined();
      expect(row).toContain(`| ${rule.severity} |`);
      expect(row).toContain(rule.description.replace(/\|/g, "\\|"));
    }
  });

  it("has a rule table and an action reference that the generator reproduces exactly", () => {
    const r = spawnSync(process.execPath, ["scripts/rules-table.mjs", "--check"], { cwd: REPO, encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
  });

  it("tells a team how to add failbook to its own repository: install, init, scripts, CI", () => {
    const start = readme.indexOf("## Add failbook to your repository");
    expect(start).toBeGreaterThanOrEqual(0);
    const end = readme.indexOf("\n## ", start + 1);
    const section = readme.slice(start, end < 0 ? undefined : end);
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
      // SPEC 17: the runtime as a dependency, a service of each module kind on PROJECT, loadProject's option, npm 11's warning
      "npm install ./failbook-runtime-0.1.0.tgz",
      'import { createDispatcher } from "failbook-runtime";',
      'const { createDispatcher } = require("failbook-runtime");',
      "createDispatcher({ project: PROJECT })",
      'pass loadProject({ config: "path/to/failbook.yaml" })',
      "allowScripts",
    ]) expect(section, text).toContain(text);
    const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string };
    expect(section).toContain(`failbook-${pkg.version}.tgz`);
  });

  it("gives the two-command quick start and the test command", () => {
    expect(readme).toContain("npm install && npx failbook lint");
    expect(readme).toContain("npm test");
  });

  it("runs the quick start's `npx failbook lint` on this clone's failbook as installed, building nothing again", () => {
    // As a user's shell runs it after `npm install` (which built dist/, as `npm test` has): none of
    // npm test's npm_* variables, and an npm cache of its own, empty, as on a fresh machine.
    const command = /^npm install && (npx failbook lint)\b/m.exec(readme)?.[1]?.split(" ");
    expect(command).toEqual(["npx", "failbook", "lint"]);
    const cache = mkdtempSync(join(tmpdir(), "failbook-npx-cache-"));
    const env: NodeJS.ProcessEnv = { NO_COLOR: "1" };
    for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && k !== "INIT_CWD") env[k] = v;
    env.npm_config_cache = cache;
    const built = () => ["dist/.build-inputs", "dist/bundle/cli.cjs"].map((f) => statSync(join(REPO, f)).mtimeMs);
    // Else npx's prepare would rebuild dist/ under the files running beside this one.
    expect(builtFrom(REPO), "dist/ is not a build of the sources as they are: npm run build").toBe(true);
    const before = built();
    try {
      const started = Date.now();
      const r = spawnSync(command![0]!, command!.slice(1), { cwd: REPO, env, encoding: "utf8" });
      const took = Date.now() - started;
      expect(r.stderr).toBe("");
      expect(r.stdout).toBe(failbook(["lint"]).stdout);
      expect(r.status).toBe(0);
      // npx runs a package's own bin through its cache: there, only a link to this clone. Its
      // `prepare` found dist/ current (a second build took a minute; npx itself, about one second).
      const linked = readdirSync(join(cache, "_npx")).map((d) => realpathSync(join(cache, "_npx", d, "node_modules/failbook")));
      expect(linked).toEqual([realpathSync(REPO)]);
      expect(built()).toEqual(before);
      expect(took).toBeLessThan(15_000);
      const version = spawnSync("npx", ["--no-install", "failbook", "--version"], { cwd: REPO, env, encoding: "utf8" });
      expect(version.stdout.trim()).toBe((JSON.parse(read("package.json")) as { version: string }).version);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it("shows command samples that are exactly what failbook prints today (npm run docs regenerates them)", () => {
    const r = spawnSync(process.execPath, ["scripts/doc-samples.mjs", "--check"], { cwd: REPO, encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    // The check covers the samples a reader copies: classify's positions, simulate's timeline.
    expect(readme).toMatch(/^\$ failbook classify --error /m);
    expect(readme).toMatch(/^\$ failbook simulate playbooks\/fixtures\//m);
  });

  it("fills a new, empty sample in after its command line, not before its fence", async () => {
    const { regenerate } = (await import("../scripts/doc-samples.mjs")) as { regenerate(text: string): { next: string; stale: string[] } };
    const version = failbook(["--version"]).stdout;
    expect(regenerate("text\n\n```\n$ failbook --version\n```\n")).toEqual({ next: `text\n\n\`\`\`\n$ failbook --version\n${version}\`\`\`\n`, stale: ["--version"] });
  });

  it("lists every outcome kind wherever it lists them", () => {
    const lists = ["README.md", ...DOC_PAGES].flatMap((file) => read(file).split("\n").filter((l) => l.includes("outcome.kind: ")).map((l) => ({ file, l })));
    expect(lists.filter((x) => x.file === "docs/library.md").length).toBeGreaterThan(0);
    for (const { file, l } of lists) for (const kind of OUTCOME_KINDS) expect(l, file).toMatch(new RegExp(`\\b${kind}\\b`));
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
    const page = read("docs/lint.md");
    const doc = page.slice(page.indexOf("- `--format json`: `{ \"findings\""), page.indexOf("- `--format sarif`"));
    for (const key of keys) expect(doc, `docs/lint.md's --format json lacks "${key}"`).toContain(`"${key}"`);
  });
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
}

/** The anchors a Markdown file defines: its headings (outside code fences) and `<a id>`s. */
function anchors(text: string): Set<string> {
  const out = new Set<string>();
  let fenced = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    else if (!fenced && /^#{1,6} /.test(line)) out.add(slug(line.replace(/^#+ /, "")));
  }
  for (const m of text.matchAll(/<a id="([^"]+)"><\/a>/g)) out.add(m[1] as string);
  return out;
}

/** The relative links of a Markdown file (outside code fences), as `[text](target)` targets. */
function links(text: string): string[] {
  const prose = text.split(/^```[^\n]*\n[\s\S]*?^```$/m).join("\n");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string).filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

describe("docs", () => {
  const readme = read("README.md");
  const index = read("docs/README.md");

  it("links every page under docs/ from the README or docs/README.md", () => {
    const linked = new Set([...links(readme).map((t) => t.split("#")[0]), ...links(index).map((t) => `docs/${t.split("#")[0]}`)]);
    for (const page of DOC_PAGES) if (page !== "docs/README.md") expect(linked, `${page} is linked from neither README.md nor docs/README.md`).toContain(page);
    expect(links(readme)).toContain("docs/README.md");
  });

  it("has no relative link in README.md or docs/*.md to a file or an anchor that does not exist", () => {
    const broken: string[] = [];
    for (const file of ["README.md", ...DOC_PAGES]) {
      for (const target of links(read(file))) {
        const [path, anchor] = target.split("#") as [string, string | undefined];
        const resolved = path === "" ? file : join(dirname(file), path);
        if (!existsSync(join(REPO, resolved))) broken.push(`${file}: ${target} (no ${resolved})`);
        else if (anchor !== undefined && resolved.endsWith(".md") && !anchors(read(resolved)).has(anchor)) broken.push(`${file}: ${target} (no #${anchor} in ${resolved})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("keeps the README an overview a newcomer reads in ten minutes, with a page per command", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(250);
    for (const page of ["lint", "simulate", "classify", "gen-ts", "gen-py", "gen-jsonschema", "render-explain", "change-control", "mcp", "replay", "init-new", "explore", "github-action"]) {
      expect(links(readme), page).toContain(`docs/${page}.md`);
    }
  });
});
