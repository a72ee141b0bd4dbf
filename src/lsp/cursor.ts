/**
 * Where a position is in a YAML text: the path from the document's root to the node there,
 * whether it is a key or a value, and the scalar under it. Read from the lines above the
 * position by their indentation, as a person reads YAML, so that it works on a buffer that
 * is half typed and does not parse, and costs one pass up the text, whatever the file's size.
 * Block mappings and sequences are followed line by line; a flow collection (`{ a: 1 }`,
 * `[x, y]`) is followed within its line.
 */
import type { PathSegment } from "failbook-runtime/model/finding.js";

export interface Word {
  /** The scalar's text, unquoted. */
  text: string;
  /** Offsets in the text; for a quoted scalar, the quotes included. */
  start: number;
  end: number;
}

export interface Cursor {
  /**
   * The path of the node at the position: for a key, the key's own path (its value's); for
   * a place where a key may be typed (an empty line), the mapping's path and "".
   */
  path: PathSegment[];
  on: "key" | "value";
  /** The scalar under the position, when there is one. */
  word: Word | undefined;
}

/** One line's shape: the sequence markers it opens with, and what follows them. */
interface Line {
  start: number;
  /** The line's text, without its line break. */
  text: string;
  blank: boolean;
  /** `---` or `...`: a document starts or ends here. */
  marker: boolean;
  /** Columns of the `- ` markers at its start, then the column of its content (or undefined when there is none). */
  items: number[];
  content: number | undefined;
  /** The content is `key:` or `key: value`. */
  key?: { text: string; start: number; end: number; value: number | undefined };
}

export function cursorAt(text: string, offset: number): Cursor {
  const line = lineAt(text, offset);
  const column = offset - line.start;
  const first = line.items[0] ?? line.content;
  // On an empty line, or in its indentation: where a key of the enclosing mapping would go.
  if (line.content === undefined || first === undefined || column < first) {
    const at = line.items.filter((c) => c < column).pop();
    const container = at === undefined ? containerOf(text, line, column, "key").path : itemPath(text, line, at);
    return { path: [...container, ""], on: "key", word: undefined };
  }
  const content = line.content;
  // On a sequence marker: the item it opens.
  if (column < content) return { path: itemPath(text, line, line.items.filter((c) => c <= column).pop() ?? first), on: "value", word: undefined };
  // What holds the line's content: the item its last marker opens, else the mapping (or the
  // block scalar) above it.
  const last = line.items[line.items.length - 1];
  const owner = last === undefined ? containerOf(text, line, content, "key").path : itemPath(text, line, last);
  const key = line.key;
  if (!key) {
    // A word alone in a mapping is a key being typed, unless it is a line of a block scalar.
    const typed = last === undefined && !/[{["']/.test(line.text[content]) && !inBlockScalar(text, line, content);
    if (!typed) return inValue(line, content, column, owner);
    const word = scalarAt(line.text, content, false);
    return { path: [...owner, word?.text ?? ""], on: "key", word: word && { text: word.text, start: line.start + word.start, end: line.start + word.end } };
  }
  const path = [...owner, key.text];
  if (column <= key.end) return { path, on: "key", word: { text: key.text, start: line.start + key.start, end: line.start + key.end } };
  if (key.value === undefined) return { path, on: "value", word: undefined };
  return inValue(line, key.value, column, path);
}

/** Is the line a line of a block scalar (`cause: >-` above it)? */
function inBlockScalar(text: string, line: Line, column: number): boolean {
  if (column === 0) return false;
  for (const at of linesAbove(text, line.start, column - 1)) {
    const above = shapeOf(text, at);
    return above.key?.value !== undefined && /^[|>]/.test(above.text.slice(above.key.value));
  }
  return false;
}

/** The node that starts at `from` on a line, at `column`: a scalar, or a flow collection to descend. */
function inValue(line: Line, from: number, column: number, path: PathSegment[]): Cursor {
  const c = line.text[from];
  if (c === "{" || c === "[") return inFlow(line, from, column, path);
  const word = scalarAt(line.text, from, false);
  return { path, on: "value", word: word && { text: word.text, start: line.start + word.start, end: line.start + word.end } };
}

/** Follow a flow collection on its line up to `column`. */
function inFlow(line: Line, from: number, column: number, base: PathSegment[]): Cursor {
  const s = line.text;
  const stack: { map: boolean; key: string | undefined; index: number; afterColon: boolean }[] = [];
  let last: { text: string; start: number; end: number } | undefined;
  let i = from;
  while (i < s.length && i <= column) {
    const ch = s[i];
    if (ch === "{" || ch === "[") {
      stack.push({ map: ch === "{", key: undefined, index: 0, afterColon: false });
      last = undefined;
      i++;
    } else if (ch === "}" || ch === "]") {
      if (i === column) break;
      stack.pop();
      last = undefined;
      if (stack.length === 0) break;
      i++;
    } else if (ch === ",") {
      const top = stack[stack.length - 1];
      if (top) {
        if (top.map) {
          top.key = undefined;
          top.afterColon = false;
        } else top.index++;
      }
      last = undefined;
      i++;
    } else if (ch === ":" && /[\s,{}[\]]|^$/.test(s[i + 1] ?? "")) {
      const top = stack[stack.length - 1];
      if (top?.map && last) {
        top.key = last.text;
        top.afterColon = true;
      }
      last = undefined;
      i++;
    } else if (ch === " " || ch === "\t") i++;
    else if (ch === "#" && /\s/.test(s[i - 1] ?? " ")) break;
    else {
      const word = scalarAt(s, i, true);
      if (!word) break;
      if (column >= word.start && column <= word.end) {
        const top = stack[stack.length - 1];
        const path = [...base, ...pathOf(stack.slice(0, -1))];
        const found = { text: word.text, start: line.start + word.start, end: line.start + word.end };
        if (!top) return { path: base, on: "value", word: found };
        if (!top.map) return { path: [...path, top.index], on: "value", word: found };
        // A key unless a colon came before it in this entry.
        if (!top.afterColon) return { path: [...path, word.text], on: "key", word: found };
        return { path: [...path, top.key ?? ""], on: "value", word: found };
      }
      last = word;
      i = Math.max(word.end, i + 1);
    }
  }
  // Between tokens: a key may be typed in a mapping, an item in a list.
  const top = stack[stack.length - 1];
  const path = [...base, ...pathOf(stack.slice(0, -1))];
  if (!top) return { path: base, on: "value", word: undefined };
  if (!top.map) return { path: [...path, top.index], on: "value", word: undefined };
  return top.afterColon ? { path: [...path, top.key ?? ""], on: "value", word: undefined } : { path: [...path, ""], on: "key", word: undefined };
}

function pathOf(stack: readonly { map: boolean; key: string | undefined; index: number }[]): PathSegment[] {
  return stack.map((f) => (f.map ? (f.key ?? "") : f.index));
}

/**
 * A scalar starting at `from` (after spaces): quoted, or plain up to a comment, the line's
 * end or, inside a flow collection, a flow indicator; a key's text ends at its colon.
 */
export function scalarAt(s: string, from: number, flow: boolean): { text: string; start: number; end: number } | undefined {
  let i = from;
  while (s[i] === " " || s[i] === "\t") i++;
  if (i >= s.length || s[i] === "#") return undefined;
  const q = s[i];
  if (q === '"' || q === "'") {
    let j = i + 1;
    let out = "";
    for (; j < s.length; j++) {
      if (q === "'" && s[j] === "'" && s[j + 1] === "'") {
        out += "'";
        j++;
      } else if (q === '"' && s[j] === "\\") {
        out += s[j + 1] ?? "";
        j++;
      } else if (s[j] === q) break;
      else out += s[j];
    }
    return { text: out, start: i, end: Math.min(j + 1, s.length) };
  }
  let j = i;
  for (; j < s.length; j++) {
    const c = s[j];
    if (c === "#" && (s[j - 1] === " " || s[j - 1] === "\t")) break;
    if (c === ":" && (j + 1 === s.length || /[\s]/.test(s[j + 1]) || (flow && /[,{}[\]]/.test(s[j + 1])))) break;
    if (flow && /[,{}[\]]/.test(c)) break;
  }
  const text = s.slice(i, j).trimEnd();
  return text === "" ? undefined : { text, start: i, end: i + text.length };
}

/** The line holding `offset`, with its shape. */
export function lineAt(text: string, offset: number): Line {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  return shapeOf(text, start);
}

function shapeOf(text: string, start: number): Line {
  let end = text.indexOf("\n", start);
  if (end < 0) end = text.length;
  const s = text.slice(start, end).replace(/\r$/, "");
  const items: number[] = [];
  let i = 0;
  while (s[i] === " ") i++;
  if (i >= s.length || s[i] === "#") return { start, text: s, blank: true, marker: false, items, content: undefined };
  if (i === 0 && /^(---|\.\.\.)(\s|$)/.test(s)) return { start, text: s, blank: false, marker: true, items, content: undefined };
  while (s[i] === "-" && (i + 1 === s.length || s[i + 1] === " ")) {
    items.push(i);
    i++;
    while (s[i] === " ") i++;
  }
  if (i >= s.length || s[i] === "#") return { start, text: s, blank: false, marker: false, items, content: undefined };
  const line: Line = { start, text: s, blank: false, marker: false, items, content: i };
  if (s[i] === "{" || s[i] === "[") return line;
  const word = scalarAt(s, i, false);
  if (word && /^[ \t]*:([ \t]|$)/.test(s.slice(word.end))) {
    const colon = s.indexOf(":", word.end);
    let v = colon + 1;
    while (s[v] === " ") v++;
    line.key = { text: word.text, start: word.start, end: word.end, value: v >= s.length || s[v] === "#" ? undefined : v };
  }
  return line;
}

function indentOf(text: string, start: number): number {
  let i = start;
  while (text.charCodeAt(i) === 32) i++;
  return i - start;
}

const shallow = new Map<number, RegExp>();

/**
 * The starts of the lines above `before` (a line's start) indented at most `column` spaces,
 * blank lines and comments left out, nearest first. Most lines above a position are deeper
 * than the node it is in (the other verdicts of a registry): a regular expression passes
 * over them, in windows that grow until the caller has what it needs.
 */
function* linesAbove(text: string, before: number, column: number): Generator<number> {
  let re = shallow.get(column);
  if (!re) shallow.set(column, (re = new RegExp(`^ {0,${column}}[^ \\r\\n#]`, "gm")));
  let end = before;
  for (let window = 1024; end > 0; window *= 4) {
    const start = text.lastIndexOf("\n", Math.max(0, end - window) - 1) + 1;
    const chunk = text.slice(start, end);
    const found: number[] = [];
    re.lastIndex = 0;
    for (let m = re.exec(chunk); m !== null; m = re.exec(chunk)) found.push(m.index);
    for (let i = found.length - 1; i >= 0; i--) yield start + found[i];
    end = start;
  }
}

/** The path of the item that the marker at `column` of `line` opens. */
function itemPath(text: string, line: Line, column: number): PathSegment[] {
  const { path, count } = containerOf(text, line, column, "item");
  return [...path, count];
}

/**
 * The path of the collection whose entries stand at `column`, one of which (a key, or a
 * sequence item) is on `line`; for items, how many came before it.
 */
function containerOf(text: string, line: Line, column: number, entry: "key" | "item"): { path: PathSegment[]; count: number } {
  // Inside an item opened earlier on the same line (`- key: v`, `- - x`).
  const before = line.items.filter((c) => c < column).pop();
  if (before !== undefined) return { path: itemPath(text, line, before), count: 0 };
  let count = 0;
  for (const at of linesAbove(text, line.start, column)) {
    // The common case, read without taking the line apart: a sibling entry at the same column.
    if (indentOf(text, at) === column) {
      const dash = text.charCodeAt(at + column) === 45 && /[ \r\n]/.test(text[at + column + 1] ?? "\n");
      if (dash && entry === "item") {
        count++;
        continue;
      }
      if (!dash && entry === "key" && !(column === 0 && /^(---|\.\.\.)(\s|$)/.test(text.slice(at, at + 4)))) continue;
    }
    const above = shapeOf(text, at);
    if (above.marker) break;
    if (above.blank) continue;
    const elements = [...above.items, ...(above.content === undefined ? [] : [above.content])];
    const here = elements.indexOf(column);
    if (here >= 0) {
      const isItem = here < above.items.length;
      if (isItem && entry === "item") {
        count++;
        if (here > 0) return { path: itemPath(text, above, above.items[here - 1]), count };
        continue;
      }
      if (!isItem && entry === "key" && above.key) {
        if (here > 0) return { path: itemPath(text, above, above.items[here - 1]), count };
        continue;
      }
      // `key:` with its items at the key's own column.
      if (!isItem && entry === "item" && above.key && above.key.value === undefined) return { path: keyPath(text, above), count };
      continue;
    }
    const deepest = elements[elements.length - 1];
    if (deepest === undefined || deepest > column) continue;
    // A shallower line: its last element holds the entry.
    if (above.content === undefined) return { path: itemPath(text, above, above.items[above.items.length - 1]), count };
    if (above.key) return { path: keyPath(text, above), count };
    break;
  }
  return { path: [], count };
}

/** The path of the value of the key on `line`. */
function keyPath(text: string, line: Line): PathSegment[] {
  const k = line.items.length;
  const owner = k === 0 ? containerOf(text, line, line.content ?? 0, "key").path : itemPath(text, line, line.items[k - 1]);
  return [...owner, line.key?.text ?? ""];
}


/**
 * The extent of the node that starts at `offset` (a finding's position): a quoted or plain
 * scalar, a key, or a flow collection closed on its line; otherwise the rest of the line.
 */
export function nodeExtent(text: string, offset: number): { start: number; end: number } {
  const line = lineAt(text, offset);
  const column = offset - line.start;
  const s = line.text;
  const c = s[column];
  if (c === "{" || c === "[") {
    const close = closingBracket(s, column);
    return { start: offset, end: line.start + (close === undefined ? s.length : close + 1) };
  }
  const flow = /[{[]/.test(s.slice(0, column));
  const word = scalarAt(s, column, flow);
  if (word && word.start === column) return { start: offset, end: line.start + word.end };
  return { start: offset, end: line.start + s.trimEnd().length };
}

/** The offset of the bracket that closes the one at `open`, quotes skipped; undefined when none does. */
export function closingBracket(s: string, open: number): number | undefined {
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) return i;
    }
  }
  return undefined;
}
