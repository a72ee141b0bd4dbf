/** Record corpora for replay tests: small, seeded, for the change-control test project (helpers/change-project.ts). */
import { gzipSync } from "node:zlib";

type Json = Record<string, unknown>;

const ok = (latency = 10): Json => ({ status: "ok", value: true, latency_ms: latency });
const timeout = (): Json => ({ status: "error", error: { kind: "timeout", message: "upstream timed out" }, latency_ms: 30 });
const conflict = (): Json => ({ status: "error", error: { kind: "409_conflict" }, latency_ms: 5 });

export function record(runId: string, callId: string, responses: Json[], outcome?: Json): Json {
  return { apiVersion: "failbook/v1", kind: "Record", run_id: runId, call: { id: callId, tool: "search.query" }, responses, ...(outcome ? { outcome } : {}) };
}

/** The shapes a corpus draws from, with what the base project decides for each. */
export const SHAPES = {
  succeeds: () => ({ responses: [ok()], outcome: { kind: "succeeded", verdict: null, attempts: 1 } }),
  recovers: () => ({ responses: [timeout(), ok()], outcome: { kind: "recovered", verdict: "timeout", attempts: 2 } }),
  conflict: () => ({ responses: [conflict()], outcome: { kind: "deprecated", verdict: "conflict", attempts: 1 } }),
  /** Production gave up after one timeout; the base project would retry: beyond the recording. */
  gaveUp: () => ({ responses: [timeout()], outcome: { kind: "failed", verdict: "timeout", attempts: 1 } }),
};

/** `count` records, seeded, as JSON Lines; every `invalidEvery`-th line is broken in turn one of four ways. */
export function corpus(count: number, seed = 1, invalidEvery = 0): string {
  let a = seed >>> 0;
  const random = () => {
    a = (a * 1664525 + 1013904223) >>> 0;
    return a / 4294967296;
  };
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    if (invalidEvery > 0 && i % invalidEvery === invalidEvery - 1) {
      const broken = [
        "{not json",
        JSON.stringify({ apiVersion: "failbook/v1", kind: "Record", call: { id: `c${i}`, tool: "t" }, responses: [] }),
        JSON.stringify({ apiVersion: "failbook/v1", kind: "Record", call: { id: `c${i}` }, responses: [ok()] }),
        JSON.stringify([1, 2, 3]),
      ];
      lines.push(broken[(i / invalidEvery) % 4 | 0]);
      continue;
    }
    const r = random();
    const shape = r < 0.55 ? SHAPES.succeeds() : r < 0.8 ? SHAPES.recovers() : r < 0.92 ? SHAPES.conflict() : SHAPES.gaveUp();
    lines.push(JSON.stringify(record(`run_${Math.floor(i / 5)}`, `call_${i}`, shape.responses, shape.outcome)));
  }
  return lines.join("\n") + "\n";
}

export const gz = (text: string): Buffer => gzipSync(Buffer.from(text, "utf8"));
