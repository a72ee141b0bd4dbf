/**
 * failbook lsp re-lints after every edit with the per-verdict findings of the last check
 * (lint/incremental.ts): what it reports must be exactly what a full lint of the edited
 * project reports, whatever the edit moved, added or removed. On the benchmark's generated
 * project (a provider catalogue, scripts/bench/generate.mjs), smaller.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { diskReader, type FileReader } from "../src/load/files.js";
import { LoadCache, loadProjectFrom } from "../src/load/project.js";
import { lintProject } from "../src/lint/lint.js";
import { VerdictFindings } from "../src/lint/incremental.js";
// @ts-expect-error: a script of the benchmark, without types
import { writeProject } from "../scripts/bench/generate.mjs";

const { dir } = writeProject(mkdtempSync(join(tmpdir(), "failbook-incremental-")), 120) as { dir: string };
const REGISTRY = join(dir, "playbooks/registry.yaml");
const ORIGINAL = readFileSync(REGISTRY, "utf8");
const summaryAt = (text: string, nth: number) => {
  let at = -1;
  for (let i = 0; i <= nth; i++) at = text.indexOf("    summary: ", at + 1);
  return at + "    summary: ".length;
};

/** The edits an editor sends, one after another, each to the text before it. */
const EDITS: [string, (text: string) => string][] = [
  ["a character typed in a summary", (t) => t.slice(0, summaryAt(t, 60)) + "x" + t.slice(summaryAt(t, 60))],
  ["the character taken back", () => ORIGINAL],
  ["a comment line added above many verdicts (they all move down)", (t) => t.replace("\n  - code: ", "\n  # a note\n  - code: ")],
  ["a match rule by message text added to a verdict", (t) => t.replace(/(\n {4}match:\n)/, "$1      - message_contains: quota exhausted\n")],
  ["a verdict's summary emptied (docs-missing)", (t) => t.slice(0, summaryAt(t, 40)) + "''" + t.slice(t.indexOf("\n", summaryAt(t, 40)))],
  ["a verdict removed (every later one changes its place)", (t) => t.replace(/\n {2}- code: [^\n]*\n(?: {4}[^\n]*\n)+/, "\n")],
  ["a YAML error", (t) => t.replace("\n  - code: ", "\n  - code: [unclosed\n  - code: ")],
  ["the original back", () => ORIGINAL],
];

describe("lint after an edit, reusing the unchanged verdicts' findings, equals a full lint", () => {
  it("after each of a series of edits", () => {
    let text = ORIGINAL;
    const disk = diskReader(dir);
    const files: FileReader = { ...bound(disk), readText: (p, max) => (p === REGISTRY ? text : disk.readText(p, max)) };
    const config = join(dir, "failbook.yaml");
    const cache = new LoadCache();
    const previous = new VerdictFindings();
    const lint = (incremental: boolean) => {
      try {
        const { project, findings } = loadProjectFrom(files, config, { cwd: dir, cache: incremental ? cache : undefined });
        return lintProject(project, findings, incremental ? { previous } : {});
      } catch (e) {
        return String(e);
      }
    };
    expect(lint(true)).toEqual(lint(false));
    for (const [what, edit] of EDITS) {
      text = edit(text);
      const incremental = lint(true);
      expect(incremental, what).toEqual(lint(false));
      expect(Array.isArray(incremental) && incremental.length > 0, what).toBe(true);
    }
  });

  it("moves a reused finding with its verdict when lines are added above it", () => {
    let text = ORIGINAL;
    const disk = diskReader(dir);
    const files: FileReader = { ...bound(disk), readText: (p, max) => (p === REGISTRY ? text : disk.readText(p, max)) };
    const previous = new VerdictFindings();
    const cache = new LoadCache();
    const messageRules = () => {
      const { project, findings } = loadProjectFrom(files, join(dir, "failbook.yaml"), { cwd: dir, cache });
      return lintProject(project, findings, { previous }).filter((f) => f.rule === "matcher-message-contains");
    };
    const before = messageRules();
    expect(before.length).toBeGreaterThan(10);
    // Into the first verdict: it is checked again, every later one moves down two lines.
    const second = text.indexOf("\n  - code: ", text.indexOf("\n  - code: ") + 1);
    text = `${text.slice(0, second)}\n  # one\n  # two${text.slice(second)}`;
    const after = messageRules();
    expect(after.map((f) => f.line)).toEqual(before.map((f) => f.line + 2));
    expect(after.map((f) => f.fingerprint)).toEqual(before.map((f) => f.fingerprint));
  });
});

function bound(reader: FileReader): FileReader {
  return {
    kind: (p) => reader.kind(p),
    list: (p) => reader.list(p),
    display: (p) => reader.display(p),
    realpath: (p) => reader.realpath(p),
    repositoryRoot: (p) => reader.repositoryRoot(p),
    readText: (p, max) => reader.readText(p, max),
  };
}
