/** The fleet: block's own mistakes (SPEC 23): a sync of 0 ms, a sync slower than the lease. */
import { describe, expect, it } from "vitest";
import { failbook, tempProject } from "./helpers/cli.js";
import { BASE_PLAYBOOK, BASE_REGISTRY } from "./helpers/rule-tester.js";

const lint = (fleet: string) =>
  failbook(["lint"], { cwd: tempProject({ "failbook.yaml": "registry: registry.yaml\nplaybook: playbook.yaml\n", "registry.yaml": BASE_REGISTRY, "playbook.yaml": BASE_PLAYBOOK + `retry_budget: { scope: fleet }\nfleet: ${fleet}\n` }) });

describe("fleet: in the playbook schema", () => {
  it.each([
    ["{ sync_ms: 0 }", "playbook.yaml:8:19", "sync_ms"],
    ["{ sync_ms: 2000, lease_ms: 1000 }", "playbook.yaml:8:19", "fleet sync_ms 2000 is above lease_ms 1000"],
    ["{ sync_ms: 1500 }", "playbook.yaml:8:19", "fleet sync_ms 1500 is above lease_ms 1000"],
    ["{ on_store_down: open }", "playbook.yaml:8:25", "must be one of local, closed"],
  ])("%s is one located error, exit 1", (fleet, where, says) => {
    const r = lint(fleet);
    expect(r.code).toBe(1);
    const line = r.stdout.split("\n").find((l) => l.includes(where));
    expect(line, r.stdout).toContain(says);
  });

  it("a sync within the lease passes", () => {
    expect(lint("{ sync_ms: 250, lease_ms: 1000, on_store_down: closed }").code).toBe(0);
  });
});
