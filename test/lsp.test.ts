/**
 * `failbook lsp` end to end: the built CLI as a child process, driven over stdio by a real
 * LSP client (vscode-languageserver-protocol), on a copy of the shipped project with two
 * mistakes on disk. The diagnostics must equal `failbook lint --format json`'s findings, and
 * follow buffer edits (the registry's included, which re-checks the playbook); hover,
 * definition, references, completion and quick fixes answer as an editor needs; bad input
 * gets an error or a diagnostic, and the server keeps serving.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodeAction, CompletionItem, Hover, Location, TextEdit } from "vscode-languageserver-protocol";
import { ACTION_NAMES } from "failbook-runtime/model/playbook.js";
import { failbook, modulesLoaded, REPO, tempProject } from "./helpers/cli.js";
import { asShown, positionOf, startLsp, type LspClient, type Shown } from "./helpers/lsp.js";

const REGISTRY = "playbooks/registry.yaml";
const PLAYBOOK = "playbooks/playbook.yaml";

/** The shipped project, with a class misspelt in the registry and a playbook entry misspelt. */
function projectWithMistakes(): string {
  const dir = mkdtempSync(join(tmpdir(), "failbook-lsp-"));
  cpSync(join(REPO, "playbooks"), join(dir, "playbooks"), { recursive: true });
  mkdirSync(join(dir, "docs"));
  cpSync(join(REPO, "docs/adr"), join(dir, "docs/adr"), { recursive: true });
  writeFileSync(join(dir, "failbook.yaml"), readFileSync(join(REPO, "failbook.yaml"), "utf8"));
  const registry = readFileSync(join(dir, REGISTRY), "utf8");
  writeFileSync(join(dir, REGISTRY), registry.replace("class: transient\n", "class: transiant\n"));
  const playbook = readFileSync(join(dir, PLAYBOOK), "utf8");
  writeFileSync(join(dir, PLAYBOOK), playbook.replace("\n  rate_limited:\n", "\n  rate_limted:\n"));
  return dir;
}

/** Apply text edits (LSP ranges) to a text. */
function applyEdits(text: string, edits: TextEdit[]): string {
  const offset = (p: { line: number; character: number }) => text.split("\n").slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
  return [...edits]
    .map((e) => ({ start: offset(e.range.start), end: offset(e.range.end), text: e.newText }))
    .sort((a, b) => b.start - a.start)
    .reduce((out, e) => out.slice(0, e.start) + e.text + out.slice(e.end), text);
}

describe("failbook lsp, on the shipped project", () => {
  let root: string;
  let lsp: LspClient;
  let files: string[];
  const shown = (file: string) => (lsp.diagnostics(file) ?? []).map((d) => asShown(root, d));
  const settled = (file: string, test: (d: Shown[]) => boolean) => lsp.nextDiagnostics(file, (d) => test(d.map((x) => asShown(root, x))));
  const hoverText = async (file: string, needle: string, offset = 1) => {
    const result = (await lsp.connection.sendRequest("textDocument/hover", { textDocument: { uri: lsp.uri(file) }, position: positionOf(lsp.text(file), needle, offset) })) as Hover | null;
    return result === null ? "" : typeof result.contents === "object" && "value" in result.contents ? result.contents.value : JSON.stringify(result.contents);
  };

  beforeAll(async () => {
    root = projectWithMistakes();
    files = ["failbook.yaml", REGISTRY, PLAYBOOK, ...readdirSync(join(root, "playbooks/fixtures")).map((f) => `playbooks/fixtures/${f}`)];
    lsp = await startLsp(root);
  });
  afterAll(async () => {
    if (lsp) expect(await lsp.close()).toBe(0);
  });

  it("publishes, for every open file, exactly what lint --format json reports", async () => {
    const lint = JSON.parse(failbook(["lint", "--format", "json"], { cwd: root }).stdout) as { findings: (Shown & { file: string })[] };
    expect(lint.findings.map((f) => f.rule)).toEqual(expect.arrayContaining(["class-unknown", "playbook-unknown-verdict", "playbook-exhaustive"]));
    for (const file of files) await lsp.open(file);
    for (const file of files) {
      const expected = lint.findings.filter((f) => f.file === file).map(({ rule, severity, message, line, column, related }) => ({ rule, severity, message, line, column, ...(related ? { related } : {}) }));
      await settled(file, (d) => JSON.stringify(d) === JSON.stringify(expected)).catch(() => expect(shown(file)).toEqual(expected));
    }
    // The diagnostic spans the misspelt word, not just its first character.
    const classUnknown = lsp.diagnostics(REGISTRY)!.find((d) => d.code === "class-unknown")!;
    expect(classUnknown.range.end.character - classUnknown.range.start.character).toBe("transiant".length);
  });

  it("follows an unsaved edit, and re-checks the playbook when the registry changes", async () => {
    const original = lsp.text(REGISTRY);
    // A code the playbook names disappears from the registry: the playbook (not edited) shows it.
    await lsp.change(REGISTRY, original.replace("code: server_error_5xx\n", "code: server_error_5xy\n"));
    const playbook = await settled(PLAYBOOK, (d) => d.some((f) => f.rule === "playbook-unknown-verdict" && f.message.includes("'server_error_5xx'")));
    expect(playbook.find((f) => f.message.includes("'server_error_5xx'"))?.message).toContain("did you mean 'server_error_5xy'");
    // Put back: the finding is cleared.
    await lsp.change(REGISTRY, original);
    await settled(PLAYBOOK, (d) => !d.some((f) => f.message.includes("'server_error_5xx'")));
  });

  it("hovers a code with its verdict and action, an action with its reference, a key with its schema description and value", async () => {
    const code = await hoverText(PLAYBOOK, "transient_timeout:");
    expect(code).toContain("**transient_timeout**");
    expect(code).toMatch(/class \| `transient`/);
    expect(code).toMatch(/action \| `retry_with_backoff`: 2 retries; 200, 600 ms/);
    expect(code).toContain("worst case");
    const inFixture = await hoverText("playbooks/fixtures/transient.yaml", "verdict: transient_timeout", 10);
    expect(inFixture).toContain("**transient_timeout**");
    const action = await hoverText(PLAYBOOK, "escalate_to_human", 3);
    expect(action).toContain("**escalate_to_human** (playbook action)");
    expect(action).toContain("`queue` (required)");
    const key = await hoverText(PLAYBOOK, "same_verdict_ceiling:", 2);
    expect(key).toContain("**same_verdict_ceiling**");
    expect(key).toContain("value: `3`");
  });

  it("goes to a code's verdict, a class's declaration and an ADR's file", async () => {
    const at = async (file: string, needle: string, offset = 1) =>
      (await lsp.connection.sendRequest("textDocument/definition", { textDocument: { uri: lsp.uri(file) }, position: positionOf(lsp.text(file), needle, offset) })) as Location | null;
    const registry = lsp.text(REGISTRY);
    const verdict = positionOf(registry, "code: transient_timeout", 6);
    for (const [file, needle, offset] of [
      [PLAYBOOK, "transient_timeout:", 1],
      ["playbooks/fixtures/transient.yaml", "verdict: transient_timeout", 10],
    ] as const) {
      const location = await at(file, needle, offset);
      expect(location?.uri).toBe(lsp.uri(REGISTRY));
      expect(location?.range.start).toEqual(verdict);
    }
    const cls = await at(REGISTRY, "class: permanent", 8);
    expect(cls?.range.start).toEqual(positionOf(registry, "permanent:"));
    const adr = await at(REGISTRY, "adr: ADR-0002", 6);
    expect(adr?.uri).toBe(lsp.uri("docs/adr/ADR-0002-write-safety.md"));
  });

  it("finds every place a code is used: registry, playbook and fixtures", async () => {
    const refs = (await lsp.connection.sendRequest("textDocument/references", {
      textDocument: { uri: lsp.uri(REGISTRY) },
      position: positionOf(lsp.text(REGISTRY), "code: transient_timeout", 8),
      context: { includeDeclaration: true },
    })) as Location[];
    const where = new Set(refs.map((r) => relative(root, fileURLToPath(r.uri))));
    expect([...where]).toEqual(expect.arrayContaining([REGISTRY, PLAYBOOK, "playbooks/fixtures/transient.yaml"]));
    // Each location is the code itself.
    for (const r of refs) {
      const text = lsp.text(relative(root, fileURLToPath(r.uri))).split("\n")[r.range.start.line];
      expect(text.slice(r.range.start.character, r.range.end.character)).toBe("transient_timeout");
    }
  });

  it("completes actions, codes and an action's parameters", async () => {
    const complete = async (file: string, text: string, needle: string, offset: number) => {
      await lsp.change(file, text);
      const items = (await lsp.connection.sendRequest("textDocument/completion", { textDocument: { uri: lsp.uri(file) }, position: positionOf(text, needle, offset) })) as CompletionItem[];
      return items.map((i) => i.label);
    };
    const playbook = lsp.text(PLAYBOOK);
    expect(await complete(PLAYBOOK, playbook.replace("action: retry_with_backoff\n    max_retries: 2\n    backoff_ms: [200, 600]", "action: "), "action: \n", 8)).toEqual(expect.arrayContaining([...ACTION_NAMES]));
    const keys = await complete(PLAYBOOK, playbook.replace("    backoff_ms: [200, 600]\n", "    backoff_ms: [200, 600]\n    \n"), "600]\n    \n", 9);
    expect(keys).toEqual(expect.arrayContaining(["max_retries", "backoff", "retry_after"]));
    expect(keys).not.toContain("queue");
    await lsp.change(PLAYBOOK, playbook);
    const fixture = "playbooks/fixtures/transient.yaml";
    const codes = await complete(fixture, lsp.text(fixture).replace("outcome: recovered", "outcome: recovered\n  verdict: tra"), "verdict: tra", 12);
    expect(codes).toEqual(expect.arrayContaining(["transient_timeout", "rate_limited", "write_committed"]));
    await lsp.change(fixture, readFileSync(join(root, fixture), "utf8"));
  });

  it("offers lint's quick fixes, and applying them clears the findings", async () => {
    const fixOf = async (file: string, rule: string) => {
      // Once the edits of the tests before have been checked.
      const d = (await lsp.nextDiagnostics(file, (x) => x.some((f) => f.code === rule))).find((x) => x.code === rule);
      expect(d, `a ${rule} diagnostic in ${file}`).toBeDefined();
      const actions = (await lsp.connection.sendRequest("textDocument/codeAction", { textDocument: { uri: lsp.uri(file) }, range: d!.range, context: { diagnostics: [d] } })) as CodeAction[];
      expect(actions.length).toBeGreaterThan(0);
      return actions[0];
    };
    const rename = await fixOf(REGISTRY, "class-unknown");
    expect(rename.title).toBe("Change to 'transient'");
    await lsp.change(REGISTRY, applyEdits(lsp.text(REGISTRY), rename.edit!.changes![lsp.uri(REGISTRY)]));
    await settled(REGISTRY, (d) => !d.some((f) => f.rule === "class-unknown"));

    const add = await fixOf(REGISTRY, "playbook-exhaustive");
    expect(add.title).toContain("Add a playbook entry for 'rate_limited'");
    const edited = applyEdits(lsp.text(PLAYBOOK), add.edit!.changes![lsp.uri(PLAYBOOK)]);
    expect(edited).toMatch(/\n {2}rate_limited:\n {4}action: escalate_to_human\n {4}queue: oncall\n/);
    await lsp.change(PLAYBOOK, edited);
    await settled(REGISTRY, (d) => !d.some((f) => f.rule === "playbook-exhaustive"));
  });

  it("offers a breaker's circuit_open verdict, added at the end of the registry's verdicts", async () => {
    const playbook = lsp.text(PLAYBOOK);
    await lsp.change(PLAYBOOK, playbook.replace("\nverdicts:\n", '\ncircuit_breakers: { crm: { tools: "crm.*", failure_ratio: 0.5, minimum_throughput: 20, sampling_ms: 30000, break_ms: 5000 } }\n\nverdicts:\n'));
    const d = (await lsp.nextDiagnostics(PLAYBOOK, (x) => x.some((f) => f.code === "breaker-unclassified"))).find((f) => f.code === "breaker-unclassified")!;
    const [action] = (await lsp.connection.sendRequest("textDocument/codeAction", { textDocument: { uri: lsp.uri(PLAYBOOK) }, range: d.range, context: { diagnostics: [d] } })) as CodeAction[];
    expect(action.title).toBe("Add a verdict 'circuit_open' that matches kind circuit_open");
    const registry = lsp.text(REGISTRY);
    const edited = applyEdits(registry, action.edit!.changes![lsp.uri(REGISTRY)]);
    // The new item closes the list, before the keys that follow it.
    expect(edited.indexOf("- code: circuit_open")).toBeGreaterThan(registry.lastIndexOf("- code:"));
    expect(edited.indexOf("- code: circuit_open")).toBeLessThan(edited.indexOf("\nfallback:"));
    await lsp.change(REGISTRY, edited);
    await settled(PLAYBOOK, (x) => !x.some((f) => f.rule === "breaker-unclassified"));
    expect(shown(REGISTRY).filter((f) => f.rule === "schema" || f.rule === "yaml-syntax")).toEqual([]);
    await lsp.change(REGISTRY, registry);
    await lsp.change(PLAYBOOK, playbook);
  });

  it("lists the verdicts as symbols and simulates each fixture in a code lens", async () => {
    const symbols = (await lsp.connection.sendRequest("textDocument/documentSymbol", { textDocument: { uri: lsp.uri(REGISTRY) } })) as { name: string; children?: { name: string }[] }[];
    const verdicts = symbols.find((s) => s.name === "verdicts");
    expect(verdicts?.children?.map((c) => c.name)).toEqual(expect.arrayContaining(["transient_timeout", "write_committed"]));
    const lenses = (await lsp.connection.sendRequest("textDocument/codeLens", { textDocument: { uri: lsp.uri("playbooks/fixtures/transient.yaml") } })) as { range: { start: { line: number } }; command?: { title: string } }[];
    const first = lenses.find((l) => l.range.start.line === positionOf(lsp.text("playbooks/fixtures/transient.yaml"), "name: timeout-then-recovers").line);
    expect(first?.command?.title).toMatch(/^=> recovered .*3 attempts .* ✓ matches its golden$/);
  });

  it("answers a half-typed buffer with a diagnostic, and keeps hovering and completing in it", async () => {
    const playbook = lsp.text(PLAYBOOK);
    const broken = playbook.replace("verdicts:\n", "verdicts:\n  transient_timeout: { action: [\n");
    await lsp.change(PLAYBOOK, broken);
    const d = await settled(PLAYBOOK, (x) => x.some((f) => f.rule === "yaml-syntax"));
    expect(d.find((f) => f.code === "yaml-syntax")?.severity).toBe(1);
    expect(await hoverText(PLAYBOOK, "server_error_5xx:")).toContain("**server_error_5xx**");
    await lsp.change(PLAYBOOK, playbook);
    await settled(PLAYBOOK, (x) => !x.some((f) => f.rule === "yaml-syntax"));
  });

  it("answers malformed JSON-RPC and bad params with errors, and serves on", async () => {
    let raw = "";
    lsp.child.stdout.on("data", (b: Buffer) => (raw += b.toString()));
    const send = (body: string) => lsp.child.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    send("{ this is not json");
    send(JSON.stringify({ jsonrpc: "2.0", id: 9001, method: 42 }));
    lsp.child.stdin.write("Content-Type: nothing\r\n\r\n");
    await expect(lsp.connection.sendRequest("textDocument/hover", {})).rejects.toMatchObject({ code: -32602 });
    await expect(lsp.connection.sendRequest("failbook/nonsense", {})).rejects.toMatchObject({ code: -32601 });
    expect(raw).toMatch(/"id":null,"error":\{"code":-32700/);
    expect(raw).toMatch(/"id":9001,"error":\{"code":-32600/);
    expect(await hoverText(PLAYBOOK, "transient_timeout:")).toContain("**transient_timeout**");
    expect(lsp.child.exitCode).toBeNull();
  });

  it("says so for a failbook file outside any project, and answers no more about it", async () => {
    const outside = mkdtempSync(join(tmpdir(), "failbook-outside-"));
    writeFileSync(join(outside, "stray.yaml"), "apiVersion: failbook/v1\nkind: Fixture\nname: stray\n");
    const uri = pathToFileURL(join(outside, "stray.yaml")).href;
    const published = lsp.nextDiagnostics(uri);
    await lsp.connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "yaml", version: 1, text: "apiVersion: failbook/v1\nkind: Fixture\nname: stray\n" } });
    const d = await published;
    expect(d.map((x) => [x.code, x.severity])).toEqual([["not-in-project", 3]]);
    expect(d[0].message).toContain("no failbook.yaml");
    expect(await lsp.connection.sendRequest("textDocument/hover", { textDocument: { uri }, position: { line: 1, character: 2 } })).toBeNull();
  });
});

describe("failbook lsp, past the limits", () => {
  it("refuses a buffer over max_file_mb with a diagnostic, and serves on", async () => {
    const root = tempProject({
      "failbook.yaml": "registry: r.yaml\nplaybook: p.yaml\nfixtures: [f.yaml]\nmax_file_mb: 1\n",
      "r.yaml": readFileSync(join(REPO, "playbooks/registry.yaml"), "utf8"),
      "p.yaml": readFileSync(join(REPO, "playbooks/playbook.yaml"), "utf8"),
      "f.yaml": readFileSync(join(REPO, "playbooks/fixtures/transient.yaml"), "utf8"),
    });
    const lsp = await startLsp(root);
    try {
      await lsp.open("f.yaml");
      await lsp.nextDiagnostics("f.yaml", (d) => d.length === 0);
      const huge = lsp.text("f.yaml") + `# ${"x".repeat(2 * 1024 * 1024)}\n`;
      await lsp.change("f.yaml", huge);
      const d = await lsp.nextDiagnostics("f.yaml", (x) => x.length > 0);
      expect(d[0].message).toMatch(/f\.yaml is larger than 1 MB \(max_file_mb\)/);
      // Back under the limit: the problem is gone.
      await lsp.change("f.yaml", readFileSync(join(root, "f.yaml"), "utf8"));
      await lsp.nextDiagnostics("f.yaml", (x) => x.length === 0);
    } finally {
      expect(await lsp.close()).toBe(0);
    }
  });
});

describe("failbook lsp redacts as failbook lint does", () => {
  it("keeps the project's vocabulary whole where a redact: pattern overlaps it (SPEC 16), in hover and diagnostics alike", async () => {
    const root = tempProject({
      "failbook.yaml": "registry: r.yaml\nplaybook: p.yaml\nfixtures: []\nredact: [\"timeout\"]\n",
      "r.yaml": readFileSync(join(REPO, "playbooks/registry.yaml"), "utf8"),
      "p.yaml": readFileSync(join(REPO, "playbooks/playbook.yaml"), "utf8"),
    });
    const lint = JSON.parse(failbook(["lint", "--format", "json"], { cwd: root }).stdout) as { findings: { file: string; rule: string; message: string }[] };
    const lsp = await startLsp(root);
    try {
      await lsp.open("failbook.yaml");
      await lsp.open("p.yaml");
      const expected = lint.findings.filter((f) => f.file === "failbook.yaml").map((f) => f.message);
      expect(expected.length).toBeGreaterThan(0);
      const d = await lsp.nextDiagnostics("failbook.yaml", (x) => x.length === expected.length);
      expect(d.map((x) => x.message)).toEqual(expected);
      const hover = (await lsp.connection.sendRequest("textDocument/hover", { textDocument: { uri: lsp.uri("p.yaml") }, position: positionOf(lsp.text("p.yaml"), "transient_timeout:", 1) })) as Hover | null;
      const text = hover !== null && typeof hover.contents === "object" && "value" in hover.contents ? hover.contents.value : "";
      expect(text).toContain("**transient_timeout**");
    } finally {
      expect(await lsp.close()).toBe(0);
    }
  });
});

describe("failbook lsp is loaded only when it runs", () => {
  // The protocol libraries are bundled into dist/bundle/lsp-server.js, which only `failbook lsp` loads.
  const server = (urls: string[]) => urls.filter((u) => u.includes("vscode-languageserver") || u.includes("vscode-jsonrpc") || u.endsWith("/lsp-server.js"));

  it("lint and --help load no language server library; lsp does", () => {
    const dir = tempProject({ "failbook.yaml": "registry: r.yaml\nplaybook: p.yaml\n", "r.yaml": readFileSync(join(REPO, "playbooks/registry.yaml"), "utf8"), "p.yaml": readFileSync(join(REPO, "playbooks/playbook.yaml"), "utf8") });
    for (const args of [["lint"], ["--help"]]) expect(server(modulesLoaded(args, dir)), args.join(" ")).toEqual([]);
    expect(server(modulesLoaded(["lsp"], dir)).length).toBeGreaterThan(0);
  });
});
