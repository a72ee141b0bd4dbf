#!/usr/bin/env node
// The GitHub Action's entry point (action.yml): lint with annotations, a SARIF file for code
// scanning, and the behaviour diff (and with the storms input, failbook storm --against)
// against the pull request's base in the job summary. It
// reads what a runner sets (INPUT_* from action.yml, GITHUB_WORKSPACE, GITHUB_EVENT_PATH,
// GITHUB_BASE_REF, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT) and runs this checkout's CLI, so the
// action does exactly what `failbook lint` and `failbook diff` do on a developer's machine.
//
// Exit status: 0 clean (or fail-on: never); 1 a finding at or above fail-on; 2 failbook could
// not run (a bad input, no config, a base commit missing from a shallow clone).
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const CLI = join(dirname(fileURLToPath(import.meta.url)), "..", "bin", "failbook.js");
const FAIL_ON = ["error", "warning", "info", "never"];

class InputError extends Error {}

/** Workflow-command escaping of a message (GitHub's rules: %, CR, LF). */
const escapeData = (s) => s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");

function main(env) {
  const workspace = resolve(env.GITHUB_WORKSPACE || process.cwd());
  // A JavaScript action gets INPUT_FAIL-ON, action.yml's composite step passes INPUT_FAIL_ON.
  const input = (name) => (env[`INPUT_${name.toUpperCase()}`] ?? env[`INPUT_${name.toUpperCase().replace(/-/g, "_")}`] ?? "").trim();
  const failOn = input("fail-on") || "error";
  if (!FAIL_ON.includes(failOn)) throw new InputError(`input fail-on must be one of ${FAIL_ON.join(", ")}, not '${failOn}'`);
  const config = input("config");
  const sarifPath = input("sarif") || "failbook.sarif";
  const against = input("against") || pullRequestBase(env, workspace);

  const globals = config ? ["--config", config] : [];
  const againstArgs = against ? ["--against", against] : [];
  const failbook = (args) => {
    const r = spawnSync(process.execPath, [CLI, ...globals, ...args], { cwd: workspace, encoding: "utf8", env: { ...env, NO_COLOR: "1" }, maxBuffer: 1 << 30 });
    if (r.error) throw r.error;
    return { code: r.status ?? 2, stdout: r.stdout, stderr: r.stderr };
  };
  const ran = (what, r) => {
    if (r.code !== 2) return r;
    process.stderr.write(r.stderr);
    throw new InputError(`${what} could not run: ${lastLine(r.stderr)}`);
  };

  // 1. Annotations on the pull request's files (workflow commands on stdout).
  const lint = ran("failbook lint", failbook(["lint", "--format", "github", "--fail-on", failOn === "never" ? "error" : failOn, ...againstArgs]));
  process.stdout.write(lint.stdout);
  process.stderr.write(lint.stderr);
  const counts = countAnnotations(lint.stdout);

  // 2. The same findings as SARIF, for github/codeql-action/upload-sarif.
  const sarif = ran("failbook lint --format sarif", failbook(["lint", "--format", "sarif", ...againstArgs]));
  const sarifFile = resolve(workspace, sarifPath);
  writeAtomic(sarifFile, sarif.stdout);

  // 3. What the change does to behaviour, for the reviewer: the job summary.
  const summary = [`## failbook`, "", lintLine(counts, failOn, against), `SARIF: \`${relativeTo(workspace, sarifFile)}\``, ""];
  if (against) {
    const diff = ran("failbook diff", failbook(["diff", against, "--format", "md"]));
    summary.push(diff.stdout.trimEnd(), "");
  } else {
    summary.push("No behaviour diff: this run is not for a pull request and no `against` input was given.", "");
  }
  // 4. What the change does to a fleet in an outage (failbook storm), when asked for.
  const storms = stormsInput(input("storms"));
  let stormsFailed = false;
  if (storms) {
    const storm = ran("failbook storm", failbook(["storm", ...storms, ...againstArgs]));
    process.stderr.write(storm.stderr);
    stormsFailed = storm.code === 1;
    const what = against ? `against \`${against}\`` : "(no baseline: not a pull request, and no against input)";
    summary.push(`### failbook: storms ${what}`, "", storm.code === 1 ? "**An expect check failed, or a verdict got worse than the baseline's.**" : "Every expect holds; no verdict got worse.", "", "```text", storm.stdout.trimEnd(), "```", "");
  }
  if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, summary.join("\n") + "\n");
  else process.stdout.write(summary.join("\n") + "\n");

  if (env.GITHUB_OUTPUT) {
    const outputs = { sarif: relativeTo(workspace, sarifFile), errors: counts.error, warnings: counts.warning, notices: counts.notice, against: against ?? "" };
    appendFileSync(env.GITHUB_OUTPUT, Object.entries(outputs).map(([k, v]) => `${k}=${String(v).replace(/[\r\n]/g, " ")}\n`).join(""));
  }
  return failOn !== "never" && (lint.code === 1 || stormsFailed) ? 1 : 0;
}

/** The storms input: off (""/"false"), the config's storms ("true"), or files and globs. */
function stormsInput(value) {
  if (value === "" || value === "false") return undefined;
  if (value === "true") return [];
  return value.split(/\s+/).filter(Boolean);
}

/**
 * The baseline of a pull request: its base commit (from the event payload), else its base
 * branch as fetched (origin/BASE) or as a local branch. A shallow clone lacks the base
 * commit: it is fetched once (depth 1 is enough for `git show`).
 */
function pullRequestBase(env, workspace) {
  const event = readEvent(env.GITHUB_EVENT_PATH);
  const sha = event?.pull_request?.base?.sha;
  const baseRef = env.GITHUB_BASE_REF || event?.pull_request?.base?.ref;
  if (!sha && !baseRef) return undefined;
  const git = (...args) => spawnSync("git", args, { cwd: workspace, encoding: "utf8" });
  const exists = (rev) => git("rev-parse", "--verify", "--quiet", `${rev}^{commit}`).status === 0;
  if (sha && !exists(sha)) git("fetch", "--no-tags", "--depth=1", "origin", sha);
  for (const rev of [sha, baseRef && `origin/${baseRef}`, baseRef]) if (rev && exists(rev)) return `git:${rev}`;
  throw new InputError(
    `the pull request's base (${sha ?? baseRef}) is not in this clone; check out with fetch-depth: 0 (actions/checkout), or set the against input`,
  );
}

function readEvent(path) {
  if (!path || !existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    throw new InputError(`GITHUB_EVENT_PATH ${path} is not JSON`);
  }
}

/** Annotations by level, as `lint --format github` wrote them. */
function countAnnotations(text) {
  const counts = { error: 0, warning: 0, notice: 0 };
  for (const line of text.split("\n")) {
    const m = /^::(error|warning|notice)[ :]/.exec(line);
    if (m) counts[m[1]]++;
  }
  return counts;
}

function lintLine(counts, failOn, against) {
  const n = (k, one, many) => `${counts[k]} ${counts[k] === 1 ? one : many}`;
  const base = against ? ` against \`${against}\`` : "";
  return `**Lint${base}:** ${n("error", "error", "errors")}, ${n("warning", "warning", "warnings")}, ${n("notice", "note", "notes")} (fail-on: ${failOn})`;
}

const relativeTo = (from, to) => {
  const r = relative(from, to);
  return r && !r.startsWith("..") && !isAbsolute(r) ? r : to;
};

const lastLine = (text) => text.trim().split("\n").filter(Boolean).pop() ?? "no message";

function writeAtomic(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

try {
  process.exitCode = main(process.env);
} catch (e) {
  if (!(e instanceof InputError)) throw e;
  process.stdout.write(`::error title=failbook::${escapeData(e.message)}\n`);
  process.stderr.write(`failbook action: ${e.message}\n`);
  process.exitCode = 2;
}
