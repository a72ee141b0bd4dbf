/**
 * SPEC 16, "every output is inert": generated hostile strings (control and bidi characters,
 * quotes, `::`, `%`, CR/LF, U+2028/9, a forged annotation after a line break) in every outside
 * text and in a file name, through lint (text, github, sarif, json), simulate, explain,
 * classify and render. No raw control or bidi character survives, no value starts a line of
 * its own, every SARIF log validates against SARIF 2.1.0, and JSON still carries every value
 * exactly.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import AjvDraft04 from "ajv-draft-04";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatGithub } from "../../src/lint/report/github.js";
import { formatSarif } from "../../src/lint/report/sarif.js";
import { formatText } from "../../src/lint/report/text.js";
import type { Finding } from "failbook-runtime/model/finding.js";
import { Chalk } from "chalk";
import { REPO, tempProject } from "../helpers/cli.js";
import { PLAIN_TEXTS, projectFiles, q, run, type Output, type Texts } from "./harness.js";

const MARK = "FORGED";
/** What no output may hold raw: C0 but tab and line feed, DEL, C1, the line separators, the bidi controls. */
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
const COLOR = /\u001b\[[0-9;]*m/g;

const FRAGMENTS = [
  "\u001b[2J",
  "\u001b[8m",
  "\u0007",
  "\b\b",
  "\r",
  "\u0000",
  "\u007f",
  "\u0085",
  "\u009b31m",
  "\u202e",
  "\u2066",
  "\u2069",
  "\u2028",
  "\u2029",
  "\t",
  '"',
  "'",
  "`",
  "::",
  "%",
  "%0A",
  ",",
  "${x}",
  "*/",
  "</script>",
  "plain",
  ` \n::error file=x.yaml,line=1::${MARK}`,
  `\r\n${MARK}:1:1 error`,
  `\n${MARK}`,
  `\u2028${MARK}`,
];

const hostile = fc.array(fc.constantFrom(...FRAGMENTS), { minLength: 1, maxLength: 6 }).map((parts) => parts.join(""));
const hostileTexts: fc.Arbitrary<Texts> = fc.record({
  message: hostile,
  args: hostile,
  argValue: hostile,
  response: hostile,
  summary: hostile,
  recovery: hostile,
  reason: hostile,
  playbookKey: hostile,
  label: hostile,
  kind: hostile,
});

/** A fixture file whose very name is hostile: file names reach every format. */
const HOSTILE_FILE = `fixtures/bad\n${MARK}\u202e.yaml`;

function hostileProject(t: Texts): string {
  const extra = `apiVersion: failbook/v1\nkind: Fixture\nname: ${q(`named ${t.label}`)}\ncall: { id: c9, tool: x }\nresponses: []\n`;
  return tempProject(projectFiles(t, { extraFiles: { [HOSTILE_FILE]: extra } }));
}

async function outputs(dir: string, t: Texts): Promise<Output[]> {
  const error = JSON.stringify({ kind: "refused", message: t.message });
  const commands = [
    ["lint"],
    ["lint", "--format", "github"],
    ["lint", "--format", "sarif"],
    ["lint", "--format", "json"],
    ["simulate"],
    ["simulate", "--format", "json", "--coverage"],
    ["classify", "--error", error, "--tool", t.label],
    ["classify", "--error", error, "--format", "json"],
    ["explain", "upstream_refused"],
    ["explain", "needs_human"],
    ["explain", `upstream${t.label}`],
    ["render"],
    ["render", "--format", "html"],
  ];
  const out: Output[] = [];
  for (const args of commands) out.push(await run(dir, args));
  for (const args of [["lint"], ["simulate"], ["explain", "upstream_refused"]]) out.push({ ...(await run(dir, args, { color: true })), command: `${args.join(" ")} (colour)` });
  return out;
}

/** A URI reference: only the characters RFC 3986 allows, anything else percent-encoded. */
const URI_REFERENCE = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/;
const sarifSchema = JSON.parse(readFileSync(join(REPO, "test/vendor/sarif-2.1.0-rtm.5.json"), "utf8"));
// The schema's string formats, checked too: a URI is one, a file location a URI reference.
const sarifAjv = new AjvDraft04({ allErrors: true, strict: false, unicodeRegExp: false })
  .addFormat("uri", (s: string) => URI_REFERENCE.test(s) && /^[A-Za-z][A-Za-z0-9+.-]*:/.test(s))
  .addFormat("uri-reference", (s: string) => URI_REFERENCE.test(s))
  .addFormat("date-time", (s: string) => !Number.isNaN(Date.parse(s)));
const validateSarif = sarifAjv.compile(sarifSchema);

function checkInert(o: Output): void {
  const text = (o.stdout + o.stderr).replace(COLOR, "");
  expect(RAW.exec(text)?.[0], `${o.command}: a raw control or bidi character`).toBeUndefined();
  // Markdown and HTML keep a text's line breaks as content (hard breaks, white space): no line there is a record.
  if (o.command.startsWith("render")) return;
  // A value from input never begins a line: the forged marker only ever follows something of ours.
  const forged = text.split("\n").filter((line) => line.startsWith(MARK) || line.startsWith(`::error file=x.yaml,line=1::${MARK}`));
  expect(forged, `${o.command}: a value began a line`).toEqual([]);
}

function checkFormat(o: Output): void {
  if (o.command === "lint --format github") {
    for (const line of o.stdout.split("\n").filter((l) => l !== "")) expect(line).toMatch(/^::(error|warning|notice) file=[^,:]*,line=\d+,col=\d+,title=[a-z/-]+::/);
  }
  if (o.command === "lint") {
    const shapes = [/^\S.*:\d+:\d+ (error|warning|info) .* \[[a-z/-]+\]$/, /^ *\d* \|/, /^  note: /, /^\d+ problems? \(/, /^no problems found$/];
    for (const line of o.stdout.split("\n").filter((l) => l !== "")) expect(shapes.some((s) => s.test(line)), `lint text line: ${JSON.stringify(line)}`).toBe(true);
  }
  if (o.command === "lint --format sarif") {
    const log = JSON.parse(o.stdout);
    expect(validateSarif(log), JSON.stringify(validateSarif.errors)).toBe(true);
    for (const result of log.runs[0].results) expect(result.locations[0].physicalLocation.artifactLocation.uri).toMatch(URI_REFERENCE);
  }
  if (o.command.includes("--format json")) JSON.parse(o.stdout);
}

describe("every output is inert", () => {
  it("generated hostile strings in every outside text and a file name, through every format", async () => {
    await fc.assert(
      fc.asyncProperty(hostileTexts, async (t) => {
        for (const o of await outputs(hostileProject(t), t)) {
          checkInert(o);
          checkFormat(o);
        }
      }),
      { numRuns: 12, endOnFailure: true },
    );
  });

  it("JSON keeps every value exactly: escapes are JSON's own", async () => {
    const t = { ...PLAIN_TEXTS, message: `a\u202eb\u0085c\u2028d\u001be\nf` };
    const dir = hostileProject(t);
    const classified = JSON.parse((await run(dir, ["classify", "--error", JSON.stringify({ kind: "refused", message: t.message }), "--format", "json"])).stdout);
    expect(classified.error.message).toBe(t.message);
    const simulated = JSON.parse((await run(dir, ["simulate", "--format", "json"])).stdout);
    const refused = simulated.results.find((r: { fixture: string }) => r.fixture.startsWith("refused"));
    expect(refused.outcome.envelope.error.message).toBe(t.message);
  });

  it("a summary holding a line break cannot forge an annotation in lint text or github output", async () => {
    const forgery = `ok\n::error file=src/app.ts,line=1::${MARK}`;
    const dir = hostileProject({ ...PLAIN_TEXTS, playbookKey: forgery });
    for (const format of ["text", "github"]) {
      const r = await run(dir, ["lint", "--format", format]);
      expect(r.stdout.split("\n").some((line) => line.startsWith("::error file=src/app.ts"))).toBe(false);
      expect(r.stdout).toContain(format === "github" ? `%0A::error file=src/app.ts,line=1::${MARK}` : `ok\\u{a}::error file=src/app.ts,line=1::${MARK}`);
    }
  });

  it("ESC and BEL from YAML reach no terminal: simulate, explain, classify, render", async () => {
    const t = { ...PLAIN_TEXTS, message: "\u001b]0;pwned\u0007", summary: "\u001b[31mred\u001b[0m", reason: "\u0007bell", recovery: "\u202eevil" };
    const dir = hostileProject(t);
    for (const args of [["simulate"], ["explain", "upstream_refused"], ["classify", "--error", JSON.stringify({ kind: "refused", message: t.message })], ["render"]]) {
      const r = await run(dir, args);
      expect(RAW.test(r.stdout + r.stderr), args[0]).toBe(false);
      // Shown as an escape: the sanitiser's \u{1b}, or JSON's \u001b inside a quoted value.
      expect(r.stdout).toMatch(/\\u(\{1b\}|001b)/);
    }
  });
});

describe("annotation and SARIF encoding", () => {
  const finding = (over: Partial<Finding>): Finding => ({ rule: "schema", severity: "error", message: "m", file: "f.yaml", line: 1, column: 1, path: "", fingerprint: "0123456789abcdef", ...over });

  it("github: % CR LF escaped in messages; : and , too in properties; controls as \\u{…}", () => {
    const out = formatGithub([finding({ message: "50% done\r\nnext::line\u001b", file: "dir,x:y/a%b\n.yaml" })]);
    expect(out).toBe("::error file=dir%2Cx%3Ay/a%25b%0A.yaml,line=1,col=1,title=schema::50%25 done%0D%0Anext::line\\u{1b}\n");
  });

  it("SARIF: file names percent-encoded, messages escaped, columns in the declared UTF-16 code units", () => {
    const log = JSON.parse(formatSarif([finding({ file: "my dir/#1\u202e.yaml", message: "a\u202eb", column: 5 })], [], "0"));
    expect(log.runs[0].columnKind).toBe("utf16CodeUnits");
    const result = log.runs[0].results[0];
    expect(result.locations[0].physicalLocation.artifactLocation.uri).toBe("my%20dir/%231%E2%80%AE.yaml");
    expect(result.message.text).toBe("a\\u{202e}b");
    expect(validateSarif(log)).toBe(true);
  });

  it("text: the excerpt's caret stays under the column when the line holds escapes and astral characters", () => {
    const source = "key: \u001b😀 value\n";
    const text = formatText([finding({ line: 1, column: 9 })], { c: new Chalk({ level: 0 }), sourceText: () => source });
    const [, , code, caret] = text.split("\n");
    expect(code).toBe("1 | key: \\u{1b}😀 value");
    expect(caret.indexOf("^") - 4).toBe("key: \\u{1b}😀".length);
  });
});

describe("positions in every format", () => {
  it("a BOM and CRLF line ends move no finding", async () => {
    const plain = tempProject(projectFiles({ ...PLAIN_TEXTS, playbookKey: "no_such_code" }));
    const crlf = tempProject(
      Object.fromEntries(Object.entries(projectFiles({ ...PLAIN_TEXTS, playbookKey: "no_such_code" })).map(([path, text]) => [path, path.endsWith("playbook.yaml") ? "\ufeff" + text.replace(/\n/g, "\r\n") : text])),
    );
    const positions = async (dir: string) => JSON.parse((await run(dir, ["lint", "--format", "json"])).stdout).findings.map((f: Finding) => `${f.rule} ${f.line}:${f.column}`);
    expect(await positions(crlf)).toEqual(await positions(plain));
    const sarif = JSON.parse((await run(crlf, ["lint", "--format", "sarif"])).stdout);
    expect(sarif.runs[0].results.find((r: { level: string }) => r.level === "error").locations[0].physicalLocation.region).toEqual({ startLine: 14, startColumn: 3 });
  });
});
