/** Goldens: what `expect` compares, how a difference reads, and how --update rewrites only the block. */
import { describe, expect, it } from "vitest";
import type { DispatchEvent, Outcome } from "failbook-runtime/model/outcome.js";
import { compareGolden, goldenPath, recordedGolden } from "../src/simulate/golden.js";
import { rewriteGoldens } from "../src/simulate/update.js";
import { computeCoverage } from "../src/simulate/coverage.js";
import { dispatchScenario, err, playbook, REGISTRY, retry } from "./helpers/dispatch.js";

const { outcome, events } = await dispatchScenario({ playbook: playbook({ timeout: retry(3), conflict: { action: "deprecate_tool_call", reason: "done", replan: true } }), responses: [err("timeout"), err("conflict")] });

describe("compareGolden", () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    ["outcome compares with the outcome's kind", { outcome: "deprecated" }, []],
    ["other keys compare with the same-named field", { verdict: "conflict", attempts: 2, retried: 1, reason: "done", replan: true, queue: null }, []],
    ["objects match on the keys the golden gives", { envelope: { outcome: "deprecated", error: { code: "conflict" } } }, []],
    ["a wrong kind", { outcome: "escalated" }, ["expect.outcome"]],
    ["a wrong nested value", { envelope: { error: { code: "timeout" } } }, ["expect.envelope.error.code"]],
    ["events is the full list, item by item", { events: events.slice(0, 2) }, ["expect.events[2]"]],
    ["a wrong event field", { events: events.map((e, i) => (i === 2 ? { ...e, delay_ms: 1 } : e)) }, ["expect.events[2].delay_ms"]],
    ["a field the outcome does not have is null", { steps: [] }, ["expect.steps"]],
    ["an unknown key", { verdcit: "conflict" }, ["expect.verdcit"]],
  ])("%s", (_name, expectBlock, paths) => {
    expect(compareGolden(expectBlock, outcome, events).map((d) => goldenPath(d.path))).toEqual(paths);
  });

  it("a list of another length says how many items each side has", () => {
    const [diff] = compareGolden({ events: [] }, outcome, events);
    expect(diff).toMatchObject({ kind: "length", message: `expected 0 items, got ${events.length}`, actual: events[0] });
  });

  const delays = events.flatMap((e) => (e.type === "retry_scheduled" ? [e.delay_ms] : []));
  it.each<[string, unknown[], string | undefined]>([
    ["the same delays hold", delays, undefined],
    ["another delay names the first that differs", [delays[0] + 1], `delay 1 is ${delays[0]}ms, not ${delays[0] + 1}ms`],
    ["fewer retries pinned", [], "1 retry scheduled, not 0"],
    ["more retries pinned", [...delays, 5], "1 retry scheduled, not 2"],
  ])("delays_ms: %s", (_name, pinned, message) => {
    expect(delays).toHaveLength(1);
    const diffs = compareGolden({ delays_ms: pinned }, outcome, events);
    expect(diffs).toEqual(message === undefined ? [] : [{ path: ["expect", "delays_ms"], kind: "value", expected: pinned, actual: delays, message }]);
  });

  it("an unknown key suggests the nearest one", () => {
    expect(compareGolden({ verdcit: "x" }, outcome, events)[0].message).toContain("did you mean 'verdict'?");
  });

  it("a recorded golden keeps the block's keys, or records the essentials", () => {
    expect(recordedGolden({ attempts: 9, events: [] }, outcome, events)).toEqual({ attempts: 2, events });
    expect(recordedGolden(undefined, outcome, events)).toEqual({ outcome: "deprecated", verdict: "conflict", attempts: 2, retried: 1, reason: "done" });
    expect(recordedGolden({ attempts: 9, delays_ms: [] }, outcome, events)).toEqual({ attempts: 2, delays_ms: delays });
    expect(recordedGolden({ attempts: 9 }, outcome, events, { withDelays: true })).toEqual({ attempts: 2, delays_ms: delays });
    expect(Object.keys(recordedGolden(undefined, outcome, events, { withDelays: true }))).toEqual(["outcome", "verdict", "attempts", "retried", "delays_ms", "reason"]);
  });
});

describe("rewriteGoldens", () => {
  const text = [
    "# header comment",
    "name: a",
    "args: {amount: 100}   # flow, unpadded",
    "expect:",
    "  # why this golden",
    "  outcome: escalated   # was wrong",
    "  attempts: 9",
    "# trailing comment",
    "---",
    "name: b",
    "expect: { outcome: x }",
    "---",
    "name: c",
  ].join("\n");

  it("changes only the expect blocks, keeping comments inside them", () => {
    const out = rewriteGoldens(
      text,
      [
        { index: 0, expect: { outcome: "deprecated", attempts: 2 } },
        { index: 1, expect: { outcome: "y", parallelism: [2, 1] } },
        { index: 2, expect: { outcome: "z", events: [{ t: 0, type: "attempt" }] } },
      ],
      (s) => s,
    );
    expect(out).toBe(
      [
        "# header comment",
        "name: a",
        "args: {amount: 100}   # flow, unpadded",
        "expect:",
        "  # why this golden",
        "  outcome: deprecated # was wrong",
        "  attempts: 2",
        "# trailing comment",
        "---",
        "name: b",
        "expect:",
        "  outcome: y",
        "  parallelism: [ 2, 1 ]",
        "---",
        "name: c",
        "expect:",
        "  outcome: z",
        "  events:",
        "    - { t: 0, type: attempt }",
        "",
      ].join("\n"),
    );
  });

  it("redacts only the new text", () => {
    const input = "name: a\nmessage: secret-1\n";
    const out = rewriteGoldens(input, [{ index: 0, expect: { reason: "secret-2" } }], (s) => s.replace(/secret-\d/g, "[REDACTED]"));
    expect(out).toBe("name: a\nmessage: secret-1\nexpect:\n  reason: \"[REDACTED]\"\n");
  });
});

describe("coverage", () => {
  it("lists the verdicts, actions and outcomes the runs exercise, and those none do", () => {
    const pb = playbook({ timeout: retry(3), conflict: { action: "deprecate_tool_call", reason: "done", replan: true }, denied: { action: "escalate_to_human", queue: "q" } });
    const cov = computeCoverage(REGISTRY, pb, [{ fixture: "f1", kind: outcome.kind, events: events as DispatchEvent[] }]);
    const by = <T extends { fixtures: string[] }>(list: T[], key: (t: T) => string) => Object.fromEntries(list.map((x) => [key(x), x.fixtures]));
    expect(by(cov.verdicts, (v) => v.code)).toMatchObject({ timeout: ["f1"], conflict: ["f1"], denied: [] });
    expect(by(cov.actions, (a) => a.action)).toMatchObject({ retry_with_backoff: ["f1"], deprecate_tool_call: ["f1"], escalate_to_human: [] });
    expect(cov.actions.find((a) => a.action === "fallback")?.inPlaybook).toBe(false);
    expect(by(cov.outcomes, (o) => o.kind)).toMatchObject({ deprecated: ["f1"], escalated: [] });
  });
});

export type { Outcome };
