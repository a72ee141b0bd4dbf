// Regenerates the command samples in README.md and docs/*.md, so they cannot drift from what
// failbook prints: a fenced block whose first line is `$ failbook ARGS` (or `$ npx failbook
// ARGS`, optionally `| head -N` or `| tail -N`) is followed by what that command prints today on the
// project shipped in this repository. `node scripts/doc-samples.mjs --write` rewrites the
// files, `--check` exits 1 naming each stale sample; `npm run docs` does the first.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const files = ["README.md", ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).sort().map((f) => `docs/${f}`)];

/** The words of a command line as a POSIX shell splits them (single and double quotes, no expansion). */
export function shellWords(line) {
  const words = [];
  let word = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      word = (word ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (ch === '"') {
      let j = i + 1;
      let text = "";
      for (; line[j] !== '"'; j++) text += line[j] === "\\" && /["\\$`]/.test(line[j + 1]) ? line[++j] : line[j];
      word = (word ?? "") + text;
      i = j;
    } else if (ch === " ") {
      if (word !== null) words.push(word);
      word = null;
    } else word = (word ?? "") + ch;
  }
  if (word !== null) words.push(word);
  return words;
}

const SAMPLE = /^```[a-z]*\n\$ (?:npx )?failbook (.*)\n([\s\S]*?)^```$/gm;

/** What the command of one sample prints (stdout, then stderr, as a terminal shows them). */
function run(commandLine) {
  const [command, cut, count] = commandLine.split(/\s+\|\s+(head|tail) -(\d+)$/);
  // Each sample runs in a fresh copy of the shipped project: a sample that writes (new
  // fixture, --update) changes the copy, never the repository, nor the next sample.
  const cwd = mkdtempSync(join(tmpdir(), "failbook-sample-"));
  for (const path of ["failbook.yaml", "playbooks", "docs/adr"]) cpSync(join(root, path), join(cwd, path), { recursive: true });
  const r = spawnSync(process.execPath, [join(root, "bin/failbook.js"), ...shellWords(command)], {
    cwd,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NO_COLOR: "1", COLUMNS: "100" },
  });
  rmSync(cwd, { recursive: true, force: true });
  let text = r.stdout + r.stderr;
  if (cut !== undefined) {
    const lines = text.replace(/\n$/, "").split("\n");
    text = (cut === "head" ? lines.slice(0, Number(count)) : lines.slice(-Number(count))).join("\n") + "\n";
  }
  return text.endsWith("\n") ? text : `${text}\n`;
}

export function regenerate(text) {
  const stale = [];
  const next = text.replace(SAMPLE, (block, commandLine, shown) => {
    const printed = run(commandLine);
    if (printed !== shown) stale.push(commandLine);
    // Spliced before the closing fence, not found by value: an empty sample would match at the block's start.
    return `${block.slice(0, block.length - 3 - shown.length)}${printed}\`\`\``;
  });
  return { next, stale };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const mode = process.argv[2];
  let failed = false;
  for (const file of files) {
    const path = join(root, file);
    const text = readFileSync(path, "utf8");
    const { next, stale } = regenerate(text);
    if (mode === "--write") {
      if (next !== text) writeFileSync(path, next);
    } else if (stale.length > 0) {
      for (const c of stale) console.error(`${file}: the sample of \`failbook ${c}\` is stale: run npm run docs`);
      failed = true;
    }
  }
  process.exit(failed ? 1 : 0);
}
