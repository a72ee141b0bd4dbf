/** Secrets in a fixture's error messages never reach any output: simulate (text, json, --update) or classify. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { failbook } from "./helpers/cli.js";
import { withShippedRules } from "./helpers/shipped.js";

// Built at run time so that no scanner mistakes the test for a leaked key.
const BEARER_TOKEN = ["eyJhbGciOiJI", "UzI1NiJ9abc", "DEF123"].join("");
const STRIPE_KEY = ["sk", "live", "51Hx9aBcDeFgHiJkLmNoP"].join("_");
const SLACK_TOKEN = ["xoxb", "1234", "abcd"].join("-");
const SECRETS = [BEARER_TOKEN, STRIPE_KEY, SLACK_TOKEN];

/** `config` is appended to the config file. */
function project(config = ""): string {
  const message = `401 from upstream: Authorization: Bearer ${BEARER_TOKEN}; key ${STRIPE_KEY}; slack ${SLACK_TOKEN}`;
  return withShippedRules(
    [
      "apiVersion: failbook/v1",
      "kind: Fixture",
      "name: leaky",
      "call: { id: c1, tool: slack.post_message }",
      "responses:",
      `  - { status: error, error: { kind: 401_unauthorized, message: ${JSON.stringify(message)} } }`,
      "expect:",
      "  outcome: succeeded", // wrong on purpose: the diff shows the actual envelope
      "  envelope: {}",
      "  packet: { summary: x }",
      "  events: []",
      "",
    ],
    `redact: ['xoxb-[A-Za-z0-9-]+']\n${config}`,
  );
}

const expectClean = (text: string) => {
  for (const secret of SECRETS) expect(text).not.toContain(secret);
};

describe("redaction", () => {
  it("simulate text and json show [REDACTED] where the secrets were", () => {
    const dir = project();
    const text = failbook(["simulate"], { cwd: dir });
    const json = failbook(["simulate", "--format", "json", "--coverage"], { cwd: dir });
    expect(text.code).toBe(1);
    expect(json.code).toBe(1);
    for (const r of [text, json]) {
      expectClean(r.stdout + r.stderr);
    }
    const parsed = JSON.parse(json.stdout);
    expect(parsed.results[0].outcome.envelope.error.message).toBe("401 from upstream: Authorization: Bearer [REDACTED]; key [REDACTED]; slack [REDACTED]");
  });

  it("--update never writes a secret into the golden", () => {
    // secret-in-project is an error, and --update records nothing from a project with one: turned off, as a project that records production's own messages may.
    const dir = project("rules: { secret-in-project: off }\n");
    expect(failbook(["simulate", "--update"], { cwd: dir }).code).toBe(0);
    const text = readFileSync(join(dir, "f.yaml"), "utf8");
    const golden = text.slice(text.indexOf("expect:"));
    expectClean(golden);
    expect(golden).toContain("Bearer [REDACTED]");
    expect(failbook(["simulate"], { cwd: dir }).code).toBe(0);
  });

  it("classify shows neither the token nor the key, in either format", () => {
    const dir = project();
    const error = JSON.stringify({ kind: "401_unauthorized", message: `Bearer ${BEARER_TOKEN} ${STRIPE_KEY} ${SLACK_TOKEN}` });
    for (const format of ["text", "json"]) {
      const r = failbook(["classify", "--error", error, "--format", format], { cwd: dir });
      expect(r.code).toBe(0);
      expectClean(r.stdout + r.stderr);
      expect(r.stdout).toContain("Bearer [REDACTED] [REDACTED] [REDACTED]");
    }
    const bad = failbook(["classify", "--error", `{"kind": "x", "message": "Bearer ${BEARER_TOKEN}"`], { cwd: dir });
    expect(bad.code).toBe(2);
    expectClean(bad.stderr);
  });
});
