/**
 * The language server writes each diagnostic's JSON once (lsp/transport.ts, `encode`): after
 * an edit it publishes the file's thousands of diagnostics again, most of them the objects it
 * sent before. What goes on the wire must be exactly JSON.stringify's text of the message.
 */
import { describe, expect, it } from "vitest";
import type { Message } from "vscode-languageserver/node";
import { encode } from "../src/lsp/transport.js";

const diagnostic = (i: number) => ({
  range: { start: { line: i, character: 4 }, end: { line: i, character: 9 } },
  severity: 1 + (i % 3),
  code: "verdict-untested",
  source: "failbook",
  message: `verdict 'svc${i}.a"b\\c\u2028é' has no examples`,
  ...(i % 2 ? { relatedInformation: [{ location: { uri: "file:///p/r.yaml", range: { start: { line: 1, character: 1 }, end: { line: 1, character: 1 } } }, message: "here" }] } : {}),
  data: { fingerprint: `f${i}`, path: `verdicts[${i}].code` },
});

describe("encode", () => {
  it("writes a publishDiagnostics message as JSON.stringify does, the same diagnostics sent again included", () => {
    const diagnostics = Array.from({ length: 50 }, (_, i) => diagnostic(i));
    const publish = (version: number, list: unknown[]) => ({ jsonrpc: "2.0", method: "textDocument/publishDiagnostics", params: { uri: 'file:///p/"diagnostics":[]/registry.yaml', version, diagnostics: list } }) as Message;
    for (const message of [publish(1, diagnostics), publish(2, [diagnostic(99), ...diagnostics.slice(1)]), publish(3, []), publish(4, diagnostics)]) {
      expect(encode(message)).toBe(JSON.stringify(message));
    }
    const other = { jsonrpc: "2.0", id: 3, result: { contents: { kind: "markdown", value: "x" } } } as Message;
    expect(encode(other)).toBe(JSON.stringify(other));
  });
});
