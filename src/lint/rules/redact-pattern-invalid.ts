import { REDACTED } from "failbook-runtime/engine/redact.js";
import { compileRedactPattern } from "../../load/pattern.js";
import type { PathSegment } from "failbook-runtime/model/finding.js";
import type { Verdict } from "failbook-runtime/model/registry.js";
import type { LintRule } from "../rule.js";

/** Short texts on which a pattern that can match nothing at all shows it (`x*`, `\b`, `(?=a)`, `$`). */
const PROBES = ["", " ", "a", "Z", "0", "_", "-", ".", ":", "/", "\n", "a b"];

/**
 * SPEC 16: redaction runs on values from outside, never on the project's own vocabulary. A
 * `redact:` pattern that matches a code or a kind would hide it from every output (and make
 * outputs disagree with what classification decides); one that matches the empty string
 * would wedge [REDACTED] between the characters of everything. A finding names the pattern
 * by its place, never by its text: a pattern matches its own text as often as not, so its
 * text would print as [REDACTED] (and a literal secret listed there must not print at all).
 */
export const redactPatternInvalid: LintRule = {
  id: "redact-pattern-invalid",
  severity: "error",
  verdictFields: ["code", "match"],
  description: "A redact: pattern in the config that matches the empty string, or a code or kind of the registry.",
  check({ project, registry, report }) {
    const patterns = project.config.redact ?? [];
    if (patterns.length === 0) return;
    const words = vocabulary(registry.value.verdicts);
    for (const [i, source] of patterns.entries()) {
      const re = compileRedactPattern(source);
      if (!re) continue; // the loader reported it as not a regular expression
      const at = { doc: project.configDoc, path: ["redact", i] };
      if (matchesEmpty(re)) {
        report({ ...at, message: `redact pattern ${i + 1} matches the empty string: it would put ${REDACTED} between the characters of every output; make it match at least one character` });
        continue;
      }
      const hit = words.find((w) => w.text.search(re) >= 0);
      if (!hit) continue;
      const where = registry.doc.locate(hit.path);
      report({
        ...at,
        message: `redact pattern ${i + 1} matches ${hit.what} '${hit.text}' (${where.file}:${where.line}:${where.column}): redaction must never hide the project's own codes and kinds; narrow the pattern to the secret's shape`,
        related: [{ message: `the ${hit.what} it matches`, position: where }],
      });
    }
  },
  example: `# failbook.yaml
redact:
  - 'x*'                       # matches the empty string
  - 'card_\\w+'                # matches the registry's code card_declined`,
  fix: "Make the pattern match at least one character, and narrow it to the secret's shape so that it never matches a code or kind of the registry.",
};

interface Word {
  what: "code" | "kind";
  text: string;
  path: PathSegment[];
}

/** Every code and every `kind` a match rule names, where it stands. */
function vocabulary(verdicts: readonly Verdict[]): Word[] {
  const out: Word[] = [];
  for (const [vi, v] of verdicts.entries()) {
    out.push({ what: "code", text: v.code, path: ["verdicts", vi, "code"] });
    for (const [ri, rule] of (v.match ?? []).entries()) {
      if (typeof rule.kind === "string") out.push({ what: "kind", text: rule.kind, path: ["verdicts", vi, "match", ri, "kind"] });
      else for (const [ki, kind] of (rule.kind ?? []).entries()) out.push({ what: "kind", text: kind, path: ["verdicts", vi, "match", ri, "kind", ki] });
    }
  }
  return out;
}

function matchesEmpty(re: RegExp): boolean {
  return PROBES.some((probe) => [...probe.matchAll(re)].some((m) => m[0] === ""));
}
