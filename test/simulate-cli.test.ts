/** `failbook simulate` end to end: the shipped goldens, a wrong golden, --update, fixture errors. */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { failbook, tempProject } from "./helpers/cli.js";
import { shippedCopy, withShippedRules } from "./helpers/shipped.js";

const TRANSIENT = "playbooks/fixtures/transient.yaml";

describe("failbook simulate on the shipped project", () => {
  it("passes every golden", () => {
    const r = failbook(["simulate"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/(\d+) fixtures: \1 passed, 0 failed, 0 without expect/);
  });

  it("prints each fixture as a timeline of virtual times, attempts, verdicts, delays and the end", () => {
    const r = failbook(["simulate", "playbooks/fixtures/timeout-after-commit.yaml"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n").map((l) => l.trim().replace(/\s+/g, " "));
    expect(lines).toEqual(
      expect.arrayContaining([
        "30000ms attempt 1 error timeout (30000ms)",
        "30000ms verdict transient_timeout -> retry_with_backoff",
        "30000ms retry attempt 2 in 200ms",
        "30235ms attempt 2 error 409_conflict 409 (35ms)",
        "30235ms verdict idempotency_conflict -> deprecate_tool_call",
        "=> deprecated idempotency_conflict · 2 attempts · 1 retried · 30235ms",
      ]),
    );
    expect(r.stdout).toMatch(/\[fb_[0-9a-f]{12}\] adp_payments\.issue_refund/);
  });

  it("--format json gives { results: [{ fixture, file, outcome, events, passed, diff }], passed, failed }", () => {
    const r = failbook(["simulate", "--format", "json"]);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout) as { results: Record<string, unknown>[]; passed: number; failed: number };
    expect(Object.keys(json)).toEqual(["results", "passed", "failed"]);
    expect(json.failed).toBe(0);
    expect(json.passed).toBe(json.results.length);
    for (const result of json.results) expect(Object.keys(result)).toEqual(["fixture", "file", "outcome", "events", "passed", "diff"]);
    const refund = json.results.find((x) => x.fixture === "refund-with-conflict");
    expect(refund).toMatchObject({ file: "playbooks/fixtures/refund-with-conflict.yaml", passed: true, diff: null, outcome: { kind: "deprecated", verdict: "idempotency_conflict", attempts: 1 } });
  });

  it("--coverage shows which verdicts and actions the fixtures exercise", () => {
    const r = failbook(["simulate", "--coverage"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/coverage: (\d+) of \1 verdicts/);
    expect(r.stdout).toMatch(/✓ idempotency_conflict\s+refund-with-conflict/);
    expect(r.stdout).toContain("not in the playbook:");
  });

  it("--coverage keeps its columns in line when a code is longer than the others", () => {
    const long = "payments_provider_declined_insufficient_funds";
    const dir = tempProject({
      "failbook.yaml": "registry: r.yaml\nplaybook: p.yaml\nfixtures: [f.yaml]\n",
      "r.yaml": `apiVersion: failbook/v1\nkind: Registry\nname: x\nrevision: 1\nclasses: { t: { description: T. } }\nverdicts:\n  - { code: ${long}, class: t, retryable: false, summary: A., recovery: R., match: [{ kind: declined }] }\n  - { code: b, class: t, retryable: false, summary: B., recovery: R., match: [{ kind: other }] }\nfallback: b\n`,
      "p.yaml": `apiVersion: failbook/v1\nkind: Playbook\nname: p\nverdicts:\n  ${long}: { action: fail }\n  b: { action: dead_letter, queue: q }\n`,
      "f.yaml": "apiVersion: failbook/v1\nkind: Fixture\nname: declined\ncall: { id: c, tool: t }\nresponses:\n  - { status: error, error: { kind: declined } }\n",
    });
    const r = failbook(["simulate", "--coverage"], { cwd: dir });
    const rows = r.stdout.split("\n").filter((l) => /^  [✓✗] /.test(l));
    expect(rows.map((l) => l.slice(4).split(/\s{2,}/)[0])).toEqual([long, "b", "fail", "dead_letter"]);
    const column = (l: string) => l.search(/(declined|no fixture exercises it)$/);
    expect(new Set(rows.map(column)).size).toBe(1);
    expect(column(rows[0]!)).toBe(4 + long.length + 2);
  });
});

describe("goldens", () => {
  it("a wrong expect exits 1 and says where and what; --update fixes it and keeps comments", () => {
    const dir = shippedCopy();
    const file = join(dir, TRANSIENT);
    const original = readFileSync(file, "utf8");
    const wrong = original.replace("name: rate-limited-exhausts-retry-budget", "name: rate-limited-exhausts-retry-budget\n# a comment that must survive").replace(/(name: server-error-recovers[\s\S]*?attempts: )2/, "$19");
    writeFileSync(file, wrong);
    const lines = wrong.split("\n");
    const line = lines.findIndex((l, i) => l === "  attempts: 9" && lines.slice(0, i).some((x) => x.includes("server-error-recovers"))) + 1;

    const failed = failbook(["simulate"], { cwd: dir });
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain(`${TRANSIENT}:${line}:13 expect.attempts: expected 9, got 2`);
    expect(failed.stdout).toContain("1 failed");

    const updated = failbook(["simulate", "--update"], { cwd: dir });
    expect(updated.code).toBe(0);
    expect(updated.stderr).toContain("updated the goldens of 1 fixture in 1 file");
    const after = readFileSync(file, "utf8");
    expect(after).toContain("# a comment that must survive");
    expect(after).toBe(wrong.replace("  attempts: 9", "  attempts: 2"));
    expect(failbook(["simulate"], { cwd: dir }).code).toBe(0);
  });

  it("--update records a golden for a fixture without one, and fills `events: []`", () => {
    const dir = withShippedRules([
      "# first",
      "apiVersion: failbook/v1",
      "kind: Fixture",
      "name: a",
      "call: {id: c1, tool: crm.find}   # flow style stays",
      "responses:",
      "  - {status: error, error: {kind: timeout}}",
      "  - {status: ok, value: 1}",
      "---",
      "apiVersion: failbook/v1",
      "kind: Fixture",
      "name: b",
      "call: {id: c2, tool: crm.find}",
      "responses: [{status: error, error: {kind: schema_validation}}]",
      "expect:",
      "  # keep me",
      "  events: []",
      "",
    ]);
    const before = failbook(["simulate"], { cwd: dir });
    expect(before.code).toBe(1);
    expect(failbook(["simulate", "--update"], { cwd: dir }).code).toBe(0);
    const text = readFileSync(join(dir, "f.yaml"), "utf8");
    expect(text).toContain("call: {id: c1, tool: crm.find}   # flow style stays\nresponses:\n  - {status: error, error: {kind: timeout}}\n  - {status: ok, value: 1}\nexpect:\n  outcome: recovered\n  verdict: transient_timeout\n  attempts: 2\n  retried: 1\n---");
    expect(text).toContain("expect:\n  # keep me\n  events:\n    - { t: 0, type: attempt, n: 1, status: error,");
    expect(failbook(["simulate"], { cwd: dir }).code).toBe(0);
  });

  it("--update writes nothing when a file fails to load", () => {
    const dir = shippedCopy();
    const file = join(dir, TRANSIENT);
    const wrong = readFileSync(file, "utf8").replace("outcome: recovered", "outcome: escalated");
    writeFileSync(file, wrong);
    writeFileSync(join(dir, "playbooks/fixtures/broken.yaml"), "apiVersion: failbook/v1\nkind: Fixture\nname: broken\ncall: [\n");
    const r = failbook(["simulate", "--update"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("--update wrote nothing because a file failed to load");
    expect(r.stderr).toMatch(/playbooks\/fixtures\/broken\.yaml:\d+:\d+ error/);
    expect(readFileSync(file, "utf8")).toBe(wrong);
  });

  it("--update that wrote nothing does not advise running --update: it says what to fix first", () => {
    const dir = shippedCopy();
    const file = join(dir, TRANSIENT);
    const wrong = readFileSync(file, "utf8").replace("outcome: recovered", "outcome: escalated");
    writeFileSync(file, wrong);
    writeFileSync(join(dir, "playbooks/fixtures/short.yaml"), "apiVersion: failbook/v1\nkind: Fixture\nname: short\ncall: { id: c, tool: t }\nresponses:\n  - { status: error, error: { kind: timeout } }\n");
    writeFileSync(join(dir, "playbooks/fixtures/bare.yaml"), "apiVersion: failbook/v1\nkind: Fixture\nname: bare\ncall: { id: c, tool: t }\nresponses:\n  - { status: ok, value: 1 }\n");
    const plain = failbook(["simulate"], { cwd: dir });
    expect(plain.stdout).toContain("if the new behaviour is intended, record it: failbook simulate --update");
    const r = failbook(["simulate", "--update"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("--update wrote nothing because a fixture could not run");
    expect(plain.stdout).toContain("no expect block: nothing to compare (failbook simulate --update records one)");
    expect(r.stdout).not.toContain("record it: failbook simulate --update");
    expect(r.stdout).not.toContain("--update records one");
    expect(r.stdout).toContain("--update wrote nothing because a fixture could not run; fix that, then run failbook simulate --update again");
    expect(readFileSync(file, "utf8")).toBe(wrong);
  });

  it("an unknown expect key is a mismatch that names the key", () => {
    const dir = shippedCopy();
    const file = join(dir, "playbooks/fixtures/refund-with-conflict.yaml");
    writeFileSync(file, readFileSync(file, "utf8").replace("  attempts: 1", "  atempts: 1"));
    const r = failbook(["simulate", "playbooks/fixtures/refund-with-conflict.yaml"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/refund-with-conflict\.yaml:\d+:3 unknown expect key 'atempts' \(did you mean 'attempts'\?\)/);
  });
});

describe("expect.delays_ms", () => {
  const PLAYBOOK = "playbooks/playbook.yaml";
  /** The shipped project with server-error-recovers pinning its delays. */
  function pinned(): string {
    const dir = shippedCopy();
    const file = join(dir, TRANSIENT);
    writeFileSync(file, readFileSync(file, "utf8").replace(/(name: server-error-recovers[\s\S]*?  retried: 1\n)/, "$1  delays_ms: [500]\n"));
    return dir;
  }
  const slower = (dir: string) => writeFileSync(join(dir, PLAYBOOK), readFileSync(join(dir, PLAYBOOK), "utf8").replace("backoff_ms: [500, 2000]", "backoff_ms: [900, 2000]"));
  const fixtureTexts = (dir: string) => readdirSync(join(dir, "playbooks/fixtures")).map((f) => readFileSync(join(dir, "playbooks/fixtures", f), "utf8")).join("\n");

  it("pins the retry_scheduled delays in order: a change to the backoff fails the fixture that pins them, with one clear line", () => {
    const dir = pinned();
    expect(failbook(["simulate"], { cwd: dir }).code).toBe(0);
    slower(dir);
    const r = failbook(["simulate"], { cwd: dir });
    expect(r.code).toBe(1);
    const lines = readFileSync(join(dir, TRANSIENT), "utf8").split("\n");
    const line = lines.indexOf("  delays_ms: [500]") + 1;
    expect(r.stdout).toContain(`${TRANSIENT}:${line}:14 expect.delays_ms: expected [ 500 ], got [ 900 ] (delay 1 is 900ms, not 500ms)`);
    // A fixture that retries as often but pins neither delays nor times passes: delays_ms is opt-in.
    expect(r.stdout).toMatch(/server-error-then-schema-mismatch [^\n]*\n(?:(?!\n\n)[\s\S])*✓ matches its golden/);
  });

  it("--update keeps delays_ms current where a fixture has it; --update --with-delays writes it into every golden", () => {
    const dir = pinned();
    slower(dir);
    const before = readFileSync(join(dir, TRANSIENT), "utf8");
    const updated = failbook(["simulate", "--update"], { cwd: dir });
    expect(updated.code).toBe(0);
    expect(readFileSync(join(dir, TRANSIENT), "utf8")).toBe(before.replace("  delays_ms: [500]", "  delays_ms: [ 900 ]"));
    expect(fixtureTexts(dir).match(/delays_ms:/g)).toHaveLength(1);

    const everywhere = failbook(["simulate", "--update", "--with-delays"], { cwd: dir });
    expect(everywhere.code).toBe(0);
    const fixtures = (JSON.parse(failbook(["simulate", "--format", "json"], { cwd: dir }).stdout) as { results: unknown[] }).results.length;
    expect(fixtureTexts(dir).match(/delays_ms:/g)).toHaveLength(fixtures);
    expect(readFileSync(join(dir, TRANSIENT), "utf8")).toMatch(/name: timeout-then-recovers[\s\S]*?delays_ms: \[ 200, 600 \]/);
    const after = failbook(["simulate"], { cwd: dir });
    expect(after.code).toBe(0);
    // Now every golden pins its delays: any backoff change shows.
    writeFileSync(join(dir, PLAYBOOK), readFileSync(join(dir, PLAYBOOK), "utf8").replace("backoff_ms: [900, 2000]", "backoff_ms: [500, 2000]"));
    const reverted = failbook(["simulate"], { cwd: dir });
    expect(reverted.code).toBe(1);
    expect(reverted.stdout).toContain("expect.delays_ms: expected [ 900 ], got [ 500 ] (delay 1 is 500ms, not 900ms)");
  });

  it("--with-delays without --update is a usage error", () => {
    const r = failbook(["simulate", "--with-delays"], { cwd: shippedCopy() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--with-delays");
  });
});

describe("a project lint rejects", () => {
  /** The shipped project with policy denials failing instead of escalating: a policy-must-escalate error, and two goldens that differ. */
  function rejected(): string {
    const dir = shippedCopy();
    const playbook = join(dir, "playbooks/playbook.yaml");
    writeFileSync(playbook, readFileSync(playbook, "utf8").replace("  policy_denied:\n    action: escalate_to_human\n    queue: policy_review\n", "  policy_denied:\n    action: fail\n"));
    writeFileSync(join(dir, "playbooks/fixtures/bare.yaml"), "apiVersion: failbook/v1\nkind: Fixture\nname: bare\ncall: { id: c, tool: t }\nresponses:\n  - { status: ok, value: 1 }\n");
    expect(failbook(["lint"], { cwd: dir }).code).toBe(1);
    return dir;
  }

  it("says so in one line first, naming failbook lint, and never suggests recording a golden from it", () => {
    const r = failbook(["simulate"], { cwd: rejected() });
    expect(r.code).toBe(1);
    const [first, ...rest] = r.stderr.split("\n");
    expect(first).toBe("failbook: this project has 1 lint error (failbook lint shows it); fix it before recording a golden from what it does");
    expect(rest.join("")).toBe("");
    // The fixtures still run: the timelines show what the edit does.
    expect(r.stdout).toContain("2 failed");
    expect(r.stdout).not.toContain("--update");
    expect(r.stdout).toContain("fix the project's lint errors (failbook lint), then compare the goldens again");
    const json = failbook(["simulate", "--format", "json"], { cwd: rejected() });
    expect(json.stderr.split("\n")[0]).toMatch(/^failbook: this project has 1 lint error/);
  });

  it("--update records nothing and exits 1: no golden comes from a project lint rejects", () => {
    const dir = rejected();
    const fixtures = join(dir, "playbooks/fixtures");
    const before = readdirSync(fixtures).map((f) => readFileSync(join(fixtures, f), "utf8"));
    const r = failbook(["simulate", "--update"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("failbook: --update wrote nothing because the project has 1 lint error; fix that first");
    expect(r.stderr).not.toContain("updated the goldens");
    expect(readdirSync(fixtures).map((f) => readFileSync(join(fixtures, f), "utf8"))).toEqual(before);
  });
});

describe("fixture errors", () => {
  it("a fixture that runs out of responses is an error at the fixture's responses, exit 1", () => {
    const dir = shippedCopy();
    writeFileSync(
      join(dir, "playbooks/fixtures/short.yaml"),
      "apiVersion: failbook/v1\nkind: Fixture\nname: short\ncall: { id: c1, tool: crm.find }\nresponses:\n  - status: error\n    error: { kind: timeout }\n",
    );
    const r = failbook(["simulate", "playbooks/fixtures/short.yaml"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("playbooks/fixtures/short.yaml:6:3 error fixture 'short' ran out of responses: attempt 2 of c1 (crm.find) has no entry in responses (1 recorded)");
    // The timeline up to where the responses ran out, then the error.
    expect(r.stdout).toMatch(/\n +0ms +attempt 1 +error timeout\n +0ms +verdict +transient_timeout -> retry_with_backoff\n +0ms +retry +attempt 2 in 200ms\n +playbooks\/fixtures\/short\.yaml:6:3 error /);
    const json = JSON.parse(failbook(["simulate", "playbooks/fixtures/short.yaml", "--format", "json"], { cwd: dir }).stdout);
    expect(json.results[0]).toMatchObject({ fixture: "short", outcome: null, passed: false, error: { line: 6, column: 3 } });
    expect(json.results[0].events.map((e: { type: string }) => e.type)).toEqual(["attempt", "failure_classified", "retry_scheduled"]);
    expect(json.failed).toBe(1);
  });

  it.each([
    [["simulate", "--seed", "x"], "--seed takes a whole number"],
    [["simulate", "nope.yaml"], "fixture path not found: nope.yaml"],
  ])("%j is a usage error (exit 2)", (args, message) => {
    const r = failbook(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it("--help explains goldens, formats, --update and exit codes", () => {
    const r = failbook(["simulate", "--help"]);
    expect(r.code).toBe(0);
    for (const word of ["expect", "--update", "--seed", "--coverage", "json", "Exit status"]) expect(r.stdout).toContain(word);
  });
});
