/**
 * A small project for change-control tests, as plain data: edit a copy, write it out.
 * The baseline and the current side of a case are two edits of the same starting point.
 */
import { stringify } from "yaml";

export interface ProjectData {
  config: Record<string, unknown>;
  registry: { revision: number; classes: Record<string, Record<string, unknown>>; verdicts: Record<string, unknown>[]; [key: string]: unknown };
  playbook: { verdicts: Record<string, Record<string, unknown>>; [key: string]: unknown };
  /** File name (under playbooks/fixtures/) -> fixture. */
  fixtures: Record<string, Record<string, unknown>>;
}

export function baseProject(): ProjectData {
  return {
    config: { registry: "playbooks/registry.yaml", playbook: "playbooks/playbook.yaml", fixtures: ["playbooks/fixtures"] },
    registry: {
      apiVersion: "failbook/v1",
      kind: "Registry",
      name: "change-test",
      revision: 1,
      classes: {
        transient: { description: "Temporary fault." },
        permanent: { description: "Retrying cannot help." },
      },
      verdicts: [
        { code: "timeout", class: "transient", retryable: true, adr: "ADR-0001", summary: "Slow upstream.", recovery: "Retry.", match: [{ kind: "timeout" }] },
        { code: "conflict", class: "permanent", retryable: false, adr: "ADR-0001", summary: "Already done.", recovery: "Re-plan.", match: [{ kind: "409_conflict" }] },
        { code: "unknown_error", class: "permanent", retryable: false, adr: "ADR-0001", summary: "Unrecognised.", recovery: "Ask a human." },
      ],
      fallback: "unknown_error",
    },
    playbook: {
      apiVersion: "failbook/v1",
      kind: "Playbook",
      name: "default",
      verdicts: {
        timeout: { action: "retry_with_backoff", max_retries: 2, backoff_ms: [100, 200] },
        conflict: { action: "deprecate_tool_call", reason: "upstream already did it", replan: true },
        unknown_error: { action: "escalate_to_human", queue: "oncall" },
      },
    },
    fixtures: {
      "timeout-recovers.yaml": {
        apiVersion: "failbook/v1",
        kind: "Fixture",
        name: "timeout-recovers",
        call: { id: "call_1", tool: "search.query" },
        responses: [{ status: "error", error: { kind: "timeout" }, latency_ms: 30 }, { status: "ok", latency_ms: 10 }],
        expect: { outcome: "recovered", verdict: "timeout", attempts: 2 },
      },
    },
  };
}

/** A fresh copy of the base project, changed by `edit`. */
export function editedProject(edit: (p: ProjectData) => void = () => {}): ProjectData {
  const p = baseProject();
  edit(p);
  return p;
}

/** The project as files (path -> text), for tempProject() or a git commit. */
export function projectFiles(p: ProjectData, under = ""): Record<string, string> {
  const files: Record<string, string> = {
    [`${under}failbook.yaml`]: stringify(p.config),
    [`${under}playbooks/registry.yaml`]: stringify(p.registry),
    [`${under}playbooks/playbook.yaml`]: stringify(p.playbook),
  };
  for (const [name, fixture] of Object.entries(p.fixtures)) files[`${under}playbooks/fixtures/${name}`] = stringify(fixture);
  return files;
}

/** The verdict of `code` in a project's registry (throws when there is none: a broken test). */
export function verdict(p: ProjectData, code: string): Record<string, unknown> {
  const v = p.registry.verdicts.find((x) => x.code === code);
  if (!v) throw new Error(`no verdict ${code}`);
  return v;
}
