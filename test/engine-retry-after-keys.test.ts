/** SPEC 18: the retry_after keys that model what real SDKs read (fields, exact, invalid, parse, zero, order, clock). */
import { describe, expect, it } from "vitest";
import { applyRetryAfter, parseHint, parseHttpDate, readRetryAfter } from "failbook-runtime/engine/retry-after.js";
import type { AdapterError } from "failbook-runtime/model/fixture.js";
import type { RetryAfterPolicy } from "failbook-runtime/model/playbook.js";
import type { DispatchEvent } from "failbook-runtime/model/outcome.js";
import { dispatchScenario, err, ok, playbook, retry } from "./helpers/dispatch.js";

const delays = (events: DispatchEvent[]) => events.flatMap((e) => (e.type === "retry_scheduled" ? [e.delay_ms] : []));
const hint = (error: Partial<AdapterError>, policy: RetryAfterPolicy = {}, now = 0) => readRetryAfter({ kind: "busy", ...error }, policy, now).hintMs;

describe("decimal seconds are exact", () => {
  it.each([
    ["2.03", 2030],
    ["0.07", 70],
    ["1.005", 1005],
    ["0.0005", 0],
    ["4.35", 4350],
    ["  9.99 ", 9990],
    ["1e3", undefined], // not in the strict grammar
  ])("retry-after: %s is %s ms", (value, ms) => {
    expect(parseHint("retry-after", value, () => 0)).toBe(ms);
  });

  it("a -ms header keeps its whole milliseconds, floored", () => {
    expect(parseHint("retry-after-ms", "1.999", () => 0)).toBe(1);
  });
});

describe("parse: how a value reads", () => {
  it.each<[RetryAfterPolicy["parse"], string, number | undefined]>([
    ["strict", "1e3", undefined],
    ["number", "1e3", 1_000_000],
    ["number", "0x10", 16_000],
    ["number", "", 0], // JavaScript's Number("") is 0
    ["number", "3s", undefined],
    ["float", "3s", 3000],
    ["float", "2.03abc", 2030],
    ["float", "abc", undefined],
    ["float", "Infinity", undefined],
  ])("parse: %s reads %j as %s ms", (parse, value, ms) => {
    expect(hint({ headers: { "retry-after": value } }, { parse })).toBe(ms);
  });
});

describe("fields: declared numeric fields, read after the headers", () => {
  it("reads a field in milliseconds when no listed header is present", () => {
    expect(hint({ fields: { retry_delay_ms: 1500 } }, { fields: ["retry_delay_ms"] })).toBe(1500);
    expect(hint({ fields: { retry_delay_ms: 1500.9 } }, { fields: ["retry_delay_ms"] })).toBe(1500);
  });
  it("a listed header wins over a field; a field wins over retry_after_ms", () => {
    expect(hint({ headers: { "retry-after": "2" }, fields: { retry_delay_ms: 1500 } }, { fields: ["retry_delay_ms"] })).toBe(2000);
    expect(hint({ retry_after_ms: 9000, fields: { retry_delay_ms: 1500 } }, { fields: ["retry_delay_ms"] })).toBe(1500);
  });
  it("a field not listed is not read", () => {
    expect(hint({ fields: { retry_delay_ms: 1500 } }, {})).toBeUndefined();
  });
});

describe("zero: absent (the OpenAI SDK)", () => {
  it.each<[RetryAfterPolicy["zero"], Partial<AdapterError>, number | undefined]>([
    [undefined, { headers: { "retry-after-ms": "0" } }, 0],
    ["absent", { headers: { "retry-after-ms": "0" } }, undefined],
    ["absent", { headers: { "retry-after-ms": "0", "retry-after": "3" } }, 3000], // read on, as OpenAI's `!timeoutMillis`
    ["absent", { headers: { "retry-after-ms": "0.5" } }, 0], // a hint below 1 ms is still a hint
    ["absent", { headers: { "retry-after": "-1" } }, undefined], // a negative value reads as 0
    ["absent", { headers: { "retry-after": "Wed, 21 Oct 2015 07:28:00 GMT" } }, undefined], // a past date is 0
    ["absent", { retry_after_ms: 0 }, undefined],
  ])("zero: %s with %j gives %s", (zero, error, ms) => {
    expect(hint(error, { zero }, Date.parse("Wed, 21 Oct 2026 07:28:00 GMT"))).toBe(ms);
  });
});

describe("order: which of two present headers wins", () => {
  const error = { headers: { "retry-after": "3", "retry-after-ms": "1200" } };
  it("listed (default): the first the policy lists", () => {
    expect(hint(error, {})).toBe(1200);
    expect(hint(error, { order: "listed" })).toBe(1200);
  });
  it("response: the first the response carries", () => {
    expect(hint(error, { order: "response" })).toBe(3000);
    expect(hint({ headers: { "X-Other": "1", "Retry-After-Ms": "1200", "retry-after": "3" } }, { order: "response" })).toBe(1200);
  });
});

describe("clock: what an HTTP date is read against", () => {
  const error = { headers: { "retry-after": "Wed, 21 Oct 2026 07:28:30 GMT", date: "Wed, 21 Oct 2026 07:28:00 GMT" } };
  const local = Date.parse("Wed, 21 Oct 2026 07:28:20 GMT");
  it("date_header (default): the error's date header, else the local clock", () => {
    expect(hint(error, {}, local)).toBe(30_000);
    expect(hint(error, { clock: "date_header" }, local)).toBe(30_000);
    expect(hint({ headers: { "retry-after": "Wed, 21 Oct 2026 07:28:30 GMT" } }, {}, local)).toBe(10_000);
  });
  it("local: always the local clock", () => {
    expect(hint(error, { clock: "local" }, local)).toBe(10_000);
  });
});

describe("invalid: give_up", () => {
  it.each<[Partial<AdapterError>, RetryAfterPolicy]>([
    [{ headers: { "grpc-retry-pushback-ms": "-1" } }, { headers: ["grpc-retry-pushback-ms"], invalid: "give_up" }],
    [{ headers: { "retry-after": "soon" } }, { invalid: "give_up" }],
    [{ fields: { next_retry_delay: -5 } }, { fields: ["next_retry_delay"], invalid: "give_up" }],
  ])("%j is invalid under %j", (error, policy) => {
    const reading = readRetryAfter({ kind: "busy", ...error }, policy, 0);
    expect(reading.invalid).toBeDefined();
    expect(reading.hintMs).toBeUndefined();
    // ignore (the default) reads on: a negative value as 0, an unparseable one as absent
    expect(readRetryAfter({ kind: "busy", ...error }, { ...policy, invalid: "ignore" }, 0).invalid).toBeUndefined();
  });
});

describe("mode: exact", () => {
  it.each<[number, number, RetryAfterPolicy, number]>([
    [1000, 200, { mode: "exact" }, 200], // not raised to the backoff
    [100, 90_000, { mode: "exact", max_over_backoff_ms: 5000 }, 90_000], // not clamped
    [100, 90_000, { mode: "max", max_over_backoff_ms: 5000 }, 5100],
    [100, 90_000, { mode: "replace", max_ms: 1000 }, 1000],
    [100, 90_000, { mode: "exact", max_ms: 1000 }, 90_000], // not capped
  ])("backoff %s, hint %s under %j waits %s", (backoff, hintMs, policy, wait) => {
    expect(applyRetryAfter(backoff, hintMs, policy)).toEqual({ kind: "delay", delayMs: wait });
  });
});

describe("in a dispatch", () => {
  it("invalid: give_up ends the dispatch exhausted, reason retry_after_invalid", async () => {
    const { outcome, events } = await dispatchScenario({
      playbook: playbook({ timeout: retry(3) }, { retry_after: { headers: ["grpc-retry-pushback-ms"], invalid: "give_up" } }),
      responses: [err("timeout", { headers: { "grpc-retry-pushback-ms": "-1" } }), ok()],
    });
    expect(outcome).toMatchObject({ kind: "exhausted", reason: "retry_after_invalid", exhausted: true, attempts: 1 });
    expect(events.at(-1)).toMatchObject({ type: "retry_suppressed", reason: "retry_after_invalid", verdict: "timeout" });
  });

  it("mode: exact waits a field's hint shorter than the backoff", async () => {
    const { events } = await dispatchScenario({
      playbook: playbook({ timeout: retry(2, [5000, 5000]) }, { retry_after: { fields: ["next_retry_delay"], mode: "exact" } }),
      responses: [err("timeout", { fields: { next_retry_delay: 250 } }), ok()],
    });
    expect(delays(events)).toEqual([250]);
  });
});

describe("HTTP dates are read field by field", () => {
  it("as Date.parse reads every date that exists, in each of the three forms", () => {
    for (let i = 0; i < 2000; i++) {
      const ms = Math.floor((i * 7919.123 * 86_400_000) % 4_000_000_000_000);
      const d = new Date(ms - (ms % 1000));
      const imf = d.toUTCString();
      expect(parseHttpDate(imf), imf).toBe(d.getTime());
      const [wd, day, mon, year, time] = imf.split(" ");
      expect(parseHttpDate(`${wd.slice(0, 3)} ${mon} ${day.startsWith("0") ? " " + day[1] : day} ${time} ${year}`)).toBe(d.getTime());
    }
  });
  it("refuses a date that does not exist, where Date.parse rolls it over", () => {
    expect(parseHttpDate("Tue, 31 Feb 2026 00:00:00 GMT")).toBeNull();
    expect(parseHttpDate("Sun, 29 Feb 2026 00:00:00 GMT")).toBeNull();
    expect(parseHttpDate("Thu, 29 Feb 2024 00:00:00 GMT")).toBe(Date.parse("Thu, 29 Feb 2024 00:00:00 GMT"));
    expect(parseHttpDate("Mon, 01 Jan 2026 24:00:00 GMT")).toBeNull();
  });
});
