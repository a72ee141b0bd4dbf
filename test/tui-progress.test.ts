/** `failbook simulate`'s live view: what it shows while fixtures run, and that it leaves no trace. */
import { render } from "ink";
import { createElement } from "react";
import { describe, expect, it } from "vitest";
import type { FixtureResult } from "../src/simulate/project.js";
import { ProgressView, showProgress, type ProgressState } from "../src/tui/progress.js";
import { FakeStdout, screen } from "./helpers/tui.js";

function frameOf(state: ProgressState): string {
  const stdout = new FakeStdout(100, 20);
  const instance = render(createElement(ProgressView, { state, color: false }), { stdout: stdout.asStream(), debug: true, patchConsole: false });
  const frame = stdout.frame;
  instance.unmount();
  return frame;
}

describe("the progress view", () => {
  it.each<[string, ProgressState, string[]]>([
    ["before the first fixture", { done: 0, total: 24, passed: 0, failed: 0, running: "timeout-then-recovers" }, ["simulating ░░░░", " 0/24 · 0 passed · 0 failed", "running timeout-then-recovers"]],
    ["half way, with a failure", { done: 12, total: 24, passed: 11, failed: 1, running: "refund-with-conflict" }, ["████████████░░░░░░░░░░░░ 12/24 · 11 passed · 1 failed", "running refund-with-conflict"]],
    ["done", { done: 3, total: 3, passed: 3, failed: 0, running: undefined }, ["████████████████████████ 3/3 · 3 passed · 0 failed"]],
  ])("%s", (_, state, shown) => {
    const frame = frameOf(state);
    for (const text of shown) expect(frame).toContain(text);
    if (state.running === undefined) expect(frame).not.toContain("running");
  });
});

describe("showProgress", () => {
  it("counts results as they come and is erased on close, so the report starts where the view was", async () => {
    const stdout = new FakeStdout(100, 20);
    stdout.write("$ failbook simulate\n");
    const names = ["a", "b", "c"];
    const live = showProgress(names.length, names[0], { color: false, redact: (s) => s, stdout: stdout.asStream() });
    names.forEach((name, i) => {
      const result = { fixture: name, passed: i !== 1 } as FixtureResult;
      live.onResult(result, { done: i + 1, total: names.length, next: names[i + 1] });
    });
    await live.close();
    stdout.write("a  f.yaml:1:1\n3 fixtures: 2 passed, 1 failed, 0 without expect\n");
    expect(screen(stdout.writes.join(""))).toBe("$ failbook simulate\na  f.yaml:1:1\n3 fixtures: 2 passed, 1 failed, 0 without expect\n");
  });
});
