/**
 * Where the user's mistake is, for the two YAML errors a parser reports late: a line indented
 * wrongly is often noticed on the line after it ("bad indentation" at the next key), and a
 * flow collection left open (`[1000, 3000`) only where the next line fails to continue it
 * ("missed comma", "end of the stream within a flow collection").
 *
 * The finder repairs one line at a time, near where the parser stopped, the way a person
 * would (indent it as its neighbours are, close its bracket), and parses the text again: the
 * line whose repair makes the text parse is the one to point at. It decides nothing itself;
 * the parser does. When no single repair helps (two mistakes, something else), the parser's
 * own position stands.
 */

import { plural } from "../util/text.js";

/** Where a text's first YAML error is (1-based line), or undefined when it parses. */
export type FirstErrorLine = (text: string) => number | undefined;

export interface Mistake {
  message: string;
  line: number;
  column: number;
}

/** How many lines before the parser's position a repair is tried. */
const LOOK_BACK = 20;
/** A repair counts when the text parses, or its first error moves at least this many lines further on (a second, unrelated mistake). */
const MOVED_ON = 5;
/** Give up past this many bytes parsed again (a huge file): the parser's position stands. */
const BUDGET_BYTES = 32 * 1024 * 1024;

const FLOW_REASONS = /missed comma between flow collection entries|within a flow collection|end of the stream or a document separator is expected/;
const INDENT_REASONS = /bad indentation of a (mapping|sequence) entry|end of the stream or a document separator is expected/;

export function findMistake(text: string, reason: string, line: number, firstErrorLine: FirstErrorLine): Mistake | undefined {
  const lines = text.split("\n");
  let budget = BUDGET_BYTES;
  const repaired = (index: number, replacement: string): boolean => {
    budget -= text.length;
    if (budget < 0) return false;
    const next = [...lines.slice(0, index), replacement, ...lines.slice(index + 1)].join("\n");
    const at = firstErrorLine(next);
    return at === undefined || at >= line + MOVED_ON;
  };
  if (FLOW_REASONS.test(reason)) {
    const open = unclosedFlow(lines, line, repaired);
    if (open) return open;
  }
  if (INDENT_REASONS.test(reason)) return misindented(lines, line, repaired);
  return undefined;
}

/** The line before the error that opens a flow collection and whose closing bracket, added at its end, makes the text parse. */
function unclosedFlow(lines: string[], line: number, repaired: (index: number, replacement: string) => boolean): Mistake | undefined {
  // The parser stops on the line after the one left open (or at the end of the text).
  for (let i = Math.min(line - 1, lines.length) - 1; i >= Math.max(0, line - 1 - LOOK_BACK); i--) {
    const { content, comment, open: opened } = scan(lines[i]!);
    if (opened.length === 0) continue;
    const closers = opened.map((o) => (o.bracket === "[" ? "]" : "}")).reverse().join("");
    if (!repaired(i, content.trimEnd() + closers + comment)) continue;
    const first = opened[0]!;
    const what = first.bracket === "[" ? "a flow list '['" : "a flow mapping '{'";
    return { message: `${what} opened here is never closed; add the closing '${first.bracket === "[" ? "]" : "}"}' at the end of the line`, line: i + 1, column: first.column };
  }
  return undefined;
}

/**
 * The line whose indentation, changed to one its neighbours use, makes the text parse: the
 * parser's own line first (most often it is right), then the lines before it, nearest first,
 * back to the nearest one less indented (a first list item indented one space too far is
 * accepted, and the line after it is the one that no longer fits).
 */
function misindented(lines: string[], line: number, repaired: (index: number, replacement: string) => boolean): Mistake | undefined {
  const at = line - 1;
  if (at >= lines.length || !isContent(lines[at]!)) return undefined;
  const window: number[] = [at];
  for (let i = at - 1; i >= Math.max(0, at - LOOK_BACK); i--) {
    if (!isContent(lines[i]!)) continue;
    window.push(i);
    if (indentOf(lines[i]!) < indentOf(lines[at]!)) break;
  }
  // A key left empty by the line after it ("classes:" then "transient:" at the same
  // indentation) is a block that lost its first line: indenting that line fixes the rest.
  for (const i of window) {
    const parent = preceding(lines, i, 1)[0];
    if (parent === undefined || !/:$/.test(scan(lines[parent]!).content.trimEnd())) continue;
    const own = indentOf(lines[i]!);
    const under = indentOf(lines[parent]!);
    if (own > under || (own === under && lines[i]!.trimStart().startsWith("- "))) continue;
    if (!repaired(i, " ".repeat(under + 2) + lines[i]!.trimStart())) continue;
    const key = scan(lines[parent]!).content.trim();
    return { message: `bad indentation: this line is indented ${plural(own, "space")}, which leaves '${key}' above it empty; indent it to ${under + 2}`, line: i + 1, column: own + 1 };
  }
  // The indentations in use around it (and one step in from each): what a line here may take.
  const near = [...preceding(lines, at, LOOK_BACK), at, ...following(lines, at, 3)];
  const indents = [...new Set(near.flatMap((i) => [indentOf(lines[i]!), indentOf(lines[i]!) + 2]))];
  for (const i of window) {
    const own = indentOf(lines[i]!);
    // The nearest indentation first: a line one space off is the usual slip.
    for (const indent of indents.sort((a, b) => Math.abs(a - own) - Math.abs(b - own) || a - b)) {
      if (indent === own || !repaired(i, " ".repeat(indent) + lines[i]!.trimStart())) continue;
      return { message: `bad indentation: this line is indented ${plural(own, "space")} where its block takes ${indent}; indent it to ${indent}`, line: i + 1, column: own + 1 };
    }
  }
  return undefined;
}

const isContent = (line: string): boolean => line.trim() !== "" && !line.trimStart().startsWith("#");
const indentOf = (line: string): number => /^ */.exec(line)![0].length;

function preceding(lines: string[], at: number, count: number): number[] {
  const out: number[] = [];
  for (let i = at - 1; i >= 0 && out.length < count; i--) if (isContent(lines[i]!)) out.push(i);
  return out;
}

function following(lines: string[], at: number, count: number): number[] {
  const out: number[] = [];
  for (let i = at + 1; i < lines.length && out.length < count; i++) if (isContent(lines[i]!)) out.push(i);
  return out;
}

/** A quote at `i` opens a quoted scalar only where a node starts: an apostrophe inside a plain scalar (it's) does not. */
const startsNode = (line: string, i: number): boolean => i === 0 || " [{,:-?".includes(line[i - 1]!);

interface ScannedLine {
  content: string;
  /** The trailing comment (a `#` after a space, outside quotes), with a space before it; or "". */
  comment: string;
  /** The brackets the content opens and does not close (outside quotes), with their 1-based columns. */
  open: { bracket: "[" | "{"; column: number }[];
}

function scan(line: string): ScannedLine {
  const open: ScannedLine["open"] = [];
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if ((ch === '"' || ch === "'") && startsNode(line, i)) quote = ch;
    else if (ch === "#" && (i === 0 || line[i - 1] === " ")) return { content: line.slice(0, i), comment: ` ${line.slice(i)}`, open };
    else if (ch === "[" || ch === "{") open.push({ bracket: ch, column: i + 1 });
    else if ((ch === "]" || ch === "}") && open.length > 0) open.pop();
  }
  return { content: line, comment: "", open };
}
