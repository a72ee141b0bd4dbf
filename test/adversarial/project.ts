/** A small project for hostile-input tests: one retried verdict, one fixture, nothing else. */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { tempProject } from "../helpers/cli.js";

export const REGISTRY = `apiVersion: failbook/v1
kind: Registry
name: adversarial
revision: 1
classes:
  transient: { description: Temporary fault. }
verdicts:
  - code: timeout
    class: transient
    retryable: true
    summary: The upstream was slow.
    recovery: Retry with the same idempotency key.
    match: [{ kind: timeout }]
  - code: unknown_error
    class: transient
    retryable: false
    summary: Anything no rule recognises.
    recovery: Look at the logs.
fallback: unknown_error
`;

export const PLAYBOOK = `apiVersion: failbook/v1
kind: Playbook
name: adversarial
verdicts:
  timeout: { action: retry_with_backoff, max_retries: 2, backoff_ms: [100, 200] }
  unknown_error: { action: escalate_to_human, queue: oncall }
`;

/** A fixture without a golden: \`simulate --update\` adds one. */
export const FIXTURE = `apiVersion: failbook/v1
kind: Fixture
name: slow-then-ok
call: { id: c1, tool: search.query }
responses:
  - { status: error, error: { kind: timeout, message: slow } }
  - { status: ok }
`;

/** A project under a fresh directory that is its own repository (it holds .git). */
export function adversarialProject(files: Record<string, string> = {}, config = ""): string {
  const dir = tempProject({
    "failbook.yaml": `registry: registry.yaml\nplaybook: playbook.yaml\nfixtures: [fixtures]\n${config}`,
    "registry.yaml": REGISTRY,
    "playbook.yaml": PLAYBOOK,
    "fixtures/slow.yaml": FIXTURE,
    ...files,
  });
  mkdirSync(join(dir, ".git"));
  return dir;
}
