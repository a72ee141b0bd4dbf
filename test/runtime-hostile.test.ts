/**
 * The runtime under hostile adapters (SPEC 21, issue 37 items 1-10): what a real adapter,
 * a careless caller or a broken sink can hand the dispatcher, and what must hold anyway:
 * no timer fires early, every policy counter is released, nothing throws a TypeError,
 * no secret reaches any output, a sink never changes a dispatch's fate, memory stays bounded.
 */
import { describe, expect, it } from "vitest";
import { realClock, VirtualClock, type Clock } from "failbook-runtime/engine/clock.js";
import { createDispatcher, type AttemptFn } from "failbook-runtime/engine/dispatch.js";
import { seededRandom } from "failbook-runtime/engine/random.js";
import { createRedactor, rememberRedactions } from "failbook-runtime/engine/redact.js";
import type { DispatchRecord } from "failbook-runtime/model/record.js";
import type { Response } from "failbook-runtime/model/fixture.js";
import { CALL, err, ok, playbook, REGISTRY, replay, retry } from "./helpers/dispatch.js";

const SECRETS = ["hunter2-very-secret", "AKIAIOSFODNN7EXAMPLE", "abcdefghijklmnop0123", "s3cr3t-client-value", "xk-live-0123456789"];

function leaks(value: unknown): string[] {
  const text = JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
  return SECRETS.filter((s) => text.includes(s));
}

describe("timers never overflow", () => {
  it("a wait of 2^31 ms or more is slept in steps, never fired early", async () => {
    const fired: number[] = [];
    const original = globalThis.setTimeout;
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    // Count the timers and their delays; end the wait by aborting it.
    const spy = ((fn: () => void, ms?: number) => {
      fired.push(ms ?? 0);
      return original(fn, Math.min(ms ?? 0, 20));
    }) as typeof setTimeout;
    globalThis.setTimeout = spy;
    try {
      const clock = realClock();
      const controller = new AbortController();
      let done = false;
      const sleep = clock.sleep(2 ** 31 + 5_000, controller.signal).then(() => (done = true));
      await new Promise((r) => original(r, 60));
      // Every step fits a 32-bit timer, and the first step's (shortened) end did not end the wait.
      expect(fired.every((ms) => ms <= 2 ** 31 - 1)).toBe(true);
      expect(done).toBe(false);
      controller.abort();
      await sleep;
    } finally {
      globalThis.setTimeout = original;
      process.off("warning", onWarning);
    }
    expect(warnings).not.toContain("TimeoutOverflowWarning");
  });

  it("retry_after_ms in a response obeys the caps a header obeys (at most 30 days, then max_ms)", async () => {
    const clock = new VirtualClock();
    const dispatcher = createDispatcher({ registry: REGISTRY, playbook: playbook({ server: retry(1) }, {}), clock, random: seededRandom(1) });
    const huge = await dispatcher.dispatch(CALL, replay(clock, [err("x", { http_status: 503, retry_after_ms: 1e15 }), ok()]));
    expect(huge.events.find((e) => e.type === "retry_scheduled")).toMatchObject({ delay_ms: 2_592_000_000 });
    const capped = createDispatcher({ registry: REGISTRY, playbook: playbook({ server: retry(1) }, { retry_after: { max_ms: 60_000, above_max: "cap" } }), clock, random: seededRandom(1) });
    const result = await capped.dispatch(CALL, replay(clock, [err("x", { http_status: 503, retry_after_ms: 1e15 }), ok()]));
    expect(result.events.find((e) => e.type === "retry_scheduled")).toMatchObject({ delay_ms: 60_000 });
  });
});

describe("every policy counter is released on every path", () => {
  const malformed: unknown[] = [undefined, null, "ok", 42, { status: "weird", secret: "password=hunter2-very-secret" }, { status: "ok", value: 1n }];
  it.each(malformed.map((m) => [JSON.stringify(m, (_k, v) => (typeof v === "bigint" ? `${v}n` : v)) ?? "undefined", m]))("a malformed response %s", async (_name, response) => {
    const clock = new VirtualClock();
    const dispatcher = createDispatcher({ registry: REGISTRY, playbook: playbook({ server: retry(2) }, { retry_budget: { percent: 20 } }), clock, random: seededRandom(1) });
    const budget = dispatcher.policies.budget!;
    for (let i = 0; i < 20; i++) {
      // first attempt malformed (the fast path), or a retry's (the run loop)
      const attempt: AttemptFn = i % 2 === 0 ? () => response as Response : (_c, n) => (n === 1 ? err("x", { http_status: 503 }) : (response as Response));
      const outcome = await dispatcher.dispatch(CALL, attempt).then(
        (r) => r.outcome.kind,
        (e: Error) => e.message,
      );
      if (typeof outcome === "string" && !["succeeded", "recovered"].includes(outcome)) {
        expect(outcome).not.toContain("hunter2");
      }
    }
    expect(budget.callsInProgress).toBe(0);
    expect(budget.retriesInProgress).toBe(0);
  });

  it("an onEvent that throws releases the budget's calls and retries", async () => {
    const clock = new VirtualClock();
    let n = 0;
    const dispatcher = createDispatcher({
      registry: REGISTRY,
      playbook: playbook({ server: retry(2) }, { retry_budget: { percent: 20 } }),
      clock,
      random: seededRandom(1),
      onEvent: () => {
        if (++n % 2 === 1) throw new Error("trace store down");
      },
    });
    for (let i = 0; i < 100; i++) {
      const responses = i % 2 === 0 ? [ok()] : [err("x", { http_status: 503 }), ok()];
      await dispatcher.dispatch(CALL, replay(clock, responses)).catch(() => undefined);
    }
    expect(dispatcher.policies.budget!.callsInProgress).toBe(0);
    expect(dispatcher.policies.budget!.retriesInProgress).toBe(0);
  });
});

describe("adapter errors of any shape are classified, never a TypeError", () => {
  const shapes: Record<string, unknown>[] = [
    { kind: "timeout", message: null },
    { message: "no kind at all" },
    { kind: 42, message: "a number kind" },
    { kind: null },
    { kind: "x", provider_code: null, http_status: 503 },
    { kind: "x", provider_code: 17, http_status: 503 },
    { kind: "x", message: { nested: true }, http_status: 503 },
  ];
  it.each(shapes.map((s) => [JSON.stringify(s), s]))("%s", async (_name, error) => {
    const clock = new VirtualClock();
    const dispatcher = createDispatcher({ registry: REGISTRY, playbook: playbook({ server: retry(1), timeout: retry(1), unknown: { action: "escalate_to_human", queue: "q" } }), clock, random: seededRandom(1) });
    const result = await dispatcher.dispatch(CALL, () => ({ status: "error", error }) as Response);
    expect(result.outcome.verdict).toEqual(expect.any(String));
    expect(JSON.parse(JSON.stringify(result))).toBeTruthy();
  });
});

describe("secrets never leave through dead letters, effects, errors or thrown messages", () => {
  const hostileError = () => ({
    kind: "conflict",
    message: "refused",
    headers: { "x-api-key": "xk-live-0123456789", authorization: "Bearer abcdefghijklmnop0123" },
    fields: { password: "hunter2-very-secret" },
    url: "https://admin:hunter2-very-secret@api.example.com/v1",
    config: { accessKeyId: "AKIAIOSFODNN7EXAMPLE", client_secret: "s3cr3t-client-value" },
    response: { data: { error: "Bearer abcdefghijklmnop0123 is invalid" } },
  });
  const call = { ...CALL, args: { password: "hunter2-very-secret", api_key: "xk-live-0123456789", nested: { client_secret: "s3cr3t-client-value" } } };

  it("dead letters, the deadLetter effect and result.errors are clean", async () => {
    const clock = new VirtualClock();
    const effected: unknown[] = [];
    const dispatcher = createDispatcher({
      registry: REGISTRY,
      playbook: playbook({ conflict: { action: "fail", message: "no" } }, { on_exhausted: { action: "dead_letter", queue: "dlq" } }),
      clock,
      random: seededRandom(1),
      effects: { deadLetter: (e) => void effected.push(e) },
    });
    const result = await dispatcher.dispatch(call, () => ({ status: "error", error: hostileError() }) as Response);
    // fail is not exhausted: make one that is
    const exhausted = createDispatcher({
      registry: REGISTRY,
      playbook: playbook({ server: retry(0) }, { on_exhausted: { action: "dead_letter", queue: "dlq" } }),
      clock,
      random: seededRandom(1),
      effects: { deadLetter: (e) => void effected.push(e) },
    });
    const dead = await exhausted.dispatch(call, () => ({ status: "error", error: { ...hostileError(), kind: "x", http_status: 503 } }) as Response);
    expect(dead.outcome.kind).toBe("dead_lettered");
    expect(leaks(result)).toEqual([]);
    expect(leaks(dead)).toEqual([]);
    expect(effected.length).toBeGreaterThan(0);
    expect(leaks(effected)).toEqual([]);
    const manual = await dispatcher.deadLetter({ queue: "q", call, step: null, errors: dead.errors, envelope: dead.outcome.envelope, first_attempt_ms: 0, dead_lettered_ms: 0 });
    expect(leaks(manual)).toEqual([]);
    // What is not secret survives: the error's kind and its harmless fields.
    expect(dead.errors[0]!.error).toMatchObject({ kind: "x", message: "refused", http_status: 503 });
  });

  it("an unknown response status is reported without the response's secrets", async () => {
    const dispatcher = createDispatcher({ registry: REGISTRY, playbook: playbook({}), clock: new VirtualClock(), random: seededRandom(1) });
    const error = await dispatcher.dispatch(CALL, () => ({ status: "weird", token: "password=hunter2-very-secret" }) as unknown as Response).catch((e: Error) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/invalid response/);
    expect((error as Error).message).not.toContain("hunter2");
  });
});

describe("a record sink never changes a dispatch's fate", () => {
  async function withSink(error: Record<string, unknown>): Promise<{ withSink: string; without: string; records: DispatchRecord[] }> {
    const records: DispatchRecord[] = [];
    const run = async (record?: (r: DispatchRecord) => void) => {
      const clock = new VirtualClock();
      const dispatcher = createDispatcher({ registry: REGISTRY, playbook: playbook({ server: retry(1) }), clock, random: seededRandom(1) });
      const result = await dispatcher.dispatch(CALL, replay(clock, [{ status: "error", error } as Response, ok()]), record ? { record } : {});
      return result.outcome.kind;
    };
    return { without: await run(), withSink: await run((r) => void records.push(r)), records };
  }

  it("a cyclic cause is written unrolled to the depth the classifier reads (8), and replays the same", async () => {
    const error: Record<string, unknown> = { kind: "x", http_status: 503 };
    error.cause = error;
    const { without, withSink: got, records } = await withSink(error);
    expect(got).toBe(without);
    expect(records).toHaveLength(1);
    let depth = 0;
    for (let e = records[0]!.responses[0]!.status === "error" ? (records[0]!.responses[0] as { error: { cause?: unknown } }).error : undefined; e?.cause; e = e.cause as { cause?: unknown }) depth++;
    expect(depth).toBe(8);
  });

  it("a BigInt header is written as a string", async () => {
    const { without, withSink: got, records } = await withSink({ kind: "x", http_status: 503, headers: { "x-request-id": 12n } });
    expect(got).toBe(without);
    expect(JSON.stringify(records[0])).toContain('"12"');
  });

  it("a sink that throws does not reject the dispatch", async () => {
    const clock = new VirtualClock();
    const seen: unknown[] = [];
    const dispatcher = createDispatcher({ registry: REGISTRY, playbook: playbook({}), clock, random: seededRandom(1), onRecordError: (e) => void seen.push(e) });
    const result = await dispatcher.dispatch(CALL, () => ok(), {
      record: () => {
        throw new Error("disk full");
      },
    });
    expect(result.outcome.kind).toBe("succeeded");
    expect(seen).toHaveLength(1);
  });
});

describe("the redaction memo is bounded in bytes", () => {
  it("twenty distinct 10 MB messages are not all kept", () => {
    let calls = 0;
    const memo = rememberRedactions((t) => {
      calls++;
      return t;
    });
    const big = (i: number) => String.fromCharCode(65 + i).repeat(10_000_000);
    for (let i = 0; i < 20; i++) memo(big(i));
    // A big text is not remembered: asking again redacts again.
    memo(big(0));
    expect(calls).toBe(21);
    // Short texts still are.
    memo("payments.refund");
    memo("payments.refund");
    expect(calls).toBe(22);
    expect(createRedactor()("x".repeat(100))).toBe("x".repeat(100));
  });
});

describe("headers in the shapes fetch and SDKs give them", () => {
  const shapes: [string, () => unknown][] = [
    ["a fetch Headers", () => new Headers({ "Retry-After": "7" })],
    ["a Map", () => new Map([["retry-after", "7"]])],
    ["a list of pairs", () => [["Retry-After", "7"]]],
    ["a plain object", () => ({ "retry-after": "7" })],
  ];
  it.each(shapes)("%s: Retry-After is honoured", async (_name, headers) => {
    const clock = new VirtualClock();
    const dispatcher = createDispatcher({ registry: REGISTRY, playbook: playbook({ server: retry(1, [100]) }, {}), clock, random: seededRandom(1) });
    const result = await dispatcher.dispatch(CALL, replay(clock, [{ status: "error", error: { kind: "x", http_status: 503, headers: headers() } } as unknown as Response, ok()]));
    expect(result.events.find((e) => e.type === "retry_scheduled")).toMatchObject({ delay_ms: 7000 });
    expect(Object.entries(result.errors[0]!.error!.headers!).map(([k, v]) => [k.toLowerCase(), v])).toEqual([["retry-after", "7"]]);
  });
});

export const clockFor = (): Clock => new VirtualClock();

describe("every record the runtime writes replays", () => {
  it("a call that met an open breaker and recovered through its fallback (examples/payments-breaker)", async () => {
    const { loadProject } = await import("../src/load/project.js");
    const { failbook, REPO } = await import("./helpers/cli.js");
    const { createRecordWriter } = await import("failbook-runtime/replay/writer.js");
    const { mkdtempSync, readFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const cwd = join(REPO, "examples/payments-breaker");
    const { project } = loadProject({ cwd });
    const clock = new VirtualClock();
    const dispatcher = createDispatcher({ registry: project.registry!.value, playbook: project.playbook!.value, clock, random: seededRandom(1), state: { breakers: { payments: "open" } } });
    const file = join(mkdtempSync(join(tmpdir(), "failbook-records-")), "breaker.jsonl");
    const writer = createRecordWriter(file);
    const result = await dispatcher.dispatch({ id: "charge-1", tool: "payments.charge", args: { amount_cents: 1250 } }, (_c, _n, _k, context) => (context.fallback ? ok() : ok()), { record: writer.sink });
    await writer.close();
    expect(result.outcome).toMatchObject({ kind: "recovered", verdict: "payments_circuit_open" });
    const record = JSON.parse(readFileSync(file, "utf8")) as DispatchRecord;
    expect(record.responses).toEqual([{ status: "error", error: { kind: "circuit_open", message: "circuit payments is open", side_effect_state: "none" }, latency_ms: 0 }]);
    const replay = failbook(["replay", file, "--format", "json", "--workers", "1"], { cwd });
    expect(replay.stderr).toBe("");
    expect(replay.code).toBe(0);
    expect(JSON.parse(replay.stdout)).toMatchObject({ records: 1, invalid: 0 });
  });

  it("the record writer waits for drain once, however many dispatches write at once", async () => {
    const { createRecordWriter } = await import("failbook-runtime/replay/writer.js");
    const { mkdtempSync, readFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const file = join(mkdtempSync(join(tmpdir(), "failbook-records-")), "many.jsonl");
    const writer = createRecordWriter(file);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    try {
      const record: DispatchRecord = { apiVersion: "failbook/v1", kind: "Record", call: { ...CALL, args: { pad: "x".repeat(2000) } }, responses: [ok(1)] };
      await Promise.all(Array.from({ length: 2000 }, () => writer.sink(record)));
      await writer.close();
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings).not.toContain("MaxListenersExceededWarning");
    expect(readFileSync(file, "utf8").trimEnd().split("\n")).toHaveLength(2000);
  });
});
