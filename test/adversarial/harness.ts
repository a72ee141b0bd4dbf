/**
 * The adversarial suite's tools: a project whose every outside text is chosen by the test, a
 * command line run in this process (hundreds of runs in seconds), every command and format
 * of failbook over one project, and the independent secret scanner.
 */
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runSecretLint } from "secretlint";
import { main } from "../../src/cli/main.js";


/** Where a test puts its texts: the outside values failbook reads (SPEC 16). */
export interface Texts {
  /** An adapter error's message, in every failing response. */
  message: string;
  /** Free text inside a call's arguments. */
  args: string;
  /** The value of a call argument whose key names a secret (`api_key`). */
  argValue: string;
  /** An ok response's value and a needs_input question. */
  response: string;
  summary: string;
  recovery: string;
  /** A playbook reason (and a fail action's message). */
  reason: string;
  /** A playbook entry for no verdict: lint quotes its key. */
  playbookKey: string;
  /** Part of a fixture's name and of a queue's: values printed as labels. */
  label: string;
  /** A second `kind` that recognises upstream_refused: the registry's own vocabulary. */
  kind: string;
}

export const PLAIN_TEXTS: Texts = {
  message: "upstream said no",
  args: "a note",
  argValue: "k1",
  response: "done",
  summary: "Refused.",
  recovery: "Look.",
  reason: "refused upstream",
  playbookKey: "no_such_code",
  label: "plain",
  kind: "refused_again",
};

/** A YAML double-quoted scalar holding exactly `text`: every character outside printable ASCII escaped. */
export function q(text: string): string {
  let out = '"';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (ch === '"' || ch === "\\") out += "\\" + ch;
    else if (cp >= 0x20 && cp < 0x7f) out += ch;
    else if (cp <= 0xffff) out += "\\u" + cp.toString(16).padStart(4, "0");
    else out += "\\U" + cp.toString(16).padStart(8, "0");
  }
  return out + '"';
}

export function projectFiles(t: Texts, options: { revision?: number; extraConfig?: string; extraFiles?: Record<string, string> } = {}): Record<string, string> {
  return {
    ...options.extraFiles,
    "failbook.yaml": ["registry: registry.yaml", "playbook: playbook.yaml", "fixtures: [fixtures]", options.extraConfig ?? ""].join("\n"),
    "registry.yaml": `apiVersion: failbook/v1
kind: Registry
name: hostile
revision: ${options.revision ?? 2}
classes:
  transient: { description: Temporary fault., max_retries: 3 }
  permanent: { description: Refused. }
  policy: { description: ${q(`Not ours to decide. ${t.summary}`)} }
verdicts:
  - code: transient_timeout
    class: transient
    retryable: true
    summary: ${q(`Timed out. ${t.summary}`)}
    recovery: ${q(`Retry. ${t.recovery}`)}
    safe_next_actions: [${q(t.recovery)}]
    match:
      - kind: timeout
  - code: upstream_refused
    class: permanent
    retryable: false
    summary: ${q(t.summary)}
    cause: ${q(`${t.summary}\n${t.recovery}`)}
    recovery: ${q(t.recovery)}
    match:
      - kind: [refused, circuit_open, ${q(t.kind)}]
  - code: needs_human
    class: policy
    retryable: false
    human_action_required: true
    summary: ${q(t.summary)}
    recovery: ${q(t.recovery)}
    match:
      - kind: denied
  - code: unknown_error
    class: permanent
    retryable: false
    summary: Nothing matched.
    recovery: A human looks.
fallback: unknown_error
`,
    "playbook.yaml": `apiVersion: failbook/v1
kind: Playbook
name: hostile
attempt_timeout_ms: 3000
tools:
  ${q(`pay.${t.kind}*`)}: { attempt_timeout_ms: 2000 }
circuit_breakers:
  ${q(`breaker ${t.label}`)}: { tools: ${q(`pay.${t.kind}*`)}, failure_ratio: 0.5, minimum_throughput: 20, break_ms: 5000 }
verdicts:
  transient_timeout: { action: retry_with_backoff, max_retries: 1, backoff_ms: [100] }
  upstream_refused: { action: deprecate_tool_call, reason: ${q(t.reason)}, replan: true }
  needs_human: { action: escalate_to_human, queue: ${q(`oncall ${t.label}`)} }
  unknown_error: { action: fail, message: ${q(t.reason)} }
  ${q(t.playbookKey)}: { action: fail }
`,
    "fixtures/f.yaml": [
      fixture(`refused ${t.label}`, t, [`{ status: error, error: { kind: refused, message: ${q(t.message)} } }`], "  outcome: succeeded\n  envelope: {}\n  packet: { summary: x }\n  events: []"),
      fixture(`timeout then ok ${t.label}`, t, [`{ status: error, error: { kind: timeout, message: ${q(t.message)} } }`, `{ status: ok, value: { data: ${q(t.response)} } }`], "  outcome: failed\n  envelope: {}\n  events: []"),
      fixture(`escalated ${t.label}`, t, [`{ status: error, error: { kind: denied, message: ${q(t.message)} } }`], "  outcome: failed\n  packet: { summary: x }\n  reason: x"),
      fixture(`question ${t.label}`, t, [`{ status: needs_input, question: ${q(t.response)} }`], "  outcome: succeeded"),
    ].join("---\n"),
  };
}

function fixture(name: string, t: Texts, responses: string[], expect: string): string {
  return `apiVersion: failbook/v1
kind: Fixture
name: ${q(name)}
call: { id: c1, tool: payments.refund, args: { note: ${q(t.args)}, api_key: ${q(t.argValue)} } }
responses:
${responses.map((r) => `  - ${r}`).join("\n")}
expect:
${expect}
`;
}

export interface Output {
  /** The command line, for messages. */
  command: string;
  code: number;
  stdout: string;
  stderr: string;
}

class Capture {
  text = "";
  readonly isTTY = false;
  write(chunk: string | Uint8Array): boolean {
    this.text += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    return true;
  }
}

/** `failbook --config DIR/failbook.yaml --no-color ARGS`, in this process. */
export async function run(dir: string, args: string[], options: { color?: boolean } = {}): Promise<Output> {
  const stdout = new Capture();
  const stderr = new Capture();
  const globals = ["--config", join(dir, "failbook.yaml"), ...(options.color ? [] : ["--no-color"])];
  const saved = process.env.FORCE_COLOR;
  if (options.color) process.env.FORCE_COLOR = "1";
  try {
    const code = await main(["node", "failbook", ...globals, ...args], { stdout: stdout as unknown as NodeJS.WriteStream, stderr: stderr as unknown as NodeJS.WriteStream });
    return { command: args.join(" "), code, stdout: stdout.text, stderr: stderr.text };
  } finally {
    if (options.color) {
      if (saved === undefined) delete process.env.FORCE_COLOR;
      else process.env.FORCE_COLOR = saved;
    }
  }
}

/** What a command produced: its output, and any file it wrote (only the lines it changed, for a rewrite). */
export interface Produced {
  command: string;
  text: string;
}

/**
 * Every command and format over the project in `dir`, with `old` as the baseline for diff:
 * what each printed and each file it wrote. The project is copied first for the commands
 * that rewrite it.
 */
export async function everyOutput(dir: string, old: string, classifyMessage: string): Promise<Produced[]> {
  const out: Produced[] = [];
  const printed = async (args: string[]) => {
    const r = await run(dir, args);
    out.push({ command: r.command, text: r.stdout + r.stderr });
    return r;
  };
  for (const format of ["text", "json", "sarif", "github"]) await printed(["lint", "--format", format]);
  const baseline = join(dir, "baseline.json");
  await printed(["lint", "--write-baseline", baseline]);
  out.push({ command: "lint --write-baseline (file)", text: readFileSync(baseline, "utf8") });
  await printed(["lint", "--baseline", baseline]);
  await printed(["simulate"]);
  await printed(["simulate", "--format", "json", "--coverage"]);
  await printed(["simulate", "--coverage"]);
  const error = JSON.stringify({ kind: "refused", message: classifyMessage });
  await printed(["classify", "--error", error]);
  await printed(["classify", "--error", error, "--format", "json"]);
  for (const code of ["transient_timeout", "upstream_refused", "needs_human"]) await printed(["explain", code]);
  for (const format of ["md", "html", "json"]) await printed(["render", "--format", format]);
  for (const ext of ["md", "html", "json"]) {
    const file = join(dir, `registry.${ext}`);
    await printed(["render", "--out", file]);
    // render refuses to write while a registry text holds a secret (SPEC 21): then there is no file.
    if (existsSync(file)) out.push({ command: `render --out registry.${ext} (file)`, text: readFileSync(file, "utf8") });
  }
  for (const format of ["text", "json", "md"]) await printed(["diff", old, "--format", format]);
  const generated = join(dir, "gen/failbook.ts");
  await printed(["gen", "ts", "--out", generated]);
  if (existsSync(generated)) out.push({ command: "gen ts (file)", text: readFileSync(generated, "utf8") });
  for (const [target, file] of [["py", "gen/failbook.py"], ["jsonschema", "gen/failbook.schema.json"]] as const) {
    await printed(["gen", target, "--out", join(dir, file)]);
    if (existsSync(join(dir, file))) out.push({ command: `gen ${target} (file)`, text: readFileSync(join(dir, file), "utf8") });
  }
  await printed(["explore"]);

  // --update rewrites the fixture file in place: only the lines it wrote are its output.
  const copy = mkdtempSync(join(tmpdir(), "failbook-adversarial-update-"));
  cpSync(dir, copy, { recursive: true });
  // --update records nothing from a project with lint errors (secret-in-project is one): off, so the goldens it writes are scanned.
  appendFileSync(join(copy, "failbook.yaml"), "\nrules: { secret-in-project: off }\n");
  const before = readFileSync(join(copy, "fixtures/f.yaml"), "utf8").split("\n");
  const r = await run(copy, ["simulate", "--update"]);
  out.push({ command: "simulate --update", text: r.stdout + r.stderr });
  const written = readFileSync(join(copy, "fixtures/f.yaml"), "utf8").split("\n").filter((line) => !before.includes(line));
  out.push({ command: "simulate --update (goldens written)", text: written.join("\n") });
  return out;
}

/** The independent oracle: secretlint with its recommended preset, over one text. */
export async function secretlintFindings(text: string): Promise<string[]> {
  const result = await runSecretLint({
    cliOptions: { cwd: tmpdir(), stdinContent: text, stdinFileName: "output.txt" },
    engineOptions: { formatter: "json", color: false, maskSecrets: true, configFileJSON: { rules: [{ id: "@secretlint/secretlint-rule-preset-recommend" }] } },
  });
  const files = JSON.parse(result.stdout ?? "[]") as { messages: { ruleId: string; message: string }[] }[];
  return files.flatMap((f) => f.messages.map((m) => `${m.ruleId}: ${m.message}`));
}
