/**
 * SPEC 25: the record writer of failbook_runtime for Python writes, byte for byte, the records
 * the TypeScript runtime writes (SPEC 14: redacted, secret-named keys replaced, errors in their
 * schema shape, latencies as measured or as the response named them, short-circuited attempts,
 * timed-out attempts, fallbacks), and `failbook replay` reads a Python service's records as it
 * reads the TypeScript one's. The same scripted stretch of production runs through both
 * runtimes on virtual clocks; each writes `records.jsonl.gz` with its own writer.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { VirtualClock } from "failbook-runtime/engine/clock.js";
import { createDispatcher } from "failbook-runtime/engine/dispatch.js";
import { seededRandom, type Random } from "failbook-runtime/engine/random.js";
import type { Call, Response } from "failbook-runtime/model/fixture.js";
import { createRecordWriter } from "failbook-runtime/replay/writer.js";
import { generatePython } from "../src/codegen/python.js";
import { loadProject } from "../src/load/project.js";
import { failbook, REPO } from "./helpers/cli.js";
import { NO_PYTHON_MESSAGE, PYTHON } from "./helpers/python.js";

const START = Date.UTC(2026, 10, 1, 8, 30, 0, 250);
const SEED = 7;

interface Answer {
  latency: number;
  response: Response;
}
interface Scripted {
  call: Call;
  run_id?: string;
  answers: Answer[];
}

const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** What the upstream answers, attempt by attempt: failures of every shape a record keeps (or leaves out), then ok. */
function script(count: number): Scripted[] {
  const random = seededRandom(2026);
  const failures: Answer[] = [
    { latency: 3000, response: { status: "error", error: { kind: "timeout", message: "read ETIMEDOUT after 3000 ms" } } },
    { latency: 5000, response: { status: "error", error: { kind: "timeout" }, latency_ms: 5000 } },
    { latency: 40, response: { status: "error", error: { kind: "http", http_status: 429, headers: { "retry-after": "1", authorization: "Bearer sk_live_abcdefghijklmnop" } } } },
    { latency: 15, response: { status: "error", error: { kind: "http", http_status: 503, message: "upstream connect error at https://user:pw@payments.example.com/v1" } } },
    { latency: 300, response: { status: "error", error: { kind: "http", http_status: 402, message: "card_declined", provider_code: "card_declined", request: { url: "https://api.example.com?key=sk_live_zzzzzzzzzzzzzzzz" } } as never } },
    { latency: 5, response: { status: "error", error: { kind: "tls", message: "certificate has expired", http_status: 99.5, retry_after_ms: -40, side_effect_state: "maybe" } as never } },
    { latency: 12, response: { status: "error", error: { kind: 42, message: null, cause: { kind: "econnreset", cause: { kind: "socket", message: "password=hunter2" } } } as never } },
    { latency: 7, response: { status: "error", latency_ms: -1 } as never },
    { latency: 9, response: { status: "needs_input", question: "which card? token=abc123secret", latency_ms: 2.5 } },
    { latency: 1, response: { status: "ok" } },
  ];
  return Array.from({ length: count }, (_, i) => {
    const r = random();
    const n = 1 + Math.floor(random() * 3);
    const answers = r < 0.4 ? [] : Array.from({ length: n }, () => pick(random, failures));
    const call: Record<string, unknown> = { id: `charge_${i}`, tool: "payments.charge", args: { amount: 100 + (i % 50), card: "tok_visa", api_key: "sk_live_51Hx9exampleexampleexample", note: "é \u202e password=hunter2", nested: { secret_token: "s3", list: [1, 2.5, null] }, sk_live_51HxKeyNamedLikeASecret0: 1 } };
    if (i % 7 === 0) call.idempotency_key = `order-${i}`;
    return { call: call as unknown as Call, ...(i % 5 === 0 ? {} : { run_id: `checkout_${Math.floor(i / 4)}` }), answers };
  });
}

async function typescriptRecords(dir: string, calls: Scripted[], out: string): Promise<void> {
  const { project } = loadProject({ cwd: dir });
  class EpochClock extends VirtualClock {
    epochMs = (): number => START + this.now();
  }
  const clock = new EpochClock();
  const dispatcher = createDispatcher({ registry: project.registry!.value, playbook: project.playbook!.value, clock, random: seededRandom(SEED) });
  const writer = createRecordWriter(out);
  for (const { call, run_id, answers } of calls) {
    await dispatcher.dispatch(
      call,
      (_call, n, _key, context) => {
        const answer = n - 1 < answers.length && !context.fallback ? answers[n - 1]! : { latency: 120, response: { status: "ok", value: { charged: true } } as Response };
        clock.advance(answer.latency);
        return answer.response;
      },
      { ...(run_id === undefined ? {} : { runId: run_id }), record: writer.sink },
    );
    clock.advance(1000);
  }
  await writer.close();
}

function pythonRecords(dir: string, calls: Scripted[], out: string, work: string): void {
  const bindings = join(work, "bindings.py");
  writeFileSync(bindings, generatePython(loadProject({ cwd: dir }).project).text);
  const pkg = join(REPO, "packages/runtime-py");
  const r = spawnSync(PYTHON!, [join(pkg, "tests/write_records.py")], {
    input: JSON.stringify({ bindings, out, start: START, seed: SEED, calls }),
    encoding: "utf8",
    env: { ...process.env, PYTHONPATH: pkg, PYTHONDONTWRITEBYTECODE: "1" },
  });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
}

describe.skipIf(PYTHON === null)("records written by the Python runtime (SPEC 14, 25)", () => {
  if (PYTHON === null) it.skip(NO_PYTHON_MESSAGE, () => {});

  it.each(["examples/replay-playbook-edit", "examples/payments-breaker"])("%s: the same bytes as the TypeScript runtime's, and failbook replay reads them alike", async (project) => {
    const dir = join(REPO, project);
    const work = mkdtempSync(join(tmpdir(), "failbook-py-records-"));
    const calls = script(300);
    for (const who of ["ts", "py"]) mkdirSync(join(work, who));
    await typescriptRecords(dir, calls, join(work, "ts/records.jsonl.gz"));
    pythonRecords(dir, calls, join(work, "py/records.jsonl.gz"), work);
    const ts = gunzipSync(readFileSync(join(work, "ts/records.jsonl.gz"))).toString("utf8");
    const py = gunzipSync(readFileSync(join(work, "py/records.jsonl.gz"))).toString("utf8");
    const lines = ts.trimEnd().split("\n");
    expect(lines).toHaveLength(300);
    // The scenario reaches what a record must get right: redaction, schema-shaped errors, measured latencies, timeouts.
    const has = (text: string) => ts.includes(text);
    expect([has('"api_key":"[REDACTED]"'), has("hunter2"), has("sk_live"), has('"at":"2026-11-01T08:30:00.250Z"'), has("\\u202e")]).toEqual([true, false, false, true, true]);
    // payments-breaker's breaker: short-circuited attempts, and the fallbacks they lead to.
    if (project.endsWith("payments-breaker")) expect([has('"kind":"circuit_open"'), has('"fallback_responses"')]).toEqual([true, true]);
    const differing = py.split("\n").findIndex((line, i) => line !== ts.split("\n")[i]);
    if (differing >= 0) expect(py.split("\n")[differing], `record ${differing + 1}`).toBe(ts.split("\n")[differing]);
    expect(py).toBe(ts);
    const replayed = (who: string) => failbook(["--config", join(dir, "failbook.yaml"), "replay", "records.jsonl.gz", "--format", "json", "--workers", "1"], { cwd: join(work, who) });
    const fromTs = replayed("ts");
    const fromPy = replayed("py");
    expect(fromPy.stderr).toBe("");
    // Replayed under the playbook that wrote them, every record (none invalid) ends as production saw it.
    const report = JSON.parse(fromPy.stdout) as { records: number; invalid: number; changed: number; unknown: number };
    expect([report.records, report.invalid, report.changed, report.unknown]).toEqual([300, 0, 0, 0]);
    expect(fromPy.stdout).toBe(fromTs.stdout);
    expect(fromPy.code).toBe(fromTs.code);
  }, 120_000);
});
