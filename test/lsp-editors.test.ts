/**
 * The editor set-ups the docs show (SPEC 21, "Editors"): each runs the project's own failbook,
 * never one npx would fetch from the registry, and the Neovim 0.7 to 0.9 one (Debian 12 ships
 * 0.7.2) really attaches and shows lint's findings: docs/lsp.md's block, run by a headless
 * Neovim when one is installed (the test says so and skips when it is not).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { failbook, REPO, tempProject } from "./helpers/cli.js";

/** Where the docs and the CLI show an editor how to start the server. */
const SET_UPS = ["docs/lsp.md", "README.md", "editor/vscode/README.md", "editor/vscode/extension.js"];

/**
 * Each place a text starts `failbook ... lsp` through npx without `--no-install`: `npx failbook
 * lsp`, `{ "npx", "failbook", "lsp" }`, Helix's `command = "npx"` with `args = ["failbook",
 * "lsp"]`.
 */
function fetchingNpx(text: string): string[] {
  const words = text.split(/[\s{}[\](),="'`;:]+/).filter((w) => w !== "");
  const found: string[] = [];
  words.forEach((word, i) => {
    if (word !== "failbook" || !words.slice(i + 1, i + 5).includes("lsp")) return;
    const before = words.slice(Math.max(0, i - 2), i).filter((w) => w !== "args");
    if (before[before.length - 1] === "npx") found.push(words.slice(Math.max(0, i - 3), i + 4).join(" "));
  });
  return found;
}

describe("every documented editor set-up runs the project's own failbook", () => {
  it.each(SET_UPS)("%s starts npx --no-install failbook lsp, never a bare npx failbook lsp", (file) => {
    const text = readFileSync(join(REPO, file), "utf8");
    expect(fetchingNpx(text)).toEqual([]);
  });

  it("failbook lsp --help shows the same", () => {
    const help = failbook(["lsp", "--help"]).stdout;
    expect(help).toContain("--no-install");
    expect(fetchingNpx(help)).toEqual([]);
  });

  it("the VS Code extension's default command is the project's failbook", () => {
    const settings = JSON.parse(readFileSync(join(REPO, "editor/vscode/package.json"), "utf8")).contributes.configuration.properties;
    const command = [settings["failbook.server.command"].default, ...settings["failbook.server.args"].default];
    expect(command).toEqual(["npx", "--no-install", "failbook", "lsp"]);
  });

  it("the check finds the forms it is for", () => {
    expect(fetchingNpx('cmd = { "npx", "failbook", "lsp" }')).toHaveLength(1);
    expect(fetchingNpx("It starts `npx failbook lsp` for")).toHaveLength(1);
    expect(fetchingNpx('command = "npx"\nargs = ["failbook", "--config", "x.yaml", "lsp"]')).toHaveLength(1);
    expect(fetchingNpx('cmd = { "npx", "--no-install", "failbook", "lsp" }')).toEqual([]);
  });
});

describe("docs/storm.md's modeline", () => {
  it("points a storm file in storms/ at the storm schema of the failbook the project installed", () => {
    const doc = readFileSync(join(REPO, "docs/storm.md"), "utf8").replace(/\s+/g, " ");
    const path = /`# yaml-language-server: \$schema=([^`\s]+)`/.exec(doc)?.[1];
    expect(path, "docs/storm.md shows a storm modeline").toBeDefined();
    const project = "/srv/service";
    expect(resolve(project, "storms", path!)).toBe(resolve(project, "node_modules/failbook/schemas/storm.schema.json"));
    // The installed package has it there.
    expect((JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { files: string[] }).files).toContain("schemas");
    expect(existsSync(join(REPO, "schemas/storm.schema.json"))).toBe(true);
  });
});

const nvim = spawnSync("nvim", ["--version"], { encoding: "utf8" });
const NVIM = nvim.status === 0 ? nvim.stdout.split("\n")[0] : undefined;
if (!NVIM) console.log("test/lsp-editors.test.ts: no nvim on PATH, the Neovim set-up is not run (apt-get install neovim runs it)");

describe.skipIf(NVIM === undefined)(`docs/lsp.md's Neovim 0.7 to 0.9 set-up, in ${NVIM ?? "Neovim"}`, () => {
  it("attaches failbook lsp to a registry and shows lint's findings as diagnostics", () => {
    const doc = readFileSync(join(REPO, "docs/lsp.md"), "utf8");
    const block = /<!-- neovim-0\.7:[^\n]*-->\n```lua\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(block, "docs/lsp.md has the Neovim 0.7 block, marked").toBeDefined();
    const root = tempProject({
      "package.json": '{ "name": "service", "private": true }\n',
      "failbook.yaml": "registry: r.yaml\nplaybook: p.yaml\nfixtures: []\n",
      "r.yaml": readFileSync(join(REPO, "playbooks/registry.yaml"), "utf8").replace("class: transient\n", "class: transiant\n"),
      "p.yaml": readFileSync(join(REPO, "playbooks/playbook.yaml"), "utf8"),
    });
    // The project's own failbook, as npm install leaves it: npx --no-install finds it there.
    mkdirSync(join(root, "node_modules/.bin"), { recursive: true });
    symlinkSync(REPO, join(root, "node_modules/failbook"));
    symlinkSync("../failbook/bin/failbook.js", join(root, "node_modules/.bin/failbook"));
    const expected = (JSON.parse(failbook(["lint", "--format", "json"], { cwd: root }).stdout) as { findings: { file: string; rule: string; line: number }[] }).findings
      .filter((f) => f.file === "r.yaml")
      .map((f) => `${f.line} ${f.rule}`);
    expect(expected).toEqual(expect.arrayContaining([expect.stringMatching(/ class-unknown$/)]));
    writeFileSync(join(root, "init.lua"), block!);
    // Waits for the diagnostics lint's findings make, then writes what Neovim shows.
    writeFileSync(
      join(root, "probe.lua"),
      `vim.wait(30000, function() return #vim.diagnostic.get(0) >= ${expected.length} end, 100)
local shown = {}
for _, d in ipairs(vim.diagnostic.get(0)) do table.insert(shown, (d.lnum + 1) .. " " .. tostring(d.code)) end
table.sort(shown)
local clients = {}
for _, c in pairs(vim.lsp.buf_get_clients(0)) do table.insert(clients, c.name .. " " .. c.config.root_dir) end
vim.fn.writefile({ vim.fn.json_encode({ shown = shown, clients = clients }) }, "${join(root, "probe.json")}")
vim.cmd("qall!")
`,
    );
    // Started in a folder outside the project, as an editor may be: the set-up runs the project's failbook all the same.
    const r = spawnSync("nvim", ["--headless", "-i", "NONE", "-u", join(root, "init.lua"), join(root, "r.yaml"), "-c", `luafile ${join(root, "probe.lua")}`], {
      cwd: tempProject({}),
      encoding: "utf8",
      timeout: 60_000,
      env: { PATH: process.env.PATH ?? "", HOME: root, XDG_STATE_HOME: join(root, ".state") },
    });
    expect(r.error).toBeUndefined();
    const probe = JSON.parse(readFileSync(join(root, "probe.json"), "utf8")) as { shown: string[]; clients: string[] };
    expect(probe.clients).toEqual([`failbook ${root}`]);
    expect(probe.shown).toEqual([...expected].sort());
  }, 90_000);
});
