/**
 * SPEC 16, writes lose nothing, under fire: each rewriting command is killed (SIGKILL) at
 * random moments, mostly around the end of its run where the write happens, and the target
 * is always either the old content or the complete new content. After a SIGINT no temporary
 * file remains either.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { seededRandom } from "failbook-runtime/engine/random.js";
import { BIN } from "../helpers/cli.js";
import { adversarialProject, FIXTURE, REGISTRY } from "./project.js";

/** Enough fixtures that the rewritten file is not trivially small. */
const MANY_FIXTURES = Array.from({ length: 200 }, (_, i) => FIXTURE.replace("name: slow-then-ok", `name: slow-${i}`)).join("---\n");

interface Case {
  name: string;
  args: string[];
  /** The file the command rewrites, relative to the project. */
  target: string;
  old: string;
}

const CASES: Case[] = [
  { name: "simulate --update", args: ["simulate", "--update"], target: "fixtures/slow.yaml", old: MANY_FIXTURES },
  { name: "lint --write-baseline", args: ["lint", "--write-baseline", "baseline.json"], target: "baseline.json", old: '{ "failbook_baseline": 1, "findings": [] }\n' },
  { name: "gen ts --out", args: ["gen", "ts", "--out", "gen.ts"], target: "gen.ts", old: "// an older module\n" },
  { name: "render --out", args: ["render", "--out", "page.html"], target: "page.html", old: "<p>an older page</p>\n" },
];

const KILLS_PER_COMMAND = 8;
const INTERRUPTS_PER_COMMAND = 3;

function project(c: Case): string {
  // A registry with a docs-missing finding, so that the baseline has something to record.
  return adversarialProject({ "registry.yaml": REGISTRY.replace("    recovery: Look at the logs.\n", ""), [c.target]: c.old });
}

/** Run the command to its end; returns its duration. */
async function run(args: string[], cwd: string, killAfterMs?: number, signal: NodeJS.Signals = "SIGKILL"): Promise<number> {
  const started = Date.now();
  const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: "ignore", env: { PATH: process.env.PATH ?? "", NO_COLOR: "1" } });
  const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill(signal), killAfterMs);
  await once(child, "exit");
  clearTimeout(timer);
  return Date.now() - started;
}

const temporaries = (dir: string) => readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".tmp"));

describe.each(CASES)("killing $name at random moments", (c) => {
  it("leaves the old content or the complete new content, never anything else", async () => {
    // The new content, from one undisturbed run on a copy.
    const reference = project(c);
    const duration = await run(c.args, reference);
    const fresh = readFileSync(join(reference, c.target), "utf8");
    expect(fresh).not.toBe(c.old);

    const dir = mkdtempSync(join(tmpdir(), "failbook-kill-"));
    cpSync(project(c), dir, { recursive: true });
    const random = seededRandom(c.name.length * 7919);
    const seen = new Set<string>();
    for (let i = 0; i < KILLS_PER_COMMAND; i++) {
      // Most kills fall in the second half of the run, where the file is written.
      const at = Math.round(duration * (0.3 + random() * 0.8));
      await run(c.args, dir, at);
      const now = readFileSync(join(dir, c.target), "utf8");
      const state = now === c.old ? "old" : now === fresh ? "new" : "torn";
      expect(state, `killed after ${at} ms of ~${duration} ms`).not.toBe("torn");
      seen.add(state);
      writeFileSync(join(dir, c.target), c.old);
      for (const t of temporaries(dir)) rmSync(join(dir, t)); // SIGKILL allows no clean-up
    }
    expect(seen.size).toBeGreaterThan(0);
  });

  it("after SIGINT, no temporary file remains", async () => {
    const dir = project(c);
    const duration = await run(c.args, project(c));
    const random = seededRandom(c.name.length * 104729);
    for (let i = 0; i < INTERRUPTS_PER_COMMAND; i++) {
      writeFileSync(join(dir, c.target), c.old);
      await run(c.args, dir, Math.round(duration * (0.5 + random() * 0.6)), "SIGINT");
      expect(temporaries(dir)).toEqual([]);
    }
  });
});
