/**
 * The thread that checks `message_matches` patterns for failbook lsp (lsp/patterns.ts): recheck
 * may take seconds on one pattern, and the server's own thread must go on answering meanwhile.
 * It judges each pattern it is sent and posts the verdict back.
 */
import { parentPort } from "node:worker_threads";
import { judgePattern } from "../load/regex-safety.js";

const port = parentPort!;
port.on("message", (pattern: string) => {
  try {
    port.postMessage({ pattern, why: judgePattern(pattern) });
  } catch (e) {
    port.postMessage({ pattern, error: (e as Error)?.stack ?? String(e) });
  }
});
