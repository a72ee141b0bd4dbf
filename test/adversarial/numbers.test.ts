/**
 * SPEC 16, numbers are bounded: a count, delay or budget over its schema limit is a finding at
 * its position; the worst-case analysis does bounded work whatever the numbers, and its sums
 * stay finite; the dispatcher ends with huge numbers too (the fixture's responses bound it).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { worstCase } from "failbook-runtime/engine/worstcase.js";
import { err, playbook, REGISTRY, dispatchScenario } from "../helpers/dispatch.js";
import { failbook } from "../helpers/cli.js";
import { adversarialProject, FIXTURE, PLAYBOOK, REGISTRY as REGISTRY_YAML } from "./project.js";

const HUGE_PLAYBOOK = PLAYBOOK.replace("max_retries: 2, backoff_ms: [100, 200]", "max_retries: 2000000000, backoff: { strategy: exponential, base_ms: 100, factor: 10 }");

describe("max_retries: 2000000000 with no retries budget", () => {
  it.each([
    ["lint", 1],
    ["explain timeout", 1],
    ["render", 1],
    ["simulate", 1],
  ])("%s ends with a finding, not a crash", (command, code) => {
    const dir = adversarialProject({ "playbook.yaml": HUGE_PLAYBOOK });
    const started = Date.now();
    const r = failbook(command.split(" "), { cwd: dir });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(r.code).toBe(code);
    expect(r.stdout + r.stderr).toMatch(/playbook\.yaml:5:55(:| error) 'max_retries' must be <= 1000, not 2000000000 \(a limit no real playbook needs to exceed; see docs\/security\.md, Numbers\)/);
    expect(r.stderr).not.toMatch(/internal error|FATAL|heap/i);
  });
});

describe("schema limits, each a finding at its position", () => {
  it.each([
    ["1001 delays", "playbook.yaml", PLAYBOOK.replace("backoff_ms: [100, 200]", `backoff_ms: [${Array(1001).fill(1).join(", ")}]`), "'backoff_ms' must NOT have more than 1000 items, not 1001 items"],
    ["a delay of 1e300 ms", "playbook.yaml", PLAYBOOK.replace("backoff_ms: [100, 200]", "backoff_ms: [100, 1e300]"), "'1' must be <= 86400000"],
    ["budgets of 1e308 s", "playbook.yaml", `${PLAYBOOK}budgets: { retry_seconds: 1e308, wall_ms: 99999999999999, same_verdict_ceiling: 5000, retries: 100000 }\n`, "'retry_seconds' must be <= 2592000"],
    ["a factor of 1000", "playbook.yaml", PLAYBOOK.replace("backoff_ms: [100, 200]", "backoff: { strategy: exponential, base_ms: 100, factor: 1000, cap_ms: 1e12 }"), "'factor' must be <= 10"],
    ["a class ceiling of 99999", "registry.yaml", REGISTRY_YAML.replace("description: Temporary fault.", "description: Temporary fault., max_retries: 99999"), "'max_retries' must be <= 1000"],
    ["a seed past 32 bits", "fixtures/slow.yaml", `seed: 99999999999\n${FIXTURE.replace("message: slow }", "message: slow, retry_after_ms: 1e15 }, latency_ms: 1e12")}`, "'seed' must be <= 4294967295"],
  ])("%s", (_name, file, content, message) => {
    const dir = adversarialProject({ [file]: content });
    const r = failbook(["lint"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(message);
    expect(r.stdout).toMatch(/\[schema\]/);
  });
});

describe("the worst case does bounded work whatever the numbers", () => {
  const huge = { ...REGISTRY, classes: { ...REGISTRY.classes, transient: {} } };
  it.each([
    ["an uncapped exponential", { strategy: "exponential", base_ms: 100, factor: 10 } as const],
    ["an uncapped linear", { strategy: "linear", base_ms: 100 } as const],
    ["a capped decorrelated", { strategy: "decorrelated", base_ms: 100, cap_ms: 30_000 } as const],
  ])("%s schedule with 2,000,000,000 retries (a library caller that skipped validation)", (_name, backoff) => {
    const started = performance.now();
    const w = worstCase(huge, playbook({ timeout: { action: "retry_with_backoff", max_retries: 2_000_000_000, backoff } }), "timeout")!;
    expect(performance.now() - started).toBeLessThan(500);
    expect(w.retries).toBe(2_000_000_000);
    expect(w.delays.length).toBeLessThanOrEqual(1000);
    expect(Number.isFinite(w.totalBackoffMs)).toBe(true);
    expect(w.delays.every(Number.isFinite)).toBe(true);
    expect(w.totalBackoffMs).toBeLessThanOrEqual(Number.MAX_SAFE_INTEGER);
  });

  it("is exact where the schedule settles: a capped schedule counts the rest at the cap", () => {
    const w = worstCase(huge, playbook({ timeout: { action: "retry_with_backoff", max_retries: 1_000_000, backoff: { strategy: "exponential", base_ms: 1, cap_ms: 1000 } } }), "timeout")!;
    const spelled = w.delays.reduce((a, b) => a + b, 0);
    expect(w.totalBackoffMs).toBe(spelled + (1_000_000 - w.delays.length) * 1000);
  });

  it("the dispatcher ends too: the fixture's responses bound it", async () => {
    const started = performance.now();
    const { outcome } = await dispatchScenario({
      registry: huge,
      playbook: playbook({ timeout: { action: "retry_with_backoff", max_retries: 2_000_000_000, backoff: { strategy: "exponential", base_ms: 100, factor: 10 } } }),
      responses: [err("timeout"), err("timeout"), err("timeout")],
    }).catch((e: Error) => ({ outcome: { kind: "error", message: e.message } }));
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(JSON.stringify(outcome)).not.toContain("null,"); // no Infinity became null
  });
});

describe("lint's retry-budget rule and explain with the largest valid numbers", () => {
  it("spell a 1000-retry schedule in a few terms, quickly", () => {
    const dir = adversarialProject({
      "playbook.yaml": `${PLAYBOOK.replace("max_retries: 2, backoff_ms: [100, 200]", "max_retries: 1000, backoff: { strategy: exponential, base_ms: 86400000, factor: 10 }")}budgets: { retry_seconds: 60 }\n`,
    });
    writeFileSync(join(dir, "failbook.yaml"), "registry: registry.yaml\nplaybook: playbook.yaml\n");
    const lint = failbook(["lint"], { cwd: dir });
    expect(lint.stdout).toMatch(/worst-case backoff for 'timeout' is \d+ ms \(1000 retries: 86400000 \+ .* \+ … \(995 more\) ms, jitter at its maximum\)/);
    const explain = failbook(["explain", "timeout"], { cwd: dir });
    expect(explain.code).toBe(0);
    expect(explain.stdout).toMatch(/at most 1001 attempts; .* total backoff \(1440 min \+ 14400 min \+ .* \+ … \(995 more\), jitter at its maximum\)/);
  });
});
