/**
 * `failbook lsp` on a playbook's rate_limits (SPEC 22), with the real client over stdio on a
 * copy of examples/github-rate-limit: hover on a limit's name says what the limit does (as
 * render does) and on a dialect the exact headers it reads; completion offers a limit's keys,
 * the dialects of from_headers, the values of when_empty and adaptive, and a custom reset's keys.
 */
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CompletionItem, Hover } from "vscode-languageserver-protocol";
import { REPO } from "./helpers/cli.js";
import { positionOf, startLsp, type LspClient } from "./helpers/lsp.js";

const PLAYBOOK = "playbook.yaml";

describe("failbook lsp on rate_limits", () => {
  let root: string;
  let lsp: LspClient;
  let original: string;

  const hoverText = async (needle: string, offset = 1) => {
    const result = (await lsp.connection.sendRequest("textDocument/hover", { textDocument: { uri: lsp.uri(PLAYBOOK) }, position: positionOf(lsp.text(PLAYBOOK), needle, offset) })) as Hover | null;
    return result === null ? "" : typeof result.contents === "object" && "value" in result.contents ? result.contents.value : JSON.stringify(result.contents);
  };
  const complete = async (text: string, needle: string, offset: number) => {
    await lsp.change(PLAYBOOK, text);
    const items = (await lsp.connection.sendRequest("textDocument/completion", { textDocument: { uri: lsp.uri(PLAYBOOK) }, position: positionOf(text, needle, offset) })) as CompletionItem[];
    await lsp.change(PLAYBOOK, original);
    return items.map((i) => i.label);
  };

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "failbook-lsp-rl-"));
    cpSync(join(REPO, "examples/github-rate-limit"), root, { recursive: true });
    lsp = await startLsp(root);
    await lsp.open(PLAYBOOK);
    original = lsp.text(PLAYBOOK);
  });
  afterAll(async () => {
    if (lsp) expect(await lsp.close()).toBe(0);
  });

  it("hovers rate_limits and a limit's keys with the schema's words", async () => {
    expect(await hoverText("rate_limits:")).toContain("Rate limits by name (SPEC 22)");
    expect(await hoverText("max_wait_ms: 10000")).toContain("The longest an attempt waits for a token");
    expect(await hoverText("when_empty: wait")).toContain("No token: wait for one");
  });

  it("hovers a limit's name with what it does, as render shows it", async () => {
    const text = await hoverText("  github:\n    tools", 3);
    expect(text).toContain("**github** (rate limit)");
    expect(text).toContain("paces github.* at 5000 requests every 60 min (a token bucket of 100)");
    expect(text).toContain("an attempt it refuses is not sent: it fails at once as the adapter error rate_limited, which classifies to paced_out");
  });

  it("hovers a dialect with the exact headers it reads", async () => {
    const text = await hoverText("from_headers: github", 15);
    expect(text).toContain("**github** (rate-limit headers)");
    expect(text).toContain("`x-ratelimit-remaining`");
    expect(text).toContain("`x-ratelimit-reset` (a Unix time in seconds)");
    expect(text).toContain("`x-ratelimit-limit`");
  });

  it("completes a limit's keys, the dialects, when_empty, adaptive and a custom reset's keys", async () => {
    const keys = await complete(original.replace("    max_wait_ms: 10000\n", "    max_wait_ms: 10000\n    \n"), "10000\n    \n", 10);
    expect(keys).toEqual(expect.arrayContaining(["tools", "limit", "burst", "from_headers", "when_empty", "max_wait_ms", "adaptive"]));
    expect(await complete(original.replace("from_headers: github", "from_headers: "), "from_headers: \n", 14)).toEqual(["github", "openai", "anthropic", "ietf"]);
    expect(await complete(original.replace("when_empty: wait", "when_empty: "), "when_empty: \n", 12)).toEqual(["wait", "fail"]);
    expect(await complete(original.replace("    max_wait_ms: 10000\n", "    adaptive: \n"), "adaptive: \n", 10)).toEqual(["aws"]);
    const custom = original.replace("from_headers: github", "from_headers:\n      remaining: x-left\n      reset:\n        ");
    expect(await complete(custom, "reset:\n        ", 15)).toEqual(expect.arrayContaining(["name", "epoch", "duration"]));
    expect(await complete(original.replace("from_headers: github", "from_headers:\n      "), "from_headers:\n      ", 20)).toEqual(expect.arrayContaining(["remaining", "reset", "limit"]));
  });
});
