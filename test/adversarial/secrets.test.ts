/**
 * SPEC 16, "secrets never leave": secrets of every family, placed in every outside text failbook
 * reads (adapter errors, call arguments, responses, registry texts, playbook reasons and keys),
 * then every command and format run and every output and written file scanned. Nothing of a
 * secret may survive, by our own check (the secret's cores) and by an independent scanner's
 * (secretlint with its recommended preset).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { anySecret, leaks, sampleSecrets, type Secret } from "../helpers/secrets.js";
import { tempProject } from "../helpers/cli.js";
import { everyOutput, PLAIN_TEXTS, projectFiles, run, secretlintFindings, type Produced, type Texts } from "./harness.js";

/** A project with `secrets` spread over the places an outsider controls (cycling when fewer). */
function leakyTexts(secrets: readonly Secret[]): Texts {
  const pick = (i: number) => secrets[i % secrets.length];
  return {
    message: `upstream said: ${pick(0).text} (request 7)`,
    args: `auth ${pick(1).text}`,
    argValue: pick(2).cores[0],
    response: `issued ${pick(3).text}`,
    summary: `Refused; the key was ${pick(4).text}.`,
    recovery: `Rotate ${pick(5).text} first.`,
    reason: `refused for ${pick(6).text}`,
    playbookKey: pick(7).text,
    label: "leaky",
    kind: "refused_again",
  };
}

const OLD = tempProject(projectFiles(PLAIN_TEXTS, { revision: 1 }));

async function outputsOf(secrets: readonly Secret[]): Promise<Produced[]> {
  const dir = tempProject(projectFiles(leakyTexts(secrets)));
  return everyOutput(dir, OLD, `denied: ${secrets.map((s) => s.text).join(" | ")}`);
}

function expectNoLeak(outputs: readonly Produced[], secrets: readonly Secret[]): void {
  const found = outputs.flatMap((o) => leaks(o.text, secrets).map((leak) => `${o.command}: ${leak}`));
  expect(found).toEqual([]);
}

describe("secrets never leave", () => {
  // One project per family, that family's secret in every place: the corpus the oracle reads too.
  const corpus: { secrets: Secret[]; outputs: Produced[] }[] = [];

  it("every family, in every place, through every command, format and written file", async () => {
    for (const secret of sampleSecrets(7)) {
      const outputs = await outputsOf([secret]);
      corpus.push({ secrets: [secret], outputs });
      expectNoLeak(outputs, [secret]);
      // The commands ran for real: the project's own texts are there, with [REDACTED] where the secret was.
      const all = outputs.map((o) => o.text).join("\n");
      expect(all).toContain("[REDACTED]");
      expect(all).toContain("upstream_refused");
    }
  });

  it("generated mixes of secrets, through every command and format", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(anySecret, { minLength: 1, maxLength: 8 }), async (secrets) => {
        const outputs = await outputsOf(secrets);
        corpus.push({ secrets, outputs });
        expectNoLeak(outputs, secrets);
      }),
      // A failing case is reported as found: shrinking would rerun every command thousands of times.
      { numRuns: 25, endOnFailure: true },
    );
  });

  it("the independent scanner finds nothing in any output of the corpus", async () => {
    expect(corpus.length).toBeGreaterThan(0);
    const findings: string[] = [];
    for (const { outputs } of corpus) {
      for (const o of outputs) for (const f of await secretlintFindings(o.text)) findings.push(`${o.command}: ${f}`);
    }
    expect(findings).toEqual([]);
  });

  it("the scanner is not blind: on the raw secrets it finds the families it knows", async () => {
    const raw = corpus.flatMap((c) => c.secrets.map((s) => s.text)).join("\n");
    const rules = new Set((await secretlintFindings(raw)).map((f) => f.split(":")[0].replace("@secretlint/secretlint-rule-", "")));
    for (const rule of ["github", "slack", "anthropic", "openai", "database-connection-string"]) expect(rules).toContain(rule);
  });

  it("a config redact: pattern covers the project's own secret shapes, files included", async () => {
    const session = ["deploy", "s3ss10nabc"].join("-");
    const texts = { ...PLAIN_TEXTS, message: `session ${session} expired`, summary: `Session ${session}.`, playbookKey: session };
    const dir = tempProject(projectFiles(texts, { extraConfig: "redact: ['deploy-[a-z0-9]{10}']" }));
    const outputs = await everyOutput(dir, OLD, `session ${session}`);
    expect(outputs.filter((o) => o.text.includes(session)).map((o) => o.command)).toEqual([]);
  });
});

describe("redaction never touches the project's vocabulary", () => {
  // Codes, kinds and tool globs that look like secrets' names: every output must spell them as written.
  const VOCABULARY = ["auth.token_expired", "password_reset_required", "api_key_invalid", "client_secret_rotated"];

  it("classify, explain, render and gen ts print codes and kinds that name tokens and passwords intact", async () => {
    const files = projectFiles(PLAIN_TEXTS);
    const registry = files["registry.yaml"].replace(
      "fallback: unknown_error",
      VOCABULARY.map((code) => `  - { code: ${code}, class: permanent, retryable: false, summary: ${code} happened., match: [{ kind: ${code.replace(".", "_")}_kind }] }`).join("\n") + "\nfallback: unknown_error",
    );
    const playbook = files["playbook.yaml"] + VOCABULARY.map((code) => `  ${code}: { action: escalate_to_human, queue: secrets_team }`).join("\n") + "\n";
    const dir = tempProject({ ...files, "registry.yaml": registry, "playbook.yaml": playbook });
    await run(dir, ["gen", "ts", "--out", join(dir, "gen.ts")]);
    const generated = readFileSync(join(dir, "gen.ts"), "utf8");
    for (const code of VOCABULARY) {
      const kind = `${code.replace(".", "_")}_kind`;
      const outputs = [
        await run(dir, ["classify", "--error", JSON.stringify({ kind })]),
        await run(dir, ["classify", "--error", JSON.stringify({ kind }), "--format", "json"]),
        await run(dir, ["explain", code]),
        await run(dir, ["render"]),
        await run(dir, ["render", "--format", "json"]),
      ];
      for (const text of [...outputs.map((o) => o.stdout), generated]) {
        expect(text).toContain(code);
        expect(text).toContain(kind);
      }
    }
  });
});
