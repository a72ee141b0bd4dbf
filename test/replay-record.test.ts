import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { VirtualClock } from "failbook-runtime/engine/clock.js";
import { createDispatcher, type AttemptFn } from "failbook-runtime/engine/dispatch.js";
import { seededRandom } from "failbook-runtime/engine/random.js";
import type { Response } from "failbook-runtime/model/fixture.js";
import type { DispatchRecord } from "failbook-runtime/model/record.js";
import { parseRecord } from "../src/replay/chunk.js";
import { Replayer } from "../src/replay/replayer.js";
import { createRecordWriter } from "failbook-runtime/replay/writer.js";
import { err, ok, playbook, REGISTRY, retry } from "./helpers/dispatch.js";

const PLAYBOOK = playbook({ timeout: retry(3), conflict: { action: "deprecate_tool_call", reason: "done", replan: true }, unknown: { action: "fail" } });

/** An attempt function that plays `responses` and takes each one's latency on the clock, as a real call would. */
function upstream(clock: VirtualClock, responses: Response[]): AttemptFn {
  return (_call, n) => {
    const r = responses[n - 1];
    clock.advance(r.latency_ms ?? 0);
    const { latency_ms: _latency, ...rest } = r;
    return rest as Response;
  };
}

async function dispatchAndRecord(responses: Response[], args: Record<string, unknown> = {}): Promise<{ record: DispatchRecord; kind: string }> {
  const clock = new VirtualClock();
  const dispatcher = createDispatcher({ registry: REGISTRY, playbook: PLAYBOOK, clock, random: seededRandom(0) });
  const records: DispatchRecord[] = [];
  const { outcome } = await dispatcher.dispatch({ id: "c1", tool: "payments.refund", args }, upstream(clock, responses), { runId: "run_9", record: (r) => void records.push(r) });
  expect(records).toHaveLength(1);
  return { record: records[0], kind: outcome.kind };
}

describe("dispatch(..., { record })", () => {
  it("writes one redacted record per finished dispatch: the attempts in order with measured latencies, and what it decided", async () => {
    const { record } = await dispatchAndRecord([err("timeout", { message: "auth Bearer abcdefghijklmnopqrstuvwxyz012345 timed out" }, 30), ok(12)], { password: "hunter2hunter2", amount: 5 });
    expect(record).toEqual({
      apiVersion: "failbook/v1",
      kind: "Record",
      run_id: "run_9",
      call: { id: "c1", tool: "payments.refund", args: { password: "[REDACTED]", amount: 5 } },
      responses: [
        { status: "error", error: { kind: "timeout", message: "auth Bearer [REDACTED] timed out" }, latency_ms: 30 },
        // A value is kept only as "there was one": production payloads stay in production.
        { status: "ok", value: true, latency_ms: 12 },
      ],
      outcome: { kind: "recovered", verdict: "timeout", attempts: 2, retried: 1, reason: null },
    });
    expect(parseRecord(JSON.stringify(record))).toEqual(record);
  });

  it.each([
    { name: "recovers", responses: [err("timeout", {}, 30), err("timeout", {}, 30), ok(5)] },
    { name: "deprecated", responses: [err("conflict", {}, 3)] },
    { name: "fails", responses: [err("mystery", {}, 3)] },
  ])("a record replays to what production decided ($name)", async ({ responses }) => {
    const { record, kind } = await dispatchAndRecord(responses);
    const replayed = await new Replayer({ registry: REGISTRY, playbook: PLAYBOOK }).replay(record);
    expect(replayed.kind).toBe(kind);
    expect(replayed.kind).toBe(record.outcome?.kind);
  });

  it("a replay decides by what an action reads of the call (its reversal token), never by its id, arguments or idempotency key", async () => {
    const reversing = playbook({ conflict: { action: "issue_reversal", reason: "undo the capture" } });
    const replay = (call: DispatchRecord["call"]) =>
      new Replayer({ registry: REGISTRY, playbook: reversing }).replay({ apiVersion: "failbook/v1", kind: "Record", call, responses: [err("conflict", {}, 3)] });
    const withToken = await replay({ id: "c1", tool: "payments.refund", args: { amount: 5 }, reversal_token: "rv_1" });
    expect(withToken).toEqual({ kind: "reversed", verdict: "conflict" });
    expect(await replay({ id: "another", tool: "payments.refund", args: { amount: 7, note: "token=abcdefgh" }, idempotency_key: "k-2", reversal_token: "rv_2" })).toEqual(withToken);
    expect(await replay({ id: "c1", tool: "payments.refund", args: { amount: 5 } })).toEqual({ kind: "exhausted", verdict: "conflict" });
  });

  it("createRecordWriter appends JSON lines, gzipped by suffix", async () => {
    const dir = mkdtempSync(join(tmpdir(), "failbook-records-"));
    for (const name of ["r.jsonl", "r.jsonl.gz"]) {
      for (let run = 0; run < 2; run++) {
        const writer = createRecordWriter(join(dir, name));
        const { record } = await dispatchAndRecord([ok(1)]);
        await writer.sink(record);
        await writer.close();
      }
      const bytes = readFileSync(join(dir, name));
      const text = name.endsWith(".gz") ? gunzipSync(bytes).toString("utf8") : bytes.toString("utf8");
      const lines = text.trimEnd().split("\n");
      expect(lines).toHaveLength(2);
      for (const line of lines) expect(parseRecord(line)).toMatchObject({ kind: "Record", outcome: { kind: "succeeded" } });
    }
  });
});
