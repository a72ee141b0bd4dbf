// The library's public face, as a user imports it: the built package entry point.
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { REPO, tempProject } from "./helpers/cli.js";

const lib = await import(join(REPO, "dist/index.js"));

describe("import { ... } from 'failbook'", () => {
  const { project, findings } = lib.loadProject({ cwd: REPO });

  it("loads and lints the shipped project", () => {
    expect(findings).toEqual([]);
    expect(lib.lintProject(project, findings)).toEqual([]);
    expect(project.registry.value.verdicts.length).toBeGreaterThan(6);
  });

  it("classifies an adapter error", () => {
    expect(lib.classify(project.registry.value, { kind: "timeout" }).verdict).toBe("transient_timeout");
    expect(lib.classify(project.registry.value, undefined).verdict).toBe(project.registry.value.fallback);
  });

  it("dispatches a production call with a caller-supplied attempt and a real clock", async () => {
    const dispatcher = lib.createDispatcher({
      registry: project.registry.value,
      playbook: project.playbook.value,
      clock: lib.realClock({ scale: 0.001 }),
      random: lib.seededRandom(1),
    });
    const keys: string[] = [];
    const { outcome } = await dispatcher.dispatch(
      { id: "call_1", tool: "crm.create_contact", args: { email: "a@example.com" } },
      async (_call: unknown, n: number, key: string) => {
        keys.push(key);
        return n === 1 ? { status: "error", error: { kind: "timeout", message: "slow" } } : { status: "ok", value: { id: 7 } };
      },
      { runId: "run_9" },
    );
    expect(outcome.kind).toBe("recovered");
    expect(outcome.attempts).toBe(2);
    expect(new Set(keys).size).toBe(1); // the retry reuses the idempotency key
    expect(keys[0]).toBe(lib.idempotencyKey("run_9", { id: "call_1", tool: "crm.create_contact", args: { email: "a@example.com" } }));
  });

  it("refresh_credentials: effects.refreshCredentials(call) runs after credentials_refreshed and before the retry, whose context says refreshed: credentials (SPEC 18)", async () => {
    const registry = {
      apiVersion: "failbook/v1", kind: "Registry", name: "auth", revision: 1, classes: { auth: {}, unknown: {} }, fallback: "unknown_error",
      verdicts: [{ code: "token_expired", class: "auth", retryable: true, match: [{ http_status: 401 }] }, { code: "unknown_error", class: "unknown", retryable: false }],
    };
    const playbook = { apiVersion: "failbook/v1", kind: "Playbook", name: "auth", verdicts: { token_expired: { action: "refresh_credentials", then: "retry" }, unknown_error: { action: "fail" } } };
    const steps: string[] = [];
    const dispatcher = lib.createDispatcher({
      registry,
      playbook,
      clock: lib.virtualClock(),
      random: lib.seededRandom(1),
      onEvent: (e: { type: string }) => steps.push(`event ${e.type}`),
      effects: { refreshCredentials: (call: { id: string }) => void steps.push(`refreshCredentials ${call.id}`) },
    });
    const { outcome } = await dispatcher.dispatch({ id: "c1", tool: "crm.read", args: {} }, (_call: unknown, n: number, _key: string, context: { refreshed?: string }) => {
      steps.push(`attempt ${n} refreshed=${context.refreshed ?? "-"}`);
      return n === 1 ? { status: "error", error: { kind: "http", http_status: 401 } } : { status: "ok", value: {} };
    });
    expect(outcome.kind).toBe("recovered");
    expect(steps.filter((s) => !s.startsWith("event ") || s === "event credentials_refreshed")).toEqual(["attempt 1 refreshed=-", "event credentials_refreshed", "refreshCredentials c1", "attempt 2 refreshed=credentials"]);
  });

  it("simulates, generates bindings and renders the registry", async () => {
    const sim = await lib.simulateProject(project, {});
    expect(sim.failed).toBe(0);
    expect(sim.passed).toBe(project.fixtures.length);
    expect(lib.generateTypeScript(project).text).toContain("export type FailureVerdict");
    expect(lib.renderRegistry(project, "md")).toContain("idempotency_conflict");
  });

  it("outside a project, loadProject names its { config } option, not a CLI flag", () => {
    const cwd = tempProject({ "readme.txt": "nothing here" });
    expect(() => lib.loadProject({ cwd })).toThrow(/no failbook\.yaml found .*pass loadProject\(\{ config: "path\/to\/failbook\.yaml" \}\)$/);
    expect(() => lib.loadProject({ cwd })).not.toThrow(/--config/);
  });
});
