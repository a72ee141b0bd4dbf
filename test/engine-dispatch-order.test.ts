/**
 * Concurrent dispatches on one virtual clock interleave by microtasks (a storm, a wave, a
 * saga's steps): which dispatch reads the clock after which, and which caller hears of its
 * end first, decide the outputs. This pins that order, job by job, for every way a dispatch's
 * first attempt can go (sync and async answers, ok, failing then retried, ending at once,
 * throwing, rejecting, a bad trace id), with and without effects: a change to how dispatch()
 * waits for the first attempt must keep every line in place.
 */
import { describe, expect, it } from "vitest";
import type { Response } from "failbook-runtime/model/fixture.js";
import { VirtualClock } from "failbook-runtime/engine/clock.js";
import { createDispatcher, type AttemptFn, type Effects } from "failbook-runtime/engine/dispatch.js";
import { seededRandom } from "failbook-runtime/engine/random.js";
import { CALL, err, ok, playbook, REGISTRY, retry } from "./helpers/dispatch.js";

const needsInput: Response = { status: "needs_input", question: "Which account?" };
const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

/** How an attempt answers: at once, in a resolved promise, after `hops` microtasks, or not at all. */
type Answer = { sync: Response } | { resolved: Response } | { later: Response; hops: number } | { thenable: Response } | { thenGetterThrows: string } | { throws: string } | { rejects: string };

/** The log of one run: each dispatch's events, attempts, effects and end, and a probe counting microtasks. */
async function interleaving(effects: boolean, only?: readonly string[]): Promise<string[]> {
  const log: string[] = [];
  const clock = new VirtualClock();
  const effectsLogged: Effects = {
    escalate: async (packet) => {
      log.push(`escalate ${packet.failed_step}`);
      await null;
      log.push(`escalated ${packet.failed_step}`);
    },
    deadLetter: (entry) => void log.push(`dead letter ${entry.queue}`),
  };
  const dispatcher = createDispatcher({
    registry: REGISTRY,
    playbook: playbook({ timeout: retry(3), denied: { action: "escalate_to_human", queue: "policy" }, refused: { action: "dead_letter", queue: "dlq" } }),
    clock,
    random: seededRandom(0),
    onEvent: (event) => log.push(`${event.type}${"n" in event ? ` ${event.n}` : ""} @${event.t}`),
    ...(effects ? { effects: effectsLogged } : {}),
  });
  const attempts = (id: string, answers: Answer[]): AttemptFn => (_call, n) => {
    const answer = answers[n - 1]!;
    log.push(`${id} sends ${n} @${clock.now()}`);
    clock.advance(10);
    if ("sync" in answer) return answer.sync;
    if ("resolved" in answer) return Promise.resolve(answer.resolved);
    if ("throws" in answer) throw new Error(answer.throws);
    if ("rejects" in answer) return Promise.reject(new Error(answer.rejects));
    // Not a promise, but `await` takes it as one: its `then` is called a job later.
    if ("thenable" in answer) return { then: (resolve: (r: Response) => void) => resolve(answer.thenable) } as unknown as Response;
    if ("thenGetterThrows" in answer) {
      return Object.defineProperty({ status: "ok", value: 1 }, "then", {
        get() {
          throw new Error(answer.thenGetterThrows);
        },
      }) as Response;
    }
    let p: Promise<Response> = Promise.resolve(answer.later);
    for (let k = 0; k < answer.hops; k++) p = p.then((r) => r);
    return p;
  };
  const cases: [string, Answer[], { traceId?: string; key?: string }?][] = [
    ["ok-sync", [{ sync: ok() }]],
    ["ok-async", [{ resolved: ok() }], { traceId: TRACE }],
    ["ok-late", [{ later: ok(), hops: 3 }], { key: "order-42" }],
    ["retried-sync", [{ sync: err("timeout") }, { sync: ok() }]],
    ["retried-async", [{ resolved: err("timeout") }, { later: ok(), hops: 2 }], { traceId: TRACE }],
    ["question", [{ sync: needsInput }]],
    ["question-async", [{ resolved: needsInput }]],
    ["escalated", [{ sync: err("denied") }]],
    ["dead-lettered", [{ resolved: err("refused") }]],
    ["empty-ok", [{ sync: { status: "ok" } }]],
    ["ok-thenable", [{ thenable: ok() }]],
    ["retried-thenable", [{ thenable: err("timeout") }, { thenable: ok() }]],
    ["then-getter-throws", [{ thenGetterThrows: "no then" }]],
    ["throws", [{ throws: "boom" }]],
    ["rejects", [{ rejects: "gone" }]],
    ["bad-trace", [{ sync: ok() }], { traceId: "not-a-trace-id" }],
  ];
  const probe = (async () => {
    for (let k = 0; k < 12; k++) {
      log.push(`tick ${k}`);
      await null;
    }
  })();
  const ends = cases.filter(([id]) => only === undefined || only.includes(id)).map(([id, answers, more]) =>
    dispatcher
      .dispatch({ ...CALL, id, ...(more?.key === undefined ? {} : { idempotency_key: more.key }) }, attempts(id, answers), { runId: "run_1", ...(more?.traceId === undefined ? {} : { traceId: more.traceId }) })
      .then(
        (r) => log.push(`${id} ends ${r.outcome.kind} ${r.outcome.envelope.trace_id} @${clock.now()}`),
        (e: Error) => log.push(`${id} rejects ${e.constructor.name} ${e.message.slice(0, 40)}`),
      ),
  );
  await Promise.all([...ends, probe]);
  return log;
}

/** The dispatches whose end the effects change (escalated, dead-lettered, ended at once), among others. */
const WITH_EFFECTS = ["ok-sync", "retried-async", "question", "escalated", "dead-lettered", "rejects"];

describe("concurrent dispatches keep their order, microtask by microtask", () => {
  it("every way a first attempt can go", async () => {
    expect((await interleaving(false)).join("\n")).toBe(EXPECTED.all);
  });
  it("with effects (an escalation that awaits, a dead letter)", async () => {
    expect((await interleaving(true, WITH_EFFECTS)).join("\n")).toBe(EXPECTED.effects);
  });
});

const EXPECTED = {
  all: `tick 0
ok-sync sends 1 @0
ok-async sends 1 @10
ok-late sends 1 @20
retried-sync sends 1 @30
retried-async sends 1 @40
question sends 1 @50
question-async sends 1 @60
escalated sends 1 @70
dead-lettered sends 1 @80
empty-ok sends 1 @90
ok-thenable sends 1 @100
retried-thenable sends 1 @110
then-getter-throws sends 1 @120
throws sends 1 @130
rejects sends 1 @140
tick 1
attempt 1 @150
attempt 1 @140
attempt 1 @120
failure_classified @120
retry_scheduled @120
attempt 1 @210
failure_classified @210
retry_scheduled @210
attempt 1 @300
attempt 1 @290
attempt 1 @280
failure_classified @280
attempt 1 @270
failure_classified @270
attempt 1 @260
throws rejects Error boom
bad-trace rejects TypeError failbook: DispatchOptions.traceId must b
tick 2
ok-sync ends succeeded fb_cbb5b3f8845f @350
ok-async ends succeeded 4bf92f3577b34da6a3ce929d0e0e4736 @350
question ends needs_input fb_5fc7fc73c561 @350
question-async ends needs_input fb_20922080111c @350
empty-ok ends succeeded fb_0f0950b5763d @350
attempt 1 @250
attempt 1 @240
failure_classified @240
retry_scheduled @240
then-getter-throws rejects Error no then
rejects rejects Error gone
tick 3
retried-sync sends 2 @450
retried-async sends 2 @460
escalated @400
dead_lettered @390
ok-thenable ends succeeded fb_0f74bd974c0c @470
tick 4
attempt 1 @450
attempt 2 @440
escalated ends escalated fb_519067e56ce8 @470
dead-lettered ends dead_lettered fb_492768f63666 @470
retried-thenable sends 2 @470
tick 5
ok-late ends succeeded fb_b86b7e2c1c2b @480
tick 6
retried-sync ends recovered fb_0159b2cccbbe @480
attempt 2 @440
attempt 2 @370
tick 7
tick 8
retried-async ends recovered 4bf92f3577b34da6a3ce929d0e0e4736 @480
retried-thenable ends recovered fb_737c1d9146b6 @480
tick 9
tick 10
tick 11`,
  effects: `tick 0
ok-sync sends 1 @0
retried-async sends 1 @10
question sends 1 @20
escalated sends 1 @30
dead-lettered sends 1 @40
rejects sends 1 @50
tick 1
attempt 1 @60
attempt 1 @50
failure_classified @50
retry_scheduled @50
attempt 1 @140
attempt 1 @130
failure_classified @130
attempt 1 @120
failure_classified @120
tick 2
ok-sync ends succeeded fb_cbb5b3f8845f @160
rejects rejects Error gone
tick 3
retried-async sends 2 @160
question ends needs_input fb_5fc7fc73c561 @170
escalated @140
escalate escalated
dead_lettered @130
dead letter dlq
tick 4
escalated escalated
tick 5
tick 6
attempt 2 @160
dead-lettered ends dead_lettered fb_492768f63666 @170
tick 7
escalated ends escalated fb_519067e56ce8 @170
tick 8
tick 9
retried-async ends recovered 4bf92f3577b34da6a3ce929d0e0e4736 @170
tick 10
tick 11`,
};
