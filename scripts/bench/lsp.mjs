// The language server rows of `npm run bench` (SPEC 20): `failbook lsp` on the 10,000-code
// project, driven over stdio by a real LSP client (vscode-languageserver-protocol), as an
// editor drives it. Measured from the client's side: an edit to the registry (an incremental
// change, as editors send) until the registry's diagnostics for that version arrive; a hover
// and a go-to-definition on a code in the playbook until the answer arrives. Each figure is
// the median of its runs. The first edits after opening are measured on servers started
// afresh (the registry opened, then three edits in the middle of the verdicts, or at the
// first one). The log also gives the server's CPU time an edit (user + system
// from /proc, where there is one): on a shared machine the wall figure varies with its load.
//
//   node scripts/bench/lsp.mjs [--runs N]   (generates .bench/10000/ when it is not there)
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createProtocolConnection, StreamMessageReader, StreamMessageWriter } from "vscode-languageserver-protocol/node";
import { writeProject } from "./generate.mjs";

const median = (values) => {
  const v = [...values].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};

/** CPU time (user + system) a process has used so far, in ms; undefined where /proc is not there. */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return undefined;
  }
}

/** Line and character of the first `needle` in `text`, `offset` characters in. */
function positionOf(text, needle, offset = 0) {
  const at = text.indexOf(needle);
  if (at < 0) throw new Error(`'${needle}' is not in the text`);
  const before = text.slice(0, at + offset);
  const line = before.split("\n").length - 1;
  return { line, character: before.length - before.lastIndexOf("\n") - 1 };
}

/** A server on the project in `dir`, with a client connected; `published` waits for a file's diagnostics (of a version). */
function startServer({ bin, dir, nodeArgs = [] }) {
  const child = spawn(process.execPath, [...nodeArgs, bin, "lsp"], { cwd: dir, stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } });
  const server = { child, stderr: "" };
  child.stderr.on("data", (d) => (server.stderr += d));
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const waiting = [];
  connection.onNotification("textDocument/publishDiagnostics", (p) => {
    for (const w of [...waiting]) if (w.uri === p.uri && (w.version === undefined || p.version === w.version)) waiting.splice(waiting.indexOf(w), 1) && w.resolve(p);
  });
  connection.listen();
  server.connection = connection;
  server.published = (uri, version) => new Promise((resolve) => waiting.push({ uri, version, resolve }));
  server.uri = (file) => pathToFileURL(join(dir, file)).href;
  return server;
}

/** The position just after `summary: ` of the first verdict summary at or after `from`. */
function summaryAt(registry, from) {
  const middle = registry.indexOf("    summary: ", from) + "    summary: ".length;
  return positionOf(registry.slice(0, middle) + "\u0000", "\u0000");
}

/** A position inside the code of the first verdict at or after `from` (three characters in): a letter typed there renames it. */
function codeAt(registry, from) {
  const at = registry.indexOf("  - code: ", from) + "  - code: ".length + 3;
  return positionOf(registry.slice(0, at) + "\u0000", "\u0000");
}

/** One character typed at `at` and taken back, alternately: the change of edit `i`. */
const editAt = (at, i) => (i % 2 === 0 ? { range: { start: at, end: at }, text: "x" } : { range: { start: at, end: { line: at.line, character: at.character + 1 } }, text: "" });

/**
 * The first edits after opening (issue 38): a server started afresh opens the registry, and
 * once its diagnostics are in, `edits` edits at `at` each wait for theirs (`middle`, `first`:
 * in a verdict's summary; `rename-middle`, `rename-first`: in its code, which every
 * project-wide rule reads). Returns each
 * edit's time, in order, for every one of `servers` servers.
 */
export async function firstEdits({ bin, dir, at, servers = 3, edits = 3, nodeArgs = [] }) {
  const registry = readFileSync(join(dir, "playbooks/registry.yaml"), "utf8");
  const from = at === "first" || at === "rename-first" ? 0 : registry.length >> 1;
  const position = at.startsWith("rename") ? codeAt(registry, from) : summaryAt(registry, from);
  const out = [];
  for (let s = 0; s < servers; s++) {
    const { child, connection, published, uri } = startServer({ bin, dir, nodeArgs });
    try {
      await connection.sendRequest("initialize", { processId: process.pid, rootUri: pathToFileURL(dir).href, capabilities: {} });
      await connection.sendNotification("initialized", {});
      const opened = published(uri("playbooks/registry.yaml"));
      await connection.sendNotification("textDocument/didOpen", { textDocument: { uri: uri("playbooks/registry.yaml"), languageId: "yaml", version: 1, text: registry } });
      await opened;
      const times = [];
      for (let i = 0; i < edits; i++) {
        const t = performance.now();
        const done = published(uri("playbooks/registry.yaml"), i + 2);
        await connection.sendNotification("textDocument/didChange", { textDocument: { uri: uri("playbooks/registry.yaml"), version: i + 2 }, contentChanges: [editAt(position, i)] });
        await done;
        times.push(performance.now() - t);
      }
      out.push(times);
      await connection.sendRequest("shutdown");
      await connection.sendNotification("exit");
    } finally {
      connection.dispose();
      child.kill();
    }
  }
  return out;
}

/** Measure the rows on the project in `dir`; returns rows in bench.mjs's table shape. */
export async function lspRows({ bin, dir, runs = 5, log = () => {}, fmtMs = (ms) => `${ms.toFixed(0)} ms`, nodeArgs = [] }) {
  const server = startServer({ bin, dir, nodeArgs });
  const { child, connection, published, uri } = server;
  const registry = readFileSync(join(dir, "playbooks/registry.yaml"), "utf8");
  const playbook = readFileSync(join(dir, "playbooks/playbook.yaml"), "utf8");
  const rows = [];
  try {
    await connection.sendRequest("initialize", { processId: process.pid, rootUri: pathToFileURL(dir).href, capabilities: {} });
    await connection.sendNotification("initialized", {});
    let t = performance.now();
    const first = published(uri("playbooks/registry.yaml"));
    await connection.sendNotification("textDocument/didOpen", { textDocument: { uri: uri("playbooks/registry.yaml"), languageId: "yaml", version: 1, text: registry } });
    const { diagnostics } = await first;
    const openMs = performance.now() - t;
    log(`lsp: registry opened, first diagnostics (${diagnostics.length}) in ${fmtMs(openMs)}`);
    const playbookOpen = published(uri("playbooks/playbook.yaml"));
    await connection.sendNotification("textDocument/didOpen", { textDocument: { uri: uri("playbooks/playbook.yaml"), languageId: "yaml", version: 1, text: playbook } });
    await playbookOpen;

    // An edit in the middle of the registry: one character of a verdict's summary, typed and
    // taken back, so every run checks the same project.
    const at = summaryAt(registry, registry.length >> 1);
    const edits = [];
    const cpuBefore = cpuMs(child.pid);
    let version = 1;
    for (let i = 0; i < runs * 2; i++) {
      version++;
      const change = editAt(at, i);
      t = performance.now();
      const done = published(uri("playbooks/registry.yaml"), version);
      await connection.sendNotification("textDocument/didChange", { textDocument: { uri: uri("playbooks/registry.yaml"), version }, contentChanges: [change] });
      await done;
      edits.push(performance.now() - t);
    }
    const editMs = median(edits);
    const cpu = cpuMs(child.pid);
    const perEdit = cpu !== undefined && cpuBefore !== undefined ? ` (server CPU ${((cpu - cpuBefore) / edits.length).toFixed(0)} ms an edit, mean)` : "";
    log(`lsp: registry edit -> diagnostics ${edits.map((e) => e.toFixed(0)).join(", ")} ms${perEdit}`);

    const code = /^ {2}([^\s#:][^:]*):\s*$/m.exec(playbook.slice(playbook.length >> 1))?.[1] ?? /verdicts:\n {2}([^:]+):/.exec(playbook)[1];
    const position = positionOf(playbook, `\n  ${code}:`, 4);
    const request = async (method) => {
      const times = [];
      for (let i = 0; i < runs * 2; i++) {
        t = performance.now();
        const result = await connection.sendRequest(method, { textDocument: { uri: uri("playbooks/playbook.yaml") }, position });
        times.push(performance.now() - t);
        if (result === null) throw new Error(`${method} on '${code}' answered null`);
      }
      log(`lsp: ${method} ${times.map((x) => x.toFixed(1)).join(", ")} ms`);
      return median(times);
    };
    const hoverMs = await request("textDocument/hover");
    const definitionMs = await request("textDocument/definition");
    rows.push(
      { row: "`failbook lsp`: registry edit -> diagnostics, 10k codes (real client)", value: editMs, figure: fmtMs(editMs), target: "≤ 300 ms", pass: editMs <= 300 },
      { row: "`failbook lsp`: hover on a code, 10k codes", value: hoverMs, figure: fmtMs(hoverMs), target: "≤ 50 ms", pass: hoverMs <= 50 },
      { row: "`failbook lsp`: go to definition, 10k codes", value: definitionMs, figure: fmtMs(definitionMs), target: "≤ 50 ms", pass: definitionMs <= 50 },
    );
    await connection.sendRequest("shutdown");
    await connection.sendNotification("exit");
  } catch (e) {
    log(`lsp: failed: ${e.message}; stderr: ${server.stderr.slice(-500)}`);
    rows.push({ row: "`failbook lsp`, 10k codes", value: null, figure: `failed: ${e.message.slice(0, 120)}`, target: "≤ 300 ms / 50 ms", pass: false });
    child.kill();
  }
  connection.dispose();
  // The first edits after opening, where a user starts typing: each server's slowest of its
  // first three edits, the median over the servers.
  for (const [at, where] of [["middle", "in the middle of the verdicts"], ["first", "at the first verdict"], ["rename-middle", "renaming a code in the middle of the verdicts"], ["rename-first", "renaming the first verdict's code"]]) {
    try {
      const servers = await firstEdits({ bin, dir, at, servers: Math.max(3, Math.min(runs, 5)), nodeArgs });
      const slowest = median(servers.map((times) => Math.max(...times)));
      log(`lsp: first edits after open, ${at}: ${servers.map((times) => times.map((x) => x.toFixed(0)).join("/")).join(", ")} ms`);
      rows.push({ row: `\`failbook lsp\`: first edits after open ${where} -> diagnostics, 10k codes`, value: slowest, figure: `${fmtMs(slowest)} (slowest of 3, median of ${servers.length} servers)`, target: "≤ 300 ms", pass: slowest <= 300 });
    } catch (e) {
      rows.push({ row: `\`failbook lsp\`: first edits after open ${where}, 10k codes`, value: null, figure: `failed: ${e.message.slice(0, 120)}`, target: "≤ 300 ms", pass: false });
    }
  }
  return { rows, raw: rows };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
  const dir = join(root, ".bench/10000");
  if (!existsSync(join(dir, "failbook.yaml"))) writeProject(root, 10000);
  const runsAt = process.argv.indexOf("--runs");
  const { rows } = await lspRows({ bin: join(root, "bin/failbook.js"), dir, runs: runsAt > 0 ? Number(process.argv[runsAt + 1]) : 5, log: (l) => process.stderr.write(`bench: ${l}\n`) });
  for (const r of rows) console.log(`| ${r.row} | ${r.figure} | ${r.target} | ${r.pass ? "✓" : "✗"} |`);
}
