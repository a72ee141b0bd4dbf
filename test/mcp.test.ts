/**
 * `failbook mcp` driven as an agent drives it: the SDK's own client spawns the built CLI over
 * stdio, lists the tools and calls them; the client checks every structuredContent against
 * the tool's outputSchema. A second client writes raw lines to see the JSON-RPC errors.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseProject, projectFiles } from "./helpers/change-project.js";
import { BIN, failbook, modulesLoaded, tempProject } from "./helpers/cli.js";

function project(): string {
  const p = baseProject();
  p.config.redact = ["internal-ticket-[0-9]+"];
  p.playbook.tools = { "payments.*": { idempotent: false } };
  return tempProject(projectFiles(p));
}

/** An adapter error whose cause chain is `depth` deep. */
function deepCause(depth: number): Record<string, unknown> {
  let error: Record<string, unknown> = { kind: "timeout" };
  for (let i = 0; i < depth; i++) error = { kind: "wrapped", cause: error };
  return error;
}

type Result = Awaited<ReturnType<Client["callTool"]>>;
const text = (r: Result) => (r.content as { type: string; text: string }[]).map((c) => c.text).join("");
const data = (r: Result) => r.structuredContent as Record<string, unknown>;

describe("failbook mcp with the SDK's client", () => {
  const dir = project();
  let client: Client;
  let transport: StdioClientTransport;
  const stderr: string[] = [];

  beforeAll(async () => {
    transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp"], cwd: dir, env: { PATH: process.env.PATH ?? "", NO_COLOR: "1" }, stderr: "pipe" });
    transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));
    client = new Client({ name: "failbook-test", version: "1.0.0" });
    await client.connect(transport);
  });
  afterAll(async () => {
    await client?.close();
  });

  it("introduces itself and logs to stderr only", () => {
    expect(client.getServerVersion()?.name).toBe("failbook");
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(stderr.join("")).toContain("serving registry change-test (revision 1, 3 codes) on stdio");
  });

  it("lists classify, explain and list_verdicts, each with input and output schemas", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["classify", "explain", "list_verdicts"]);
    for (const t of tools) {
      expect(t.inputSchema.type).toBe("object");
      expect(t.outputSchema?.type).toBe("object");
      expect(t.description).toBeTruthy();
    }
    const classify = tools.find((t) => t.name === "classify")!;
    expect(classify.inputSchema.required).toEqual(["error"]);
  });

  it("classifies an adapter error: verdict, rule, action and envelope", async () => {
    const r = await client.callTool({ name: "classify", arguments: { error: { kind: "timeout", message: "upstream slow" } } });
    expect(r.isError).toBe(false);
    const d = data(r);
    expect(d).toMatchObject({ verdict: "timeout", fallback: false, class: "transient", retryable: true, rule: { index: 0, file: "playbooks/registry.yaml" } });
    expect(d.action).toEqual({ action: "retry_with_backoff", max_retries: 2, backoff_ms: [100, 200] });
    expect(d.envelope).toMatchObject({ code: "timeout", retryable: true, message: "upstream slow", recovery_hint: "Retry." });
    expect(d.dispatch).toEqual({ retries: true, delay_ms: 100, outcome: null, reason: null, queue: null });
    expect(JSON.parse(text(r))).toEqual(d);
  });

  it("agrees with failbook classify on the verdict, and honours the playbook's non-idempotent tools", async () => {
    const error = { kind: "timeout" };
    const cli = JSON.parse(failbook(["classify", "--error", JSON.stringify(error), "--tool", "payments.refund", "--format", "json"], { cwd: dir }).stdout);
    const r = await client.callTool({ name: "classify", arguments: { error, tool: "payments.refund" } });
    expect(data(r).verdict).toBe(cli.verdict);
    expect(data(r).rule).toEqual(cli.rule);
    expect((data(r).envelope as { retryable: boolean }).retryable).toBe(false);
    // The dispatcher refuses the retry: the answer says so at the top level too, as the CLI does.
    expect(data(r)).toMatchObject({ retryable: false, idempotent: false, dispatch: { retries: false, outcome: "failed", reason: "non_idempotent", queue: null } });
    expect(data(r).retryable).toBe(cli.retryable);
    expect(data(r).dispatch).toEqual(cli.dispatch);
  });

  it("gives the fallback for null and for an error no rule knows", async () => {
    for (const error of [null, { kind: "teapot", http_status: 418 }]) {
      const d = data(await client.callTool({ name: "classify", arguments: { error } }));
      expect(d).toMatchObject({ verdict: "unknown_error", fallback: true, rule: null, action: { action: "escalate_to_human", queue: "oncall" } });
    }
  });

  it("redacts secrets from the error, with the built-in and the config's patterns", async () => {
    const message = "denied for token=hunter2hunter2 see internal-ticket-4711";
    const r = await client.callTool({ name: "classify", arguments: { error: { kind: "409_conflict", message } } });
    expect((data(r).envelope as { message: string }).message).toBe("denied for token=[REDACTED] see [REDACTED]");
    expect(text(r)).not.toContain("hunter2");
    expect(text(r)).not.toContain("4711");
  });

  it("explains a code exactly as failbook explain prints it, in any case", async () => {
    const cli = failbook(["explain", "timeout"], { cwd: dir });
    expect(cli.code).toBe(0);
    const r = await client.callTool({ name: "explain", arguments: { code: "TIMEOUT" } });
    expect(r.isError).toBe(false);
    const d = data(r);
    expect(d.kind).toBe("code");
    expect(d.text).toBe(cli.stdout);
    expect(d.code).toMatchObject({ code: "timeout", class: "transient", action: { name: "retry_with_backoff" } });
    expect(d.fixtures).toEqual([expect.objectContaining({ fixture: "timeout-recovers", via: "failure", at: "responses[0]" }), expect.objectContaining({ fixture: "timeout-recovers", via: "golden", at: "expect.verdict" })]);
  });

  it("explains an action: what it does and which verdicts take it", async () => {
    const d = data(await client.callTool({ name: "explain", arguments: { code: "escalate_to_human" } }));
    expect(d.kind).toBe("action");
    expect(d.action).toMatchObject({ name: "escalate_to_human", verdicts: [{ code: "unknown_error", detail: "queue oncall" }] });
    expect(d.text).toContain("unknown_error: queue oncall");
  });

  it("answers an unknown code with a tool error that suggests the closest", async () => {
    const r = await client.callTool({ name: "explain", arguments: { code: "timout" } });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    expect(text(r)).toBe("unknown code or action 'timout': registry change-test has no such code; did you mean timeout?");
  });

  it("lists the verdicts, filtered by class or status", async () => {
    const all = data(await client.callTool({ name: "list_verdicts", arguments: {} }));
    expect(all.registry).toEqual({ name: "change-test", revision: 1, fallback: "unknown_error" });
    expect((all.verdicts as { code: string }[]).map((v) => v.code)).toEqual(["conflict", "timeout", "unknown_error"]);
    expect(all.verdicts).toContainEqual({ code: "conflict", class: "permanent", status: "active", retryable: false, side_effect: "unknown", summary: "Already done.", action: "deprecate_tool_call", replaced_by: null });
    const permanent = data(await client.callTool({ name: "list_verdicts", arguments: { class: "permanent" } }));
    expect((permanent.verdicts as { code: string }[]).map((v) => v.code)).toEqual(["conflict", "unknown_error"]);
  });

  it.each([
    ["an unknown tool", "delete_everything", {}, "unknown tool 'delete_everything'; this server has classify, explain, list_verdicts"],
    ["a wrong type", "classify", { error: { kind: 5 } }, "invalid arguments for classify: error/kind must be string"],
    ["a missing argument", "explain", {}, "invalid arguments for explain: arguments must have required property 'code'"],
    ["an unknown argument", "list_verdicts", { colour: "red" }, "invalid arguments for list_verdicts: arguments must NOT have additional properties"],
    ["a bad enum", "list_verdicts", { status: "retired" }, "invalid arguments for list_verdicts: status must be equal to one of the allowed values"],
    ["a cause chain 1,000 deep", "classify", { error: deepCause(1000) }, "invalid arguments for classify: nested more than 64 levels deep"],
  ])("answers %s with isError: true", async (_, name, args, message) => {
    const r = await client.callTool({ name, arguments: args });
    expect(r.isError).toBe(true);
    expect(text(r)).toBe(message);
  });

  it("keeps serving after a malformed line written raw to its stdin", async () => {
    const child = (transport as unknown as { _process: ChildProcess })._process;
    child.stdin!.write("{this is not json\n");
    child.stdin!.write('{"jsonrpc":"2.0","method":42}\n');
    const r = await client.callTool({ name: "classify", arguments: { error: { kind: "409_conflict" } } });
    expect(data(r).verdict).toBe("conflict");
  });
});

/** Raw JSON-RPC over the server's stdio: every stdout line must be a JSON-RPC message. */
async function rawSession(dir: string, lines: string[], expected: number): Promise<{ messages: Record<string, unknown>[]; code: number | null }> {
  const child = spawn(process.execPath, [BIN, "mcp"], { cwd: dir, env: { PATH: process.env.PATH ?? "", NO_COLOR: "1" } });
  const messages: Record<string, unknown>[] = [];
  let buffer = "";
  const done = new Promise<void>((resolve) =>
    child.stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        messages.push(JSON.parse(buffer.slice(0, nl)));
        buffer = buffer.slice(nl + 1);
      }
      if (messages.length >= expected) resolve();
    }),
  );
  for (const line of lines) child.stdin.write(line + "\n");
  await done;
  child.stdin.end();
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { messages, code };
}

describe("failbook mcp on raw stdio", () => {
  it("answers a line that is not JSON with a Parse error, one that is not JSON-RPC or is over 8 MB with an Invalid Request, then serves the next call", async () => {
    const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
    const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "classify", arguments: { error: { kind: "timeout" } } } };
    const huge = JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "explain", arguments: { code: "x".repeat(9 * 1024 * 1024) } } });
    const lines = [JSON.stringify(init), "{oops", '{"hello":"world"}', JSON.stringify({ jsonrpc: "2.0", id: 3, method: "no/such/method" }), huge, JSON.stringify(call)];
    const { messages, code } = await rawSession(project(), lines, 6);
    const errors = messages.filter((m) => m.id === null);
    expect(errors).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error: not JSON/) } },
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request: not a JSON-RPC 2.0 request, notification or response" } },
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request: a message longer than 8 MB" } },
    ]);
    expect(messages.find((m) => m.id === 3)).toMatchObject({ error: { code: -32601 } });
    expect(messages.find((m) => m.id === 2)).toMatchObject({ result: { structuredContent: { verdict: "timeout" }, isError: false } });
    expect(code).toBe(0);
  });

  it("answers in the order the lines came: a junk line after initialize is answered after initialize", async () => {
    const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
    const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "classify", arguments: { error: { kind: "timeout" } } } };
    const huge = JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "explain", arguments: { code: "x".repeat(9 * 1024 * 1024) } } });
    const lines = [JSON.stringify(init), "{oops", JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), '{"hello":"world"}', JSON.stringify(call), JSON.stringify({ jsonrpc: "2.0", id: 3, method: "no/such/method" }), huge, "junk"];
    const { messages } = await rawSession(project(), lines, 7);
    const shape = (m: Record<string, unknown>) => (m.id === null ? (m.error as { message: string }).message.split(":")[0] : m.id);
    expect(messages.map(shape)).toEqual([1, "Parse error", "Invalid Request", 2, 3, "Invalid Request", "Parse error"]);
  });

  it("does not start on an invalid registry: the findings on stderr, exit 1", () => {
    const p = baseProject();
    p.registry.fallback = 42 as unknown as string;
    const r = failbook(["mcp"], { cwd: tempProject(projectFiles(p)), input: "" });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("cannot serve mcp: the registry is invalid");
  });
});

describe("failbook mcp is loaded only when it runs", () => {
  // The SDK and zod are bundled into dist/bundle/mcp-server.js, which only `failbook mcp` loads.
  const sdk = (urls: string[]) => urls.filter((u) => u.includes("@modelcontextprotocol") || u.includes("/node_modules/zod/") || u.endsWith("/mcp-server.js"));

  it("lint, classify and --help load neither the MCP SDK nor zod; mcp does", () => {
    const dir = project();
    for (const args of [["lint"], ["classify", "--error", '{"kind":"timeout"}'], ["--help"]]) expect(sdk(modulesLoaded(args, dir)), args.join(" ")).toEqual([]);
    expect(sdk(modulesLoaded(["mcp"], dir)).length).toBeGreaterThan(0);
  });
});
