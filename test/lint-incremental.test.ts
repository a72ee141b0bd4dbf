/**
 * failbook lsp re-lints after every edit with the findings of the last check
 * (lint/incremental.ts): what it reports must be exactly what a full lint of the edited
 * project reports, whatever the edit moved, added or removed, whether it changed a field the
 * classifier reads or not. On the benchmark's generated project (a provider catalogue,
 * scripts/bench/generate.mjs), smaller. A rule's findings are kept only after an edit to
 * no field it reads: each rule is held here to the fields it declares (verdictFields).
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { diskReader, type FileReader } from "../src/load/files.js";
import { LoadCache, loadProjectFrom } from "../src/load/project.js";
import { lintProject } from "../src/lint/lint.js";
import { VerdictFindings } from "../src/lint/incremental.js";
import { RULES } from "../src/lint/rules/index.js";
import { perVerdict, type LintRule, type RuleContext } from "../src/lint/rule.js";
import { classifyExample, compiledRegistry } from "failbook-runtime/engine/classify.js";
import type { Verdict } from "failbook-runtime/model/registry.js";
// @ts-expect-error: a script of the benchmark, without types
import { writeProject } from "../scripts/bench/generate.mjs";

const { dir } = writeProject(mkdtempSync(join(tmpdir(), "failbook-incremental-")), 120) as { dir: string };
const REGISTRY = join(dir, "playbooks/registry.yaml");
const ORIGINAL = readFileSync(REGISTRY, "utf8");
const summaryAt = (text: string, nth: number) => {
  let at = -1;
  for (let i = 0; i <= nth; i++) at = text.indexOf("    summary: ", at + 1);
  return at + "    summary: ".length;
};

/** The `nth` verdict's line `key: ...` replaced by `key: value`. */
const setField = (text: string, nth: number, key: string, value: string): string => {
  let at = -1;
  for (let i = 0; i <= nth; i++) at = text.indexOf("\n  - code: ", at + 1);
  const lead = key === "code" ? "\n  - " : "\n    ";
  const line = key === "code" ? at : text.indexOf(`${lead}${key}: `, at);
  expect(line >= 0 && line < text.indexOf("\n  - code: ", at + 1), `verdict ${nth} has ${key}`).toBe(true);
  return `${text.slice(0, line)}${lead}${key}: ${value}${text.slice(text.indexOf("\n", line + 1))}`;
};

/** Where the `nth` verdict's line starts (at the line feed before it). */
const nthVerdict = (text: string, nth: number): number => {
  let at = -1;
  for (let i = 0; i <= nth; i++) at = text.indexOf("\n  - code: ", at + 1);
  return at;
};
/** The last verdict's lines (from its dash, each with its line feed). */
const lastVerdict = (text: string): string => text.slice(text.lastIndexOf("\n  - code: ") + 1, text.indexOf("\nfallback: ") + 1);

/** The edits an editor sends, one after another, each to the text before it. */
const EDITS: [string, (text: string) => string][] = [
  ["a character typed in a summary", (t) => t.slice(0, summaryAt(t, 60)) + "x" + t.slice(summaryAt(t, 60))],
  ["the character taken back", () => ORIGINAL],
  ["a comment line added above many verdicts (they all move down)", (t) => t.replace("\n  - code: ", "\n  # a note\n  - code: ")],
  ["a match rule by message text added to a verdict", (t) => t.replace(/(\n {4}match:\n)/, "$1      - message_contains: quota exhausted\n")],
  ["a verdict's summary emptied (docs-missing)", (t) => t.slice(0, summaryAt(t, 40)) + "''" + t.slice(t.indexOf("\n", summaryAt(t, 40)))],
  ["a verdict removed (every later one changes its place)", (t) => t.replace(/\n {2}- code: [^\n]*\n(?: {4}[^\n]*\n)+/, "\n")],
  ["a YAML error", (t) => t.replace("\n  - code: ", "\n  - code: [unclosed\n  - code: ")],
  ["the original back", () => ORIGINAL],
  // Edits to fields the classifier reads (code, status, match) and to ones it does not.
  ["a verdict's class changed to one the registry lacks (class-unknown)", (t) => setField(t, 30, "class", "flaky")],
  ["a verdict's retryable flipped", (t) => setField(t, 31, "retryable", "false")],
  ["a verdict's code renamed to another's (duplicate-code; the classifier is relabeled)", (t) => setField(t, 32, "code", "svc0.internal_error_0")],
  ["a verdict deprecated (a status: line added: later verdicts move down)", (t) => setField(t, 33, "retryable", "false\n    status: deprecated")],
  ["a verdict's first match rule widened to every 5xx (matcher-shadowed downstream)", (t) => t.replace(/(\n {2}- code: [^\n]*\n(?: {4}[^\n]*\n)*? {4}match:\n {6}- )\{[^\n]*\}/, "$1{ http_status: 5xx }")],
  ["an example's message changed (example-misclassified, verdict-untested)", (t) => t.replace('message: "svc3 request failed"', 'message: "svc3 failed again"')],
  ["a verdict's examples removed", (t) => t.replace(/\n {4}examples:\n(?: {6}[^\n]*\n)+/, "\n")],
  ["a secret typed into a summary (secret-in-project)", (t) => t.slice(0, summaryAt(t, 50)) + "token sk_live_4eC39HqLyjWDarjtT1zdp7dc " + t.slice(summaryAt(t, 50))],
  ["two verdicts swapped", (t) => {
    const verdicts = t.split(/(?=\n {2}- code: )/);
    [verdicts[20], verdicts[21]] = [verdicts[21], verdicts[20]];
    return verdicts.join("");
  }],
  // Edits the loader parses by parsing again only the verdicts they touch (yaml.ts, editedYaml), and ones it parses whole.
  ["a verdict's line indented (a YAML error inside a verdict)", (t) => t.replace("\n    retryable: ", "\n      retryable: ")],
  ["the line put back", (t) => t.replace("\n      retryable: ", "\n    retryable: ")],
  ["an edit across two verdicts (they become one)", (t) => t.slice(0, nthVerdict(t, 40) + t.slice(nthVerdict(t, 40)).indexOf("\n    match:")) + t.slice(nthVerdict(t, 41) + t.slice(nthVerdict(t, 41)).indexOf("\n    match:"))],
  ["a verdict added at the end of the list", (t) => t.replace("\nfallback: ", `\n${lastVerdict(t).replace(/code: [^\n]*/, "code: svc9.added_at_end")}fallback: `)],
  ["a key of a verdict misspelt (a schema error inside a verdict)", (t) => t.slice(0, nthVerdict(t, 45)) + t.slice(nthVerdict(t, 45)).replace("\n    retryable: ", "\n    retryabel: ")],
  ["another verdict edited while the schema error stands", (t) => t.slice(0, summaryAt(t, 80)) + "y" + t.slice(summaryAt(t, 80))],
  ["the key spelt right again", (t) => t.replace("    retryabel: ", "    retryable: ")],
  ["a verdict's lines indented further, consistently", (t) => {
    const [from, to] = [nthVerdict(t, 50), nthVerdict(t, 51)];
    return t.slice(0, from) + t.slice(from, to).replace("\n  - code: ", "\n  -   code: ").replace(/\n {4}/g, "\n      ") + t.slice(to);
  }],
  ["the fallback changed (outside the verdict list: everything is checked)", (t) => t.replace("fallback: unknown_error", "fallback: svc0.internal_error_0")],
  ["the original back once more", () => ORIGINAL],
];

describe("lint after an edit, reusing the unchanged verdicts' findings, equals a full lint", () => {
  it("after each of a series of edits", () => {
    let text = ORIGINAL;
    const disk = diskReader(dir);
    const files: FileReader = { ...bound(disk), readText: (p, max) => (p === REGISTRY ? text : disk.readText(p, max)) };
    const config = join(dir, "failbook.yaml");
    const cache = new LoadCache();
    const previous = new VerdictFindings();
    const lint = (incremental: boolean) => {
      try {
        const { project, findings } = loadProjectFrom(files, config, { cwd: dir, cache: incremental ? cache : undefined });
        return lintProject(project, findings, incremental ? { previous } : {});
      } catch (e) {
        return String(e);
      }
    };
    expect(lint(true)).toEqual(lint(false));
    for (const [what, edit] of EDITS) {
      const before = text;
      text = edit(text);
      expect(text === before, `${what}: the edit changes the text`).toBe(false);
      const incremental = lint(true);
      expect(incremental, what).toEqual(lint(false));
      expect(Array.isArray(incremental) && incremental.length > 0, what).toBe(true);
    }
  });

  it("parses again only the verdicts an edit inside the list touched, and the whole file after an edit outside it", () => {
    let text = ORIGINAL;
    const disk = diskReader(dir);
    const files: FileReader = { ...bound(disk), readText: (p, max) => (p === REGISTRY ? text : disk.readText(p, max)) };
    const cache = new LoadCache();
    const verdicts = () => loadProjectFrom(files, join(dir, "failbook.yaml"), { cwd: dir, cache }).project.registry!.value.verdicts;
    const before = verdicts();
    text = text.slice(0, summaryAt(text, 60)) + "x" + text.slice(summaryAt(text, 60));
    const after = verdicts();
    expect(after.length).toBe(before.length);
    // The same objects: not parsed again. The edited verdict is new, and says what the text says.
    expect(after.filter((v, i) => v !== before[i]).map((v) => after.indexOf(v))).toEqual([60]);
    expect(after[60].summary.startsWith("x")).toBe(true);
    text = text.replace("fallback: unknown_error", "fallback: svc0.internal_error_0");
    const whole = verdicts();
    expect(whole.some((v, i) => v === after[i])).toBe(false);
  });

  it("moves a reused finding with its verdict when lines are added above it", () => {
    const messageRules = editing("matcher-message-contains");
    const before = messageRules();
    expect(before.length).toBeGreaterThan(10);
    // Into the first verdict: it is checked again, every later one moves down two lines.
    const after = messageRules((text) => {
      const second = text.indexOf("\n  - code: ", text.indexOf("\n  - code: ") + 1);
      return `${text.slice(0, second)}\n  # one\n  # two${text.slice(second)}`;
    });
    expect(after.map((f) => f.line)).toEqual(before.map((f) => f.line + 2));
    expect(after.map((f) => f.fingerprint)).toEqual(before.map((f) => f.fingerprint));
  });
});

describe("lint after an edit reuses only what the edit cannot change", () => {
  /** The project with its registry text given, loaded and linted with `previous` (and `extraRules`). */
  const session = (extraRules: LintRule[] = []) => {
    let text = ORIGINAL;
    const disk = diskReader(dir);
    const files: FileReader = { ...bound(disk), readText: (p, max) => (p === REGISTRY ? text : disk.readText(p, max)) };
    const previous = new VerdictFindings();
    const cache = new LoadCache();
    return (edit: (t: string) => string) => {
      text = edit(text);
      const { project, findings } = loadProjectFrom(files, join(dir, "failbook.yaml"), { cwd: dir, cache });
      lintProject(project, findings, { previous, extraRules });
      return project;
    };
  };

  it("runs a rule that declares the verdict fields it reads again only after an edit to one of them", () => {
    let runs = 0;
    const counting: LintRule = { ...RULES[0], id: "duplicate-code", verdictFields: ["code"], check: () => void runs++ };
    const edit = session([counting]);
    edit((t) => t);
    expect(runs).toBe(1);
    edit((t) => t.slice(0, summaryAt(t, 10)) + "x" + t.slice(summaryAt(t, 10)));
    edit((t) => setField(t, 10, "class", "state"));
    expect(runs, "a summary and a class edited: code unchanged").toBe(1);
    edit((t) => setField(t, 10, "code", "svc9.renamed"));
    expect(runs, "a code edited").toBe(2);
  });

  it("keeps the compiled classifier while no verdict's code, status or match changed", () => {
    const edit = session();
    const indexOf = (project: ReturnType<typeof edit>) => compiledRegistry(project.registry!.value, project.playbook!.value).index;
    const first = indexOf(edit((t) => t));
    const afterSummary = edit((t) => t.slice(0, summaryAt(t, 10)) + "x" + t.slice(summaryAt(t, 10)));
    expect(indexOf(afterSummary)).toBe(first);
    const afterMatch = edit((t) => t.replace("{ kind: internal_error_2 }", "{ kind: internal_error_3 }"));
    expect(indexOf(afterMatch)).not.toBe(first);
  });

  it("keeps the compiled classifier, its rules giving the new code, when a verdict is renamed", () => {
    const edit = session();
    const compiledOf = (project: ReturnType<typeof edit>) => compiledRegistry(project.registry!.value, project.playbook!.value);
    const first = compiledOf(edit((t) => t)).index;
    const renamed = edit((t) => setField(t, 10, "code", "svc9.renamed"));
    const { index, places } = compiledOf(renamed);
    const verdicts = renamed.registry!.value.verdicts;
    // Each rule gives its verdict's code now; only the renamed verdict's rules are new objects.
    expect(index.rules.map((r) => r.verdict)).toEqual(places.map((p) => verdicts[p.verdict].code));
    expect(index.rules.filter((r, i) => r !== first.rules[i]).map((r) => r.verdict)).toEqual(verdicts[10].match!.map(() => "svc9.renamed"));
    expect(index.kind).toBe(first.kind);
    const example = verdicts[10].examples?.[0];
    if (example) expect(classifyExample(renamed.registry!.value, example, renamed.playbook!.value).verdict).toBe("svc9.renamed");
    // A rule that reads the playbook's retry-after hints reads them by its verdict's code: renaming compiles again.
    const hinted = edit((t) => t.replace(/(\n {4}match:\n {6}- \{ )/, "$1retry_after: present, "));
    const beforeRename = compiledOf(hinted).index;
    const after = compiledOf(edit((t) => setField(t, 12, "code", "svc9.renamed_too"))).index;
    expect(after.rules.some((r, i) => r === beforeRename.rules[i])).toBe(false);
  });

  it("gives an unchanged verdict the same finding objects after a rename, which every per-verdict rule reading codes checks again", () => {
    const untested = editing("verdict-untested");
    const before = untested();
    expect(before.length).toBeGreaterThan(10);
    // Verdict 10 renamed (its line count unchanged: no verdict moves).
    const after = untested((t) => setField(t, 10, "code", "svc9.renamed"));
    const renamedLine = (after.find((f) => f.message.includes("'svc9.renamed'")) ?? { line: -1 }).line;
    const others = after.filter((f) => f.line !== renamedLine);
    expect(others.length).toBeGreaterThan(10);
    expect(others.filter((f) => !before.includes(f)).map((f) => f.message)).toEqual([]);
  });

  it("checks again after a rename only the verdicts whose code went into or out of a rule's code set, finding what a full check finds", () => {
    // A per-verdict rule that reads the other verdicts through a set of codes: the codes given twice.
    const twice = (ctx: RuleContext) => {
      const seen = new Set<string>();
      const out = new Set<string>();
      for (const v of ctx.registry.value.verdicts) (seen.has(v.code) ? out : seen).add(v.code);
      return out;
    };
    const checked: number[] = [];
    const rule = perVerdict({
      id: "duplicate-code",
      severity: "info",
      description: "",
      example: "",
      fix: "",
      verdictFields: ["code"],
      codeSet: twice,
      checkVerdict(ctx, verdict, index) {
        checked.push(index);
        if (twice(ctx).has(verdict.code)) ctx.report({ message: `'${verdict.code}' twice`, doc: ctx.registry.doc, path: ["verdicts", index, "code"] });
      },
    });
    let text = ORIGINAL;
    const disk = diskReader(dir);
    const files: FileReader = { ...bound(disk), readText: (p, max) => (p === REGISTRY ? text : disk.readText(p, max)) };
    const previous = new VerdictFindings();
    const cache = new LoadCache();
    const mine = (findings: ReturnType<typeof lintProject>) => findings.filter((f) => f.rule === "duplicate-code" && f.severity === "info");
    const lint = (edit: (t: string) => string) => {
      text = edit(text);
      checked.length = 0;
      const { project, findings } = loadProjectFrom(files, join(dir, "failbook.yaml"), { cwd: dir, cache });
      const incremental = mine(lintProject(project, findings, { previous, extraRules: [rule] }));
      const rechecked = [...checked];
      const full = loadProjectFrom(files, join(dir, "failbook.yaml"), { cwd: dir });
      expect(incremental).toEqual(mine(lintProject(full.project, full.findings, { extraRules: [rule] })));
      return { found: incremental.map((f) => f.message), rechecked };
    };
    expect(lint((t) => t).found).toEqual([]);
    const firstCode = /\n {2}- code: ([^\n]+)/.exec(ORIGINAL)![1];
    // Verdict 10 renamed to verdict 0's code: verdict 0, not edited, is checked again and found.
    expect(lint((t) => setField(t, 10, "code", firstCode))).toEqual({ found: [`'${firstCode}' twice`, `'${firstCode}' twice`], rechecked: [0, 10] });
    expect(lint((t) => setField(t, 10, "code", "svc9.renamed"))).toEqual({ found: [], rechecked: [0, 10] });
    // A rename that flips no code of the set: the renamed verdict alone.
    expect(lint((t) => setField(t, 10, "code", "svc9.renamed_again"))).toEqual({ found: [], rechecked: [10] });
  });

  it("gives the same finding objects in an unchanged file after a rename, which runs again every rule reading codes", () => {
    const unreachable = editing("retries-unreachable");
    const before = unreachable();
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((f) => f.file.endsWith("playbook.yaml"))).toBe(true);
    const after = unreachable((t) => setField(t, 10, "code", "svc9.renamed"));
    expect(after.length).toBeGreaterThan(0);
    expect(after.filter((f) => !before.includes(f)).map((f) => f.message)).toEqual([]);
  });

  it("holds every rule to the verdict fields it declares (on the generated project and every example)", () => {
    const projects = [dir, ...readdirSync("examples").map((d) => join(process.cwd(), "examples", d))];
    // A per-verdict rule reads its own verdict freely, and of the others only what it declares (nothing when it declares nothing).
    const held = RULES.filter((r) => r.verdictFields !== undefined || r.checkVerdict !== undefined);
    expect(held.length).toBeGreaterThan(30);
    const undeclared = new Map<string, Set<string>>();
    let checked = 0;
    for (const root of projects) {
      let loaded;
      try {
        loaded = loadProjectFrom(diskReader(root), join(root, "failbook.yaml"), { cwd: root });
      } catch {
        continue;
      }
      const { project } = loaded;
      if (!project.registry || !project.playbook) continue;
      checked++;
      for (const rule of held) {
        const allowed = new Set<string>(rule.verdictFields);
        const read = (key: string | symbol) => {
          if (typeof key === "string" && !allowed.has(key)) undeclared.set(rule.id, (undeclared.get(rule.id) ?? new Set()).add(key));
        };
        // Every verdict watched; a fresh registry object, so that no cache answers for the rule.
        const watch = (v: Verdict) =>
          new Proxy(v, {
            get: (t, k, r) => (read(k), Reflect.get(t, k, r)),
            has: (t, k) => (read(k), Reflect.has(t, k)),
            getOwnPropertyDescriptor: (t, k) => (read(k), Reflect.getOwnPropertyDescriptor(t, k)),
            ownKeys: (t) => (read("(every key)"), Reflect.ownKeys(t)),
          });
        const own = project.registry.value.verdicts;
        const registry = { ...project.registry, value: { ...project.registry.value, verdicts: own.map(watch) } };
        const ctx = { project: { ...project, registry }, registry, playbook: project.playbook, fixtures: project.fixtures, report: () => {} };
        const checkVerdict = rule.checkVerdict;
        if (checkVerdict) own.forEach((verdict, index) => checkVerdict(ctx, verdict, index));
        else rule.check(ctx);
      }
    }
    expect(checked).toBeGreaterThan(5);
    expect(Object.fromEntries([...undeclared].map(([id, keys]) => [id, [...keys]]))).toEqual({});
  });
});

/** The generated project's registry under edit: each call edits its text (none: as it is) and lints with the last check's findings, giving those of `rule`. */
function editing(rule: string): (edit?: (text: string) => string) => ReturnType<typeof lintProject> {
  let text = ORIGINAL;
  const disk = diskReader(dir);
  const files: FileReader = { ...bound(disk), readText: (p, max) => (p === REGISTRY ? text : disk.readText(p, max)) };
  const previous = new VerdictFindings();
  const cache = new LoadCache();
  return (edit = (t) => t) => {
    text = edit(text);
    const { project, findings } = loadProjectFrom(files, join(dir, "failbook.yaml"), { cwd: dir, cache });
    return lintProject(project, findings, { previous }).filter((f) => f.rule === rule);
  };
}

function bound(reader: FileReader): FileReader {
  return {
    kind: (p) => reader.kind(p),
    list: (p) => reader.list(p),
    display: (p) => reader.display(p),
    realpath: (p) => reader.realpath(p),
    repositoryRoot: (p) => reader.repositoryRoot(p),
    readText: (p, max) => reader.readText(p, max),
  };
}
