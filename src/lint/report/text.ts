/** Compiler-style text: `file:line:column severity message [rule]`, a source excerpt, a count. */
import type { Colors } from "../../util/colors.js";
import type { Finding } from "failbook-runtime/model/finding.js";
import { inert, inertValue } from "failbook-runtime/util/inert.js";
import { clip, plural } from "../../util/text.js";
import { countBySeverity } from "../lint.js";
import { LineIndex } from "../../load/yaml.js";

export interface TextOptions {
  c: Colors;
  /** Source text by file, for excerpts; a finding whose file is missing gets none. */
  sourceText?: (file: string) => string | undefined;
}

export function formatText(findings: Finding[], options: TextOptions): string {
  const { c } = options;
  const lines: string[] = [];
  // Where each line of a file starts is found once, however many findings it has; only the
  // lines shown are cut out (a 6 MB registry is 250,000 lines).
  const sourceLines = new Map<string, LineIndex | undefined>();
  const linesOf = (file: string) => {
    if (!sourceLines.has(file)) {
      const text = options.sourceText?.(file);
      sourceLines.set(file, text === undefined ? undefined : new LineIndex(text));
    }
    return sourceLines.get(file);
  };
  for (const raw of findings) {
    // One line per finding: a message or a file name from input cannot start a line of its own.
    const f = inertValue(raw);
    const sev = f.severity === "error" ? c.red.bold("error") : f.severity === "warning" ? c.yellow.bold("warning") : c.cyan.bold("info");
    lines.push(`${c.bold(`${f.file}:${f.line}:${f.column}`)} ${sev} ${f.message} ${c.dim(`[${f.rule}]`)}`);
    const excerpt = excerptAt(linesOf(raw.file), f.line, f.column, c);
    if (excerpt) lines.push(excerpt);
    for (const r of f.related ?? []) lines.push(`  ${c.dim("note:")} ${r.message} at ${r.file}:${r.line}:${r.column}`);
  }
  lines.push(summaryLine(findings, c));
  return lines.join("\n") + "\n";
}

export function summaryLine(findings: Finding[], c: Colors): string {
  if (findings.length === 0) return c.green("no problems found");
  const { errors, warnings, infos } = countBySeverity(findings);
  const parts = [plural(errors, "error"), plural(warnings, "warning"), `${infos} info`];
  const text = `${plural(findings.length, "problem")} (${parts.join(", ")})`;
  return errors > 0 ? c.red.bold(text) : c.yellow.bold(text);
}

function excerptAt(all: LineIndex | undefined, line: number, column: number, c: Colors): string | undefined {
  if (all === undefined) return undefined;
  const src = all.line(line);
  if (src === undefined) return undefined;
  const gutter = String(line).length;
  // Tabs become one space so the caret lines up; control characters (a binary file, an escaped
  // code) are escaped, and the caret counts their escapes.
  const shown = (part: string) => inert(part.replace(/\t/g, " "));
  // Columns count neither a byte order mark nor the CR of a CRLF line end.
  const body = (line === 1 ? src.replace(/^\uFEFF/, "") : src).replace(/\r$/, "");
  const clipped = shown(clip(body, 160));
  const caret = shown(body.slice(0, Math.max(0, Math.min(column - 1, 160)))).length;
  return [
    `${c.dim(`${" ".repeat(gutter)} |`)}`,
    `${c.dim(`${line} |`)} ${clipped}`,
    `${c.dim(`${" ".repeat(gutter)} |`)} ${" ".repeat(caret)}${c.red("^")}`,
  ].join("\n");
}
