/**
 * SPEC 17, "no YAML in production": `gen ts` exports PROJECT, and failbook-runtime's
 * `createDispatcher({ project: PROJECT })` runs on it with the real clock and a random source
 * seeded from `crypto` by default, applying the project's own redact: patterns.
 */
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { createDispatcher, PROJECT_FORMAT, type ProjectData } from "failbook-runtime/engine/dispatch.js";
import { cryptoRandom } from "failbook-runtime/engine/random.js";
import type { Response } from "failbook-runtime/model/fixture.js";
import { generateTypeScript } from "../src/codegen/typescript.js";
import { loadProject } from "../src/load/project.js";
import { REPO } from "./helpers/cli.js";

const { project } = loadProject({ cwd: REPO });

/** The PROJECT of the module `gen ts` writes for the shipped project, as a service imports it. */
async function generatedProject(): Promise<ProjectData> {
  const text = generateTypeScript(project).text;
  const js = ts.transpileModule(text, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  const module = (await import(`data:text/javascript;base64,${Buffer.from(js).toString("base64")}`)) as { PROJECT: ProjectData };
  return module.PROJECT;
}

/** Fails as the shipped registry's transient_timeout, then succeeds. */
const timeoutThenOk = (n: number): Response => (n === 1 ? { status: "error", error: { kind: "timeout", message: "slow for ticket-4242" } } : { status: "ok", value: { id: 7 } });

describe("createDispatcher({ project: PROJECT })", () => {
  it("carries the validated registry and playbook and the redact: patterns as data", async () => {
    const PROJECT = await generatedProject();
    expect(PROJECT.format).toBe(PROJECT_FORMAT);
    expect(PROJECT.registry).toEqual(project.registry!.value);
    expect(PROJECT.playbook).toEqual(project.playbook!.value);
    expect(PROJECT.redact).toEqual(project.config.redact ?? []);
  });

  it("dispatches with the real clock and a crypto-seeded random by default, and redacts with the project's patterns", async () => {
    // A redact: pattern as gen ts writes it (lint and gen ts have checked it; see codegen tests).
    const dispatcher = createDispatcher({ project: { ...(await generatedProject()), redact: ["ticket-[0-9]+"] } });
    const started = Date.now();
    const { outcome, events } = await dispatcher.dispatch({ id: "c1", tool: "crm.create_contact" }, (_call, n) => timeoutThenOk(n), { runId: "r" });
    expect(outcome.kind).toBe("recovered");
    expect(outcome.verdict).toBe("transient_timeout");
    const delay = events.find((e) => e.type === "retry_scheduled")?.delay_ms ?? -1;
    expect(delay).toBeGreaterThan(0);
    // The wait was real: the retry came after its scheduled delay on the wall clock.
    expect(Date.now() - started).toBeGreaterThanOrEqual(delay - 5);
    // An escalation carries the adapter's message: redacted by the project's own pattern.
    const denied = await dispatcher.dispatch({ id: "c2", tool: "crm.create_contact" }, () => ({ status: "error", error: { kind: "permission_denied", message: "no scope for ticket-4242" } }));
    expect(denied.outcome.kind).toBe("escalated");
    expect(JSON.stringify(denied)).not.toContain("ticket-4242");
    expect(JSON.stringify(denied.outcome.envelope)).toContain("no scope for [REDACTED]");
  });

  it("refuses a project of another format, saying to regenerate it", () => {
    const stale = { format: "failbook.project/0", registry: {}, playbook: {}, redact: [] } as unknown as ProjectData;
    expect(() => createDispatcher({ project: stale })).toThrow(/format "failbook\.project\/0", not "failbook\.project\/1".*failbook gen ts/);
  });

  it("draws each default random source's seed from crypto: two dispatchers jitter differently", () => {
    const draws = Array.from({ length: 8 }, () => cryptoRandom()());
    expect(new Set(draws).size).toBe(8);
    for (const d of draws) expect(d >= 0 && d < 1).toBe(true);
  });
});
