/**
 * `failbook lsp` against a hostile or broken client (SPEC 16, 21): whatever bytes come, the
 * server answers what it can, refuses the rest with the JSON-RPC error the protocol names, and
 * stays up; `exit` always ends it. The built CLI, driven byte by byte.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { Message } from "vscode-languageserver-protocol/node";
import { REPO, tempProject } from "./helpers/cli.js";
import { positionOf, startLsp, startRawLsp, type RawLsp } from "./helpers/lsp.js";

const project = () =>
  tempProject({
    "failbook.yaml": "registry: r.yaml\nplaybook: p.yaml\nfixtures: [f.yaml]\n",
    "r.yaml": readFileSync(join(REPO, "playbooks/registry.yaml"), "utf8"),
    "p.yaml": readFileSync(join(REPO, "playbooks/playbook.yaml"), "utf8"),
    "f.yaml": readFileSync(join(REPO, "playbooks/fixtures/transient.yaml"), "utf8"),
  });

const INITIALIZE = { jsonrpc: "2.0", id: 1, method: "initialize", params: { processId: null, rootUri: null, capabilities: {} } };
const request = (id: number, method: string, params?: unknown) => ({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
const notification = (method: string, params?: unknown) => ({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) });

let lsp: RawLsp | undefined;
afterEach(() => {
  if (lsp && lsp.child.exitCode === null) lsp.child.kill();
  lsp = undefined;
});

/** A server that was initialized. */
async function initialized(root: string): Promise<RawLsp> {
  const server = startRawLsp(root);
  server.send(INITIALIZE);
  expect((await server.answer(1)).error).toBeUndefined();
  server.send(notification("initialized", {}));
  return server;
}

/** A request the server can answer only by reading it: a hover on a code of the playbook. */
const hover = (root: string, id: number) => {
  const text = readFileSync(join(root, "p.yaml"), "utf8");
  const line = text.split("\n").findIndex((l) => l.startsWith("  transient_timeout:"));
  return request(id, "textDocument/hover", { textDocument: { uri: pathToFileURL(join(root, "p.yaml")).href }, position: { line, character: 4 } });
};

describe("failbook lsp recovers its framing after a bad Content-Length", () => {
  const body = JSON.stringify(request(7, "textDocument/hover", { textDocument: { uri: "file:///nowhere.yaml" }, position: { line: 0, character: 0 } }));
  const BAD: [string, string][] = [
    ["a Content-Length too small", `Content-Length: 5\r\n\r\n${body}`],
    ["a negative Content-Length", `Content-Length: -5\r\n\r\n${body}`],
    ["a Content-Length that is not a number", `Content-Length: abc\r\n\r\n${body}`],
    ["no Content-Length", `Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n${body}`],
  ];

  it.each(BAD)("after %s, the next well-framed request is answered and exit ends the process", async (_what, bad) => {
    const root = project();
    lsp = await initialized(root);
    lsp.write(bad);
    lsp.send(hover(root, 2));
    const answer = await lsp.answer(2);
    expect(JSON.stringify(answer.result)).toContain("transient_timeout");
    // The bad frame itself was refused (a Parse error), never answered as if it were request 7.
    expect(lsp.received.some((m) => Message.isResponse(m) && m.error?.code === -32700)).toBe(true);
    expect(lsp.received.some((m) => Message.isResponse(m) && m.id === 7)).toBe(false);
    lsp.send(notification("exit"));
    expect(await lsp.exited).toBe(1);
  });

  it("ends on exit even when the bad frame is the last thing before it", async () => {
    lsp = await initialized(project());
    lsp.write("Content-Length: abc\r\n\r\n{");
    lsp.send(notification("exit"));
    expect(await lsp.exited).toBe(1);
  });
});

describe("failbook lsp survives any message", () => {
  it("ignores a didOpen or didChange whose text is not a string, and serves on", async () => {
    const root = project();
    lsp = await initialized(root);
    const uri = pathToFileURL(join(root, "p.yaml")).href;
    const stray = pathToFileURL(join(root, "..", "stray.yaml")).href;
    lsp.send(notification("textDocument/didOpen", { textDocument: { uri, languageId: "yaml", version: 1, text: 42 } }));
    lsp.send(notification("textDocument/didOpen", { textDocument: { uri: stray, languageId: "yaml", version: 1, text: { a: 1 } } }));
    lsp.send(notification("textDocument/didOpen", { textDocument: { uri, languageId: "yaml", version: 1, text: readFileSync(join(root, "p.yaml"), "utf8") } }));
    lsp.send(notification("textDocument/didChange", { textDocument: { uri, version: 2 }, contentChanges: [{ text: null }] }));
    lsp.send(notification("textDocument/didChange", { textDocument: { uri, version: 3 }, contentChanges: [{ range: { start: { line: "x" } }, text: "" }] }));
    lsp.send(notification("textDocument/didChange", null));
    lsp.send(notification("textDocument/didOpen", null));
    // Past the project's check (its settle time), the server still answers from the good text.
    await new Promise((r) => setTimeout(r, 200));
    lsp.send(hover(root, 2));
    expect(JSON.stringify((await lsp.answer(2)).result)).toContain("transient_timeout");
    expect(lsp.child.exitCode).toBeNull();
    // Each is said in the server's log (window/logMessage), without a stack.
    const logged = lsp.received.filter((m) => Message.isNotification(m) && m.method === "window/logMessage").map((m) => (m as { params: { message: string } }).params.message);
    expect(logged).toEqual(expect.arrayContaining([expect.stringMatching(/^failbook lsp: ignored textDocument\/didOpen: invalid params: textDocument\.text must be a string$/), expect.stringMatching(/ignored textDocument\/didChange: invalid params: contentChanges\[0\]\.range/)]));
    expect(`${logged.join("\n")}\n${lsp.stderr()}`).not.toMatch(/TypeError|at .*\.js:\d+/);
  });

  it.each([
    ["initialize", undefined],
    ["initialize", null],
    ["textDocument/hover", null],
    ["textDocument/definition", 42],
    ["textDocument/completion", "text"],
    ["completionItem/resolve", null],
  ])("answers %s with params %s with Invalid Params (-32602), and serves on", async (method, params) => {
    const root = project();
    lsp = startRawLsp(root);
    if (method !== "initialize") {
      lsp.send(INITIALIZE);
      await lsp.answer(1);
    }
    lsp.send(request(5, method, params));
    expect((await lsp.answer(5)).error?.code).toBe(-32602);
    if (method === "initialize") {
      lsp.send(INITIALIZE);
      expect((await lsp.answer(1)).error).toBeUndefined();
    }
    lsp.send(hover(root, 9));
    expect(JSON.stringify((await lsp.answer(9)).result)).toContain("transient_timeout");
    expect(lsp.child.exitCode).toBeNull();
  });
});

describe("failbook lsp follows the protocol's life cycle", () => {
  it("answers a request before initialize with ServerNotInitialized (-32002), and drops notifications but exit", async () => {
    const root = project();
    lsp = startRawLsp(root);
    lsp.send(hover(root, 3));
    lsp.send(request(4, "shutdown"));
    lsp.send(notification("textDocument/didOpen", { textDocument: { uri: pathToFileURL(join(root, "p.yaml")).href, languageId: "yaml", version: 1, text: "" } }));
    expect((await lsp.answer(3)).error?.code).toBe(-32002);
    expect((await lsp.answer(4)).error?.code).toBe(-32002);
    lsp.send(INITIALIZE);
    expect((await lsp.answer(1)).error).toBeUndefined();
    // Before initialize the server sent nothing but those answers: no log line, no diagnostics.
    expect(lsp.received.filter((m) => !Message.isResponse(m))).toEqual([]);
    lsp.send(hover(root, 5));
    expect(JSON.stringify((await lsp.answer(5)).result)).toContain("transient_timeout");
    // The notification before initialize opened nothing: no diagnostics for it.
    expect(lsp.received.some((m) => Message.isNotification(m) && m.method === "textDocument/publishDiagnostics")).toBe(false);
  });

  it("answers a request after shutdown with InvalidRequest (-32600); exit then exits 0", async () => {
    const root = project();
    lsp = await initialized(root);
    lsp.send(request(2, "shutdown"));
    expect((await lsp.answer(2)).error).toBeUndefined();
    lsp.send(hover(root, 3));
    lsp.send(request(4, "shutdown"));
    expect((await lsp.answer(3)).error?.code).toBe(-32600);
    expect((await lsp.answer(4)).error?.code).toBe(-32600);
    expect(lsp.child.exitCode).toBeNull();
    lsp.send(notification("exit"));
    expect(await lsp.exited).toBe(0);
  });

  it.each([
    ["after initialize", true],
    ["before initialize", false],
  ])("exits 1 on exit without shutdown (%s)", async (_when, init) => {
    const root = project();
    lsp = init ? await initialized(root) : startRawLsp(root);
    lsp.send(notification("exit"));
    expect(await lsp.exited).toBe(1);
  });
});

describe("failbook lsp checks a pattern for ReDoS off its thread", () => {
  // recheck takes seconds over this one (a long alternation under a star): 4 s on an idle machine.
  const ALTERNATION = `(${Array.from({ length: 50 }, (_, i) => `word${i.toString(36)}`).join("|")})*x`;

  it("answers a hover while recheck runs on the pattern an edit added, before that edit's diagnostics", async () => {
    const root = project();
    const client = await startLsp(root);
    try {
      await client.open("r.yaml");
      await client.nextDiagnostics("r.yaml", () => client.publishedVersion("r.yaml") === 1);
      const rule = "      - kind: [connection_refused, dns_failure, tls_handshake_failed, network_error]\n";
      const edited = client.text("r.yaml").replace(rule, `${rule}      - message_matches: "${ALTERNATION}"\n`);
      expect(edited).not.toBe(client.text("r.yaml"));
      await client.change("r.yaml", edited);
      const version = client.version("r.yaml");
      let diagnosed = false;
      const diagnostics = client
        .nextDiagnostics("r.yaml", (d) => client.publishedVersion("r.yaml") === version && d.some((x) => x.message.includes("message_matches")), 60_000)
        .then((d) => ((diagnosed = true), d));
      // Past the edit's settle time: the project is being checked, the pattern with it.
      await new Promise((r) => setTimeout(r, 300));
      const sent = performance.now();
      const hover = (await client.connection.sendRequest("textDocument/hover", { textDocument: { uri: client.uri("r.yaml") }, position: positionOf(edited, "code: network_unreachable", 8) })) as { contents: { value: string } } | null;
      const took = performance.now() - sent;
      expect(hover?.contents.value).toContain("**network_unreachable**");
      expect(diagnosed, "the hover was answered only after the pattern's check").toBe(false);
      expect(took).toBeLessThan(1000);
      // The check ends in the verdict failbook lint gives: the pattern is refused, at its position.
      const refused = (await diagnostics).find((x) => x.message.includes("message_matches"))!;
      expect(refused.message).toMatch(/can take (exponential|polynomial .*) time|could not be shown safe from ReDoS/);
      expect(refused.range.start.line).toBe(positionOf(edited, "message_matches").line);
    } finally {
      expect(await client.close()).toBe(0);
    }
  }, 90_000);
});
