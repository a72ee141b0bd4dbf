/**
 * `failbook lsp` after edits to a large registry (the benchmark's generated project, smaller):
 * an edit inside the verdicts is parsed by parsing again only the verdicts it touched, and
 * lint reuses the findings of the others. Whatever the edit, what the editor shows must be
 * exactly what `failbook lint --format json` reports for the edited files: inside a verdict,
 * across two, a verdict added at the end, indentation changed, YAML and schema broken inside
 * a verdict and mended. The real client, the built CLI.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { failbook } from "./helpers/cli.js";
import { asShown, startLsp, type LspClient, type Shown } from "./helpers/lsp.js";
// @ts-expect-error: a script of the benchmark, without types
import { writeProject } from "../scripts/bench/generate.mjs";

const REGISTRY = "playbooks/registry.yaml";
const PLAYBOOK = "playbooks/playbook.yaml";

/** Where the `nth` verdict's line starts (at the line feed before it). */
const nthVerdict = (text: string, nth: number): number => {
  let at = -1;
  for (let i = 0; i <= nth; i++) at = text.indexOf("\n  - code: ", at + 1);
  return at;
};
/** The offset of `needle` inside the `nth` verdict. */
const inVerdict = (text: string, nth: number, needle: string): number => {
  const at = text.indexOf(needle, nthVerdict(text, nth));
  expect(at > 0 && at < nthVerdict(text, nth + 1), `verdict ${nth} has '${needle}'`).toBe(true);
  return at;
};
const insert = (text: string, at: number, what: string) => text.slice(0, at) + what + text.slice(at);

/** Edits an editor sends, one after another, each to the text before it. */
const EDITS: [string, (t: string) => string][] = [
  ["a character typed inside a verdict", (t) => insert(t, inVerdict(t, 30, "summary: ") + "summary: ".length, "x")],
  ["a line added inside a verdict (the later ones move down)", (t) => insert(t, inVerdict(t, 31, "\n    summary: "), "\n    adr: ADR-0001")],
  ["YAML broken inside a verdict (a line indented)", (t) => insert(t, inVerdict(t, 32, "\n    retryable: ") + 1, "  ")],
  ["the YAML mended", (t) => t.replace("\n      retryable: ", "\n    retryable: ")],
  ["a key misspelt inside a verdict (a schema error)", (t) => t.slice(0, nthVerdict(t, 33)) + t.slice(nthVerdict(t, 33)).replace("\n    retryable: ", "\n    retryabel: ")],
  ["another verdict edited while it stands", (t) => insert(t, inVerdict(t, 60, "summary: ") + "summary: ".length, "y")],
  ["the key spelt right", (t) => t.replace("\n    retryabel: ", "\n    retryable: ")],
  ["an edit across two verdicts (they become one)", (t) => t.slice(0, inVerdict(t, 40, "\n    match:")) + t.slice(inVerdict(t, 41, "\n    match:"))],
  ["a verdict added at the end of the list", (t) => t.replace("\nfallback: ", `\n${t.slice(t.lastIndexOf("\n  - code: ") + 1, t.indexOf("\nfallback: ")).replace(/code: [^\n]*/, "code: svc9.added_at_end")}\nfallback: `)],
  [
    "a verdict's lines indented further, consistently",
    (t) => {
      const [from, to] = [nthVerdict(t, 50), nthVerdict(t, 51)];
      return t.slice(0, from) + t.slice(from, to).replace("\n  - code: ", "\n  -   code: ").replace(/\n {4}/g, "\n      ") + t.slice(to);
    },
  ],
  ["a verdict's code renamed to one the playbook lacks", (t) => t.replace(/(\n {2}- code: )svc3\.[^\n]*/, "$1svc3.renamed")],
];

describe("failbook lsp, editing a large registry", () => {
  let root: string;
  let lsp: LspClient;

  beforeAll(async () => {
    root = (writeProject(mkdtempSync(join(tmpdir(), "failbook-lsp-edit-")), 150) as { dir: string }).dir;
    lsp = await startLsp(root);
    await lsp.open(REGISTRY);
    await lsp.open(PLAYBOOK);
  });
  afterAll(async () => {
    if (lsp) expect(await lsp.close()).toBe(0);
  });

  it("shows after every edit exactly what lint --format json reports for the edited registry", async () => {
    let text = readFileSync(join(root, REGISTRY), "utf8");
    const seen = new Set<string>();
    for (const [what, edit] of EDITS) {
      const before = text;
      text = edit(text);
      expect(text === before, `${what}: the edit changes the text`).toBe(false);
      writeFileSync(join(root, REGISTRY), text);
      const lint = JSON.parse(failbook(["lint", "--format", "json"], { cwd: root }).stdout) as { findings: (Shown & { file: string })[] };
      await lsp.change(REGISTRY, text);
      for (const file of [REGISTRY, PLAYBOOK]) {
        const expected = lint.findings.filter((f) => f.file === file).map(({ rule, severity, message, line, column, related }) => ({ rule, severity, message, line, column, ...(related ? { related } : {}) }));
        // The registry's diagnostics of this very version (the playbook's follow them, published when they change).
        const same = (d: Shown[]) => (file !== REGISTRY || lsp.publishedVersion(file) === lsp.version(file)) && JSON.stringify(d) === JSON.stringify(expected);
        await lsp.nextDiagnostics(file, (d) => same(d.map((x) => asShown(root, x))), 10_000).catch(() => expect([what, file, (lsp.diagnostics(file) ?? []).map((x) => asShown(root, x))]).toEqual([what, file, expected]));
        for (const f of expected) seen.add(f.rule);
      }
    }
    // The edits were seen to break and mend what they meant to.
    expect([...seen]).toEqual(expect.arrayContaining(["yaml-syntax", "schema", "playbook-unknown-verdict"]));
  });
});
