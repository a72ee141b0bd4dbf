/** The `failbook explore` browser, rendered on a fake terminal and driven by keys. */
import { Chalk } from "chalk";
import { render } from "ink";
import { createElement } from "react";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadProject } from "../src/load/project.js";
import { projectModel } from "../src/render/render.js";
import { simulateProject } from "../src/simulate/project.js";
import { exploreData, type ExploreData } from "../src/tui/data.js";
import { Explore } from "../src/tui/explore.js";
import { wrapLine, visibleWidth } from "../src/tui/wrap.js";
import { withShippedRules } from "./helpers/shipped.js";
import { FakeStdin, FakeStdout, KEYS, listed, press, selectedName } from "./helpers/tui.js";

const FIXTURES = [
  "apiVersion: failbook/v1",
  "kind: Fixture",
  "name: timeout-recovers",
  "call: { id: c1, tool: crm.find }",
  "responses:",
  "  - { status: error, error: { kind: timeout } }",
  "  - { status: ok, value: 1 }",
  "expect: { outcome: recovered, verdict: transient_timeout, attempts: 2 }",
  "---",
  "apiVersion: failbook/v1",
  "kind: Fixture",
  "name: wrong-golden",
  "call: { id: c2, tool: crm.find }",
  "responses:",
  "  - { status: error, error: { kind: timeout } }",
  "  - { status: ok, value: 1 }",
  "expect: { outcome: recovered, attempts: 5 }",
  "",
];

let data: ExploreData;

beforeAll(async () => {
  const dir = withShippedRules(FIXTURES);
  const { project } = loadProject({ cwd: dir });
  const sim = await simulateProject(project);
  data = exploreData({
    model: projectModel(project),
    registry: project.registry!.value,
    playbook: project.playbook!.value,
    fixtures: project.fixtures,
    sim,
    c: new Chalk({ level: 0 }),
    redact: (s) => s,
  });
});

const open: { unmount: () => void }[] = [];
afterEach(() => {
  for (const instance of open.splice(0)) instance.unmount();
});

/** Render the browser on a fake terminal. */
function explore(columns = 120, rows = 60) {
  const stdout = new FakeStdout(columns, rows);
  const stdin = new FakeStdin();
  const instance = render(createElement(Explore, { data, color: false }), {
    stdout: stdout.asStream(),
    stdin: stdin.asStream(),
    debug: true,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  open.push(instance);
  // Asked for at once: a session that has already ended never settles a later waitUntilExit.
  const exited = instance.waitUntilExit();
  return { stdout, stdin, exited, press: (keys: string) => press(stdin, stdout, keys) };
}

describe("the codes tab", () => {
  it("lists every code with its class and explains the first one", () => {
    const { stdout } = explore();
    expect(listed(stdout.frame)).toEqual(data.codes.map((c) => c.code));
    expect(selectedName(stdout.frame)).toBe(data.codes[0].code);
    expect(stdout.frame).toContain(`${data.codes[0].code}  (${data.codes[0].status})`);
    expect(stdout.frame).toMatch(/q quit/);
  });

  it.each([
    ["down", KEYS.down],
    ["j", "j"],
  ])("%s selects the next code and shows its summary and playbook action", async (_, key) => {
    const { stdout, press } = explore();
    const next = data.codes.find((c, i) => i > 0 && c.action !== null)!;
    for (let i = 0; data.codes[i] !== next; i++) await press(key);
    expect(selectedName(stdout.frame)).toBe(next.code);
    const explained = next.details(1000);
    const summary = explained.split("\n")[1];
    expect(stdout.frame).toContain(`${next.code}  (${next.status})`);
    expect(stdout.frame).toContain(summary.split(" ").slice(0, 3).join(" "));
    expect(stdout.frame).toMatch(new RegExp(`Playbook action[\\s│┃]+${next.action}`));
  });

  it("up and k move back; the list does not move past its ends", async () => {
    const { stdout, press } = explore();
    await press(KEYS.up);
    expect(selectedName(stdout.frame)).toBe(data.codes[0].code);
    await press("j");
    await press("j");
    await press("k");
    expect(selectedName(stdout.frame)).toBe(data.codes[1].code);
    await press("G");
    await press(KEYS.down);
    expect(selectedName(stdout.frame)).toBe(data.codes.at(-1)!.code);
  });

  it("counts every key of a burst: jjj in one read moves three rows (tmux send-keys j j j)", async () => {
    const { stdout, press } = explore();
    await press("jjj");
    expect(selectedName(stdout.frame)).toBe(data.codes[3].code);
    await press("kk");
    expect(selectedName(stdout.frame)).toBe(data.codes[1].code);
  });

  it("counts keys written one by one before Ink repaints", async () => {
    const { stdout, stdin, press } = explore();
    stdin.write("j");
    stdin.write("j");
    stdin.write(KEYS.down);
    await press("j");
    expect(selectedName(stdout.frame)).toBe(data.codes[4].code);
  });

  it("hands the rest of a burst to the focus a key leaves: jj/time filters from there", async () => {
    const { stdout, press } = explore();
    await press("jj/time");
    expect(stdout.frame).toContain("/time");
    expect(listed(stdout.frame).every((code) => code.includes("time") || data.codes.find((c) => c.code === code))).toBe(true);
    expect(listed(stdout.frame).length).toBeLessThan(data.codes.length);
  });
});

describe("the fixtures tab", () => {
  it.each([
    ["tab", KEYS.tab],
    ["right", KEYS.right],
    ["left", KEYS.left],
  ])("%s shows the fixtures, pass or fail, and the selected fixture's timeline", async (_, key) => {
    const { stdout, press } = explore();
    await press(key);
    expect(listed(stdout.frame)).toEqual(["timeout-recovers", "wrong-golden"]);
    expect(stdout.frame).toMatch(/› ✓ timeout-recovers/);
    expect(stdout.frame).toMatch(/ {2}✗ wrong-golden/);
    for (const step of ["attempt 1    error timeout", "verdict      transient_timeout -> retry_with_backoff", "retry        attempt 2 in", "=> recovered", "✓ matches its golden"]) {
      expect(stdout.frame).toContain(step);
    }
  });

  it("a fixture whose golden differs shows what differs", async () => {
    const { stdout, press } = explore();
    await press(KEYS.tab);
    await press(KEYS.down);
    expect(selectedName(stdout.frame)).toBe("wrong-golden");
    expect(stdout.frame).toContain("✗ differs from its golden:");
    expect(stdout.frame).toContain("expect.attempts: expected 5, got 2");
  });

  it("tab again goes back to the codes, where the selection was", async () => {
    const { stdout, press } = explore();
    await press("j");
    await press(KEYS.tab);
    await press(KEYS.tab);
    expect(selectedName(stdout.frame)).toBe(data.codes[1].code);
  });
});

describe("the / filter", () => {
  it("narrows the list as you type and shows how many match; esc clears it", async () => {
    const { stdout, press } = explore();
    const all = data.codes.map((c) => c.code);
    await press("/");
    for (const ch of "time") await press(ch);
    const matching = data.codes.filter((c) => c.search.includes("time")).map((c) => c.code);
    expect(matching.length).toBeGreaterThan(0);
    expect(matching.length).toBeLessThan(all.length);
    expect(listed(stdout.frame)).toEqual(matching);
    expect(stdout.frame).toContain(`/time   ${matching.length} of ${all.length}`);
    expect(selectedName(stdout.frame)).toBe(matching[0]);

    await press(KEYS.backspace);
    expect(stdout.frame).toContain("/tim ");
    await press(KEYS.escape);
    expect(listed(stdout.frame)).toEqual(all);
    expect(stdout.frame).not.toContain("/tim");
  });

  it("enter keeps the filter and gives the keys back to the list: j moves, q quits", async () => {
    const { stdout, press, exited } = explore();
    await press("/");
    await press("t");
    await press(KEYS.enter);
    const matching = data.codes.filter((c) => c.search.includes("t")).map((c) => c.code);
    expect(listed(stdout.frame)).toEqual(matching);
    await press("j");
    expect(selectedName(stdout.frame)).toBe(matching[1]);
    await press("q");
    await expect(exited).resolves.toBeUndefined();
  });

  it("says so when nothing matches", async () => {
    const { stdout, press } = explore();
    await press("/zzz");
    expect(listed(stdout.frame)).toEqual([]);
    expect(stdout.frame).toContain("nothing matches 'zzz' (esc clears)");
  });

  it("filters the fixtures too, each tab with its own filter", async () => {
    const { stdout, press } = explore();
    await press(KEYS.tab);
    await press("/wrong");
    expect(listed(stdout.frame)).toEqual(["wrong-golden"]);
    await press(KEYS.enter);
    await press(KEYS.tab);
    expect(listed(stdout.frame)).toEqual(data.codes.map((c) => c.code));
  });
});

describe("the details pane", () => {
  it("enter focuses it and j scrolls it; esc gives the keys back to the list", async () => {
    // A short terminal, so that the explanation of a code with a playbook action overflows.
    const { stdout, press } = explore(100, 16);
    const long = data.codes.findIndex((c) => c.action !== null);
    for (let i = 0; i < long; i++) await press("j");
    const position = /lines (\d+)-(\d+) of (\d+)/;
    expect(stdout.frame).toMatch(position);
    const [, first, last, total] = stdout.frame.match(position)!;
    expect(first).toBe("1");
    await press(KEYS.enter);
    expect(stdout.frame).toContain("esc/← back");
    await press("j");
    expect(stdout.frame).toContain(`lines 2-${Number(last) + 1} of ${total}`);
    await press("G");
    expect(stdout.frame).toMatch(new RegExp(`lines \\d+-${total} of ${total}`));
    await press(KEYS.escape);
    await press("j");
    expect(selectedName(stdout.frame)).toBe(data.codes[long + 1].code);
    expect(stdout.frame).toContain("lines 1-");
  });

  it("never draws taller than the terminal", async () => {
    const { stdout, press } = explore(90, 20);
    for (const key of ["", "j", KEYS.tab, KEYS.enter]) {
      if (key) await press(key);
      expect(stdout.frame.replace(/\n$/, "").split("\n").length).toBeLessThan(20);
      for (const line of stdout.frame.split("\n")) expect(visibleWidth(line)).toBeLessThanOrEqual(90);
    }
  });
});

describe("quitting", () => {
  it.each([
    ["q", "q"],
    ["ctrl-c", KEYS.ctrlC],
  ])("%s ends the session", async (_, key) => {
    const { stdin, exited } = explore();
    stdin.write(key);
    await expect(exited).resolves.toBeUndefined();
  });

  it("q while typing a filter is part of the filter; ctrl-c still quits", async () => {
    const { stdout, stdin, press, exited } = explore();
    await press("/q");
    expect(stdout.frame).toContain("/q");
    stdin.write(KEYS.ctrlC);
    await expect(exited).resolves.toBeUndefined();
  });
});

describe("wrapLine", () => {
  it.each([
    ["a short line stays whole", "  verdict  x -> y", 40, ["  verdict  x -> y"]],
    ["long prose wraps at spaces, continuation indented two more", "  one two three four five", 12, ["  one two", "    three", "    four", "    five"]],
    ["a word wider than the row is cut", "abcdefghij", 4, ["abcd", "  ef", "  gh", "  ij"]],
    ["colour codes take no columns and are replayed", "\u001B[2mone two\u001B[22m", 5, ["\u001B[2mone", "  \u001B[2mtwo\u001B[22m"]],
  ])("%s", (_, line, width, rows) => {
    expect(wrapLine(line, width)).toEqual(rows);
  });
});
