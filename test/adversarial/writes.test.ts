/**
 * SPEC 16, writes lose nothing: every rewrite goes through one atomic writer that writes
 * through symbolic links, keeps the file's mode and line endings, leaves no temporary file,
 * and refuses a file that is not UTF-8 rather than rewriting it.
 */
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { chmodSync, existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, renameSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { failbook } from "../helpers/cli.js";
import { adversarialProject, FIXTURE } from "./project.js";

const LATIN1 = Buffer.concat([Buffer.from(FIXTURE), Buffer.from("# caf\xe9 cr\xe8me\n", "latin1")]);

/** Temporary files the writer might have left: `.NAME.PID.HEX.tmp`. */
const leftovers = (dir: string) => readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".tmp"));

describe("simulate --update", () => {
  it("refuses a Latin-1 fixture with one located line, exit 2, and leaves it byte for byte", () => {
    const dir = adversarialProject();
    const file = join(dir, "fixtures", "slow.yaml");
    writeFileSync(file, LATIN1);
    const r = failbook(["simulate", "--update"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("failbook: fixtures/slow.yaml:8:6: not valid UTF-8 (byte 0xE9); failbook reads and rewrites UTF-8 only: convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8)\n");
    expect(readFileSync(file).equals(LATIN1)).toBe(true);
  });

  it("keeps a CRLF fixture CRLF, every line of it", () => {
    const dir = adversarialProject();
    const file = join(dir, "fixtures", "slow.yaml");
    writeFileSync(file, FIXTURE.replace(/\n/g, "\r\n"));
    const r = failbook(["simulate", "--update"], { cwd: dir });
    expect(r.stderr).toContain("updated the goldens of 1 fixture in 1 file");
    const text = readFileSync(file, "utf8");
    expect(text).toContain("expect:\r\n  outcome: recovered\r\n");
    expect(text.split("\r\n").every((line) => !line.includes("\n"))).toBe(true);
    expect(failbook(["simulate"], { cwd: dir }).code).toBe(0);
  });

  it("updates a symlinked fixture through the link: the link stays a link, the target keeps its mode", () => {
    const dir = adversarialProject();
    renameSync(join(dir, "fixtures", "slow.yaml"), join(dir, "shared-slow.yaml"));
    symlinkSync("../shared-slow.yaml", join(dir, "fixtures", "slow.yaml"));
    chmodSync(join(dir, "shared-slow.yaml"), 0o640);
    const r = failbook(["simulate", "--update"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(lstatSync(join(dir, "fixtures", "slow.yaml")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, "fixtures", "slow.yaml"))).toBe("../shared-slow.yaml");
    expect(readFileSync(join(dir, "shared-slow.yaml"), "utf8")).toContain("expect:\n  outcome: recovered\n");
    expect(statSync(join(dir, "shared-slow.yaml")).mode & 0o777).toBe(0o640);
    expect(leftovers(dir)).toEqual([]);
  });

  it("keeps an executable or private mode exactly, whatever the umask", () => {
    const dir = adversarialProject();
    const file = join(dir, "fixtures", "slow.yaml");
    chmodSync(file, 0o600);
    expect(failbook(["simulate", "--update"], { cwd: dir }).code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe("temporary files an interrupted write left", () => {
  it("the next write to the same target removes its stale ones (dead writer, or hours old), and nothing else", async () => {
    const dir = adversarialProject({ "gen.ts": "// an older module\n" });
    // A writer killed mid-write (SIGKILL allows no clean-up): its temporary file stays behind.
    const child = spawn(process.execPath, ["-e", "require('fs').writeFileSync('.gen.ts.' + process.pid + '.0123456789ab.tmp', 'half a mod'); setInterval(() => {}, 1000)"], { cwd: dir, stdio: ["ignore", "pipe", "ignore"] });
    const dead = child.pid!;
    for (let i = 0; i < 100 && !existsSync(join(dir, `.gen.ts.${dead}.0123456789ab.tmp`)); i++) await new Promise((r) => setTimeout(r, 50));
    child.kill("SIGKILL");
    await once(child, "exit");
    const hoursAgo = new Date(Date.now() - 3 * 3600_000);
    const touch = (name: string, when?: Date) => {
      writeFileSync(join(dir, name), "x");
      if (when) utimesSync(join(dir, name), when, when);
      return name;
    };
    const stale = [`.gen.ts.${dead}.0123456789ab.tmp`, touch(`.gen.ts.${process.pid}.111111111111.tmp`, hoursAgo)];
    const kept = [
      touch(`.gen.ts.${process.pid}.222222222222.tmp`), // a live writer at work
      touch(`.other.ts.${dead}.333333333333.tmp`, hoursAgo), // another target's
      touch(`.gen.ts.backup.tmp`, hoursAgo), // not the writer's pattern
      touch(`.gen.ts.5.${dead}.444444444444.tmp`, hoursAgo), // the target gen.ts.5's
    ];
    expect(leftovers(dir).sort()).toEqual([...stale, ...kept].sort());
    const r = failbook(["gen", "ts", "--out", "gen.ts"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(leftovers(dir).sort()).toEqual(kept.sort());
  });
});

/** The commands that write where the user says, each aimed at a file of the kind it writes (gen ts takes its module kind from the name). */
const WRITES_TO_OUT: [string, string[], string][] = [
  ["render --out", ["render", "--out", "out.md"], "out.md"],
  ["gen ts --out", ["gen", "ts", "--out", "out.ts"], "out.ts"],
  ["lint --write-baseline", ["lint", "--write-baseline", "out.md"], "out.md"],
];

const escaped = (name: string): string => name.replace(".", "\\.");

describe("--out, --write-baseline", () => {
  it.each(WRITES_TO_OUT)("%s refuses to replace a file that is not UTF-8, exit 2, and leaves it as it was", (_name, args, file) => {
    const dir = adversarialProject();
    writeFileSync(join(dir, file), LATIN1);
    const r = failbook(args, { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^failbook: ${escaped(file)}:8:6: not valid UTF-8 \\(byte 0xE9\\); .*\\n$`));
    expect(readFileSync(join(dir, file)).equals(LATIN1)).toBe(true);
  });

  it.each(WRITES_TO_OUT)("%s refuses a FIFO at once instead of hanging on it", (_name, args, file) => {
    const dir = adversarialProject();
    spawnSync("mkfifo", [join(dir, file)]);
    const r = failbook(args, { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^failbook: ${escaped(file)} is a FIFO \\(named pipe\\), not a regular file; .*\\n$`));
  });

  it("writes a symlinked --out through the link, keeping the target's CRLF and mode", () => {
    const dir = adversarialProject({ "docs/errors.md": "old\r\ncontent\r\n" });
    chmodSync(join(dir, "docs", "errors.md"), 0o664);
    symlinkSync("docs/errors.md", join(dir, "errors.md"));
    const r = failbook(["render", "--out", "errors.md"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(lstatSync(join(dir, "errors.md")).isSymbolicLink()).toBe(true);
    const text = readFileSync(join(dir, "docs", "errors.md"), "utf8");
    expect(text).toContain("timeout");
    expect(text).not.toMatch(/[^\r]\n/);
    expect(statSync(join(dir, "docs", "errors.md")).mode & 0o777).toBe(0o664);
    expect(leftovers(dir)).toEqual([]);
  });

  it("an unwritable place is a usage error, never an internal error", () => {
    const dir = adversarialProject({ "afile": "x" });
    for (const args of [["lint", "--write-baseline", "afile/b.json"], ["render", "--out", "afile/r.md"], ["gen", "ts", "--out", "afile/g.ts"]]) {
      const r = failbook(args, { cwd: dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^failbook: cannot write .*afile\/\w\.\w+: ENOTDIR; .*\n$/);
    }
  });
});
