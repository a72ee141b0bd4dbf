/**
 * A fast path for the YAML that failbook projects are written in: block mappings and
 * sequences, one-line flow collections, plain and quoted one-line scalars, comments and `---`
 * separators. It yields exactly what js-yaml yields for such text (the same values, scalars
 * resolved by the same schema's types) and frames of the same shape, in a fraction of the
 * time: most of a large project's load was js-yaml.
 *
 * It declines anything else by returning undefined, and the caller parses the whole file with
 * js-yaml: anchors, aliases and tags, block scalars, multi-line scalars and flow collections,
 * complex and duplicate keys, merge keys, `__proto__`, tabs, carriage returns, directives,
 * empty documents, and every error. So each error message, and the handling of every hostile
 * construct (SPEC 16), stays js-yaml's: this path only ever reads text js-yaml reads cleanly.
 */
import type { Frame, Parsed } from "./yaml.js";

/** What a schema's implicit type offers: js-yaml's `Type`, as far as resolving a plain scalar goes. */
export interface ImplicitType {
  resolve(data: string): boolean;
  construct(data: string): unknown;
}

/**
 * Any character of NON_PRINTABLE, or a tab, a carriage return or a byte order mark: a text
 * without one (almost every file) is told in one quick scan.
 */
const SUSPECT = /[\x00-\x09\x0B-\x1F\x7F-\x9F\uD800-\uDFFF\uFEFF\uFFFE\uFFFF]/;

/** js-yaml refuses a stream holding any of these: such a file is its to report. */
const NON_PRINTABLE = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:[^\uD800-\uDBFF]|^)[\uDC00-\uDFFF]/;

/**
 * Deeper nesting is js-yaml's to read: it bounds nesting itself (and reports where), and
 * this path's recursion must not run out of stack on a document built to be deep.
 */
const MAX_LEVEL = 32;

class Decline extends Error {}
const DECLINE = new Decline();

const SPACE = 32;
const NEWLINE = 10;
const HASH = 35;
const DASH = 45;
const COLON = 58;
const COMMA = 44;

/**
 * The documents of `text` and their frames (recorded `depth` levels deep), or undefined when
 * the text is not of the kind this path reads. `text` has no byte order mark. `resolvable`,
 * when given, holds every character that a plain scalar `types` resolve to anything but a
 * string can start with: the types are not asked about a scalar starting otherwise.
 */
export function parseFast(text: string, depth: number, types: readonly ImplicitType[], resolvable?: string, tape = false): Parsed | undefined {
  if (!fastReadable(text)) return undefined;
  try {
    return new FastParser(text, depth, types, resolvable, tape).stream();
  } catch (e) {
    if (e === DECLINE) return undefined;
    throw e;
  }
}

/** The text holds no character that sends it to js-yaml whole (a tab, a carriage return, a byte order mark, a non-printable one). */
export function fastReadable(text: string): boolean {
  return !(SUSPECT.test(text) && (text.includes("\t") || text.includes("\r") || text.includes("\uFEFF") || NON_PRINTABLE.test(text)));
}

/** A collection of a text parsed again on its own (see nodeParser). */
export interface ParsedNode {
  value: unknown;
  frame: Frame;
}

/**
 * A reader of the collections of `text`, each parsed again on its own with every node
 * recorded: given where a parse of the whole text by this path recorded a collection (a
 * block collection's first token, a flow collection's bracket), its value (equal to the one
 * that parse gave there) and its frame; undefined when it is no collection this path reads
 * alone. A deep path of a large file is located this way, by parsing the node around it
 * again, instead of recording every node of the file up front.
 */
export function nodeParser(text: string, types: readonly ImplicitType[], resolvable?: string): (start: number) => ParsedNode | undefined {
  const parser = new FastParser(text, Infinity, types, resolvable, false);
  return (start) => {
    try {
      return parser.node(start);
    } catch (e) {
      if (e === DECLINE) return undefined;
      throw e;
    }
  };
}

/** Items of a block sequence parsed again from one of its dashes (see parseItems). */
export interface ParsedItems {
  values: unknown[];
  /** Their frames, recorded as a parse of the whole text records them. */
  frames: Frame[];
  /** Where the parse stopped: the first token after the last item (the text's length at its end). */
  end: number;
  /** The indentation there (-1 at the text's end). */
  indent: number;
  /** True when the sequence ends at `end`; false when `end` is an item's dash that `stop` accepted. */
  ended: boolean;
}

/**
 * The items of the block sequence of column `indent`, `level` levels deep, from its dash at
 * `dash` on: parsed as a parse of the whole of `text` parses them there (the same values and
 * frames, `depth` levels recorded), until the sequence ends or the next item's dash is at an
 * offset `stop` accepts. Undefined when this path would decline the text from there. The
 * caller vouches that a parse of the whole text reaches `dash` at the start of an item (and,
 * for a stop or an end, that what follows is parsed as before): an editor's edit to one item
 * of a long list is parsed so (yaml.ts, editedYaml).
 */
export function parseItems(text: string, dash: number, indent: number, level: number, depth: number, types: readonly ImplicitType[], resolvable: string | undefined, stop: (dash: number) => boolean): ParsedItems | undefined {
  const parser = new FastParser(text, depth, types, resolvable, false);
  try {
    return parser.itemsFrom(dash, indent, level, stop);
  } catch (e) {
    if (e === DECLINE) return undefined;
    throw e;
  }
}

/** An array index as a property name: JavaScript orders such keys first, whatever the text's order. */
const INDEX_KEY = /^(?:0|[1-9][0-9]*)$/;

/** The index of the item a path segment names in a sequence (the one String(index) names), else -1. */
export function sequenceIndex(segment: string | number): number {
  if (typeof segment === "number") return Number.isInteger(segment) && segment >= 0 ? segment : -1;
  return INDEX_KEY.test(segment) ? Number(segment) : -1;
}

/**
 * Where `path[from..]` leads below a truncated frame of a parse by this path, read from its
 * tape and the values it parsed (frame.result), without reading the text again or making a
 * frame: the start of the node the path names (of its key, for target "key" in a mapping),
 * complete when the path exists, else the start of the deepest node it reaches, as a parse
 * recording every node locates it. A node the path passes by is skipped by its count of nodes
 * on the tape. Undefined when the values cannot give the text's order (the path goes through
 * a mapping with a key such as "12", which JavaScript lists first): the node is then parsed
 * again (nodeParser).
 */
export function locateOnTape(
  tape: Int32Array,
  frame: Frame,
  path: readonly (string | number)[],
  from: number,
  target: "value" | "key",
  entries: TapeEntries | null = null,
): { offset: number; complete: boolean } | undefined {
  let at = frame.tape;
  if (at < 0) return undefined;
  let node = frame.result;
  let start = frame.start;
  for (let i = from; i < path.length; i++) {
    if (node === null || typeof node !== "object") return { offset: start, complete: false };
    let keyStart = -1;
    // The frame's own entries may have been indexed (tapeEntries): the first step goes straight to its entry.
    const index0 = i === from ? entries : null;
    if (Array.isArray(node)) {
      const index = sequenceIndex(path[i] as string | number);
      if (index < 0 || index >= node.length) return { offset: start, complete: false };
      if (index0?.items) at = index0.items[index] as number;
      else for (let k = 0; k < index; k++) at += 1 + nodesBelow(node[k]);
      if (at >= tape.length) return undefined;
      start = tape[at++] as number;
      node = node[index];
    } else {
      const record = node as Record<string, unknown>;
      const segment = String(path[i]);
      if (!Object.hasOwn(record, segment)) return { offset: start, complete: false };
      const indexed = index0?.keys?.get(segment);
      if (indexed !== undefined) at = indexed;
      else {
        let found = false;
        for (const key of Object.keys(record)) {
          if (isIndexKey(key)) return undefined;
          if (found) continue;
          if (key === segment) found = true;
          else at += 2 + nodesBelow(record[key]);
        }
      }
      if (at + 1 >= tape.length) return undefined;
      keyStart = tape[at] as number;
      start = tape[at + 1] as number;
      at += 2;
      node = record[segment];
    }
    if (i === path.length - 1 && target === "key" && keyStart >= 0) return { offset: keyStart, complete: true };
  }
  return { offset: start, complete: true };
}

const isIndexKey = (key: string): boolean => {
  const c = key.charCodeAt(0);
  return c >= 48 && c <= 57 && INDEX_KEY.test(key);
};

/** Where each entry of a collection begins on the tape: an item's start, or a key's (its value's follows). */
export interface TapeEntries {
  items: Int32Array | null;
  keys: Map<string, number> | null;
}

/**
 * The entries of a truncated frame's collection on the tape (see locateOnTape), made in one
 * pass, so that a path into a large collection (a registry's 10,000 verdicts, a playbook's
 * actions) is not read past every entry before its own. Null for a scalar, or a mapping with
 * a key such as "12".
 */
export function tapeEntries(frame: Frame): TapeEntries | null {
  let at = frame.tape;
  const node = frame.result;
  if (at < 0 || node === null || typeof node !== "object") return null;
  if (Array.isArray(node)) {
    const items = new Int32Array(node.length);
    for (let k = 0; k < node.length; k++) {
      items[k] = at;
      at += 1 + nodesBelow(node[k]);
    }
    return { items, keys: null };
  }
  const keys = new Map<string, number>();
  for (const key of Object.keys(node)) {
    if (isIndexKey(key)) return null;
    keys.set(key, at);
    at += 2 + nodesBelow((node as Record<string, unknown>)[key]);
  }
  return { items: null, keys };
}

/** How many starts the nodes below `value` take on a tape: an item's one, a key's and its value's two, and theirs. */
function nodesBelow(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  let n = 0;
  if (Array.isArray(value)) for (let i = 0; i < value.length; i++) n += 1 + nodesBelow(value[i]);
  else for (const key in value) n += 2 + nodesBelow((value as Record<string, unknown>)[key]);
  return n;
}

/** Stands for the mapping of a flow sequence, which has none (never written). */
const EMPTY: Record<string, unknown> = Object.freeze({});

class FastParser {
  private pos = 0;
  /**
   * Below the recorded levels, where each node starts, in the order a complete parse makes
   * their frames: a key's, then its value's, then the nodes inside that value (locateOnTape).
   * Null unless asked for, or when every node is recorded.
   */
  private tape: Int32Array | null;
  private taped = 0;
  /** Start of the current line, and its indentation (-1: past the end). */
  private lineStart = 0;
  private indent = 0;

  /** By character code below 128: may a plain scalar starting with it resolve to other than a string? */
  private readonly mayResolve = new Uint8Array(128);

  /**
   * The items of the sequences being read, the innermost's last (`itemCount` of them): each
   * list is cut out at its length when it closes. A list grown by push keeps room for 16
   * items, and most lists of a project hold one to three: 10,000 verdicts' match and
   * examples lists and 10,000 fixtures' responses made megabytes of empty room that lived as
   * long as the parse.
   */
  private readonly items: unknown[] = [];
  private itemCount = 0;

  /** The list of the items read since `from` (see items). */
  private listFrom(from: number): unknown[] {
    const list = this.items.slice(from, this.itemCount);
    this.itemCount = from;
    return list;
  }

  constructor(
    private readonly text: string,
    private readonly depth: number,
    private readonly types: readonly ImplicitType[],
    resolvable: string | undefined,
    tape: boolean,
  ) {
    if (resolvable === undefined) this.mayResolve.fill(1);
    else for (let i = 0; i < resolvable.length; i++) this.mayResolve[resolvable.charCodeAt(i) & 127] = 1;
    // Project YAML takes 9-15 bytes a start (fixtures the fewest): room for one every 8 bytes
    // rarely grows, and the pages of room never written are never touched.
    this.tape = tape && depth !== Infinity ? new Int32Array(64 + (text.length >> 3)) : null;
  }

  stream(): Parsed {
    const values: unknown[] = [];
    const roots: Frame[] = [];
    this.skipBlankLines();
    // A stream of one document may open with `---`; each further `---` opens the next.
    if (this.atSeparator()) {
      this.nextLine();
      this.skipBlankLines();
    }
    for (;;) {
      // pos at the document's first token (skipBlankLines is only ever called at a line's end).
      if (this.indent !== 0 || this.atSeparator()) throw DECLINE; // an empty document, or one that does not start at column 1
      const frame = this.frame(0, this.pos);
      const value = this.blockNode(0, frame);
      values.push(value);
      if (frame) roots.push(this.close(frame, "", value));
      // Every block ends on the next line holding something.
      if (this.indent < 0) break;
      if (!this.atSeparator()) throw DECLINE;
      this.nextLine();
      this.skipBlankLines();
    }
    return { values, roots, depth: this.depth, fast: true, ...(this.tape ? { tape: this.tape.subarray(0, this.taped) } : {}) };
  }

  /** The collection at `start` (see nodeParser); undefined for a scalar, which has no nodes below it. */
  node(start: number): ParsedNode | undefined {
    const t = this.text;
    this.pos = start;
    this.lineStart = t.lastIndexOf("\n", start - 1) + 1;
    // A node's column is its indentation: an item's mapping ("- key: v") stands at its key.
    this.indent = start - this.lineStart;
    const frame = this.frame(0, start) as Frame;
    // An earlier node may have been declined half read.
    this.itemCount = 0;
    const c = t.charCodeAt(start);
    let value: unknown;
    if (c === 91 /* [ */ || c === 123 /* { */) value = this.flow(0, frame);
    else if (c === DASH && this.isSpaceOrEnd(start + 1)) value = this.blockSequence(this.indent, 0, frame);
    else {
      const key = this.keyAt();
      if (key === null) return undefined;
      value = this.blockMapping(this.indent, 0, frame, start, key);
    }
    return { value, frame: this.close(frame, "", value) };
  }

  /** See parseItems. */
  itemsFrom(dash: number, indent: number, level: number, stop: (dash: number) => boolean): ParsedItems {
    const t = this.text;
    this.pos = dash;
    this.lineStart = t.lastIndexOf("\n", dash - 1) + 1;
    this.indent = dash - this.lineStart;
    if (this.indent !== indent || t.charCodeAt(dash) !== DASH || !this.isSpaceOrEnd(dash + 1)) throw DECLINE;
    this.itemStop = stop;
    this.itemLevel = level;
    const frame: Frame = { start: dash, kind: null, result: undefined, children: null, truncated: false, slots: null, tape: -1 };
    const values = this.blockSequence(indent, level, frame);
    const ended = !this.stopped;
    return { values, frames: frame.children ?? [], end: this.pos, indent: this.indent, ended };
  }

  /** parseItems: the sequence at this level stops before an item whose dash `itemStop` accepts. */
  private itemStop: ((dash: number) => boolean) | undefined;
  private itemLevel = -1;
  private stopped = false;

  // ---- lines -------------------------------------------------------------------------

  /**
   * From a line's start or end, move to the next line that holds something other than a
   * comment: pos at its first token, `indent` its column (-1 at the end of the text).
   */
  private skipBlankLines(): void {
    const t = this.text;
    for (;;) {
      if (this.pos >= t.length) {
        this.indent = -1;
        this.lineStart = this.pos = t.length;
        return;
      }
      this.lineStart = this.pos;
      let i = this.pos;
      while (t.charCodeAt(i) === SPACE) i++;
      const c = t.charCodeAt(i);
      if (c === NEWLINE || i >= t.length || c === HASH) {
        const end = t.indexOf("\n", i);
        this.pos = end < 0 ? t.length : end + 1;
        continue;
      }
      this.indent = i - this.lineStart;
      this.pos = i;
      return;
    }
  }

  private nextLine(): void {
    const end = this.text.indexOf("\n", this.pos);
    this.pos = end < 0 ? this.text.length : end + 1;
  }

  /** A line that is `---` (with nothing after it but a comment) separates documents; `...` and directives are declined. */
  private atSeparator(): boolean {
    const t = this.text;
    if (this.indent !== 0) return false;
    const p = this.pos;
    if (t.charCodeAt(p) === 37 /* % */) throw DECLINE;
    const three = t.slice(p, p + 3);
    if (three !== "---" && three !== "...") return false;
    const after = t.charCodeAt(p + 3);
    if (!(p + 3 >= t.length || after === NEWLINE || after === SPACE)) throw DECLINE; // "---x": js-yaml's to read
    if (three === "...") throw DECLINE;
    this.pos = p + 3;
    this.restOfLine();
    this.pos = p;
    return true;
  }

  /** Only spaces and a comment may follow: else decline. Leaves pos at the line's end. */
  private restOfLine(): void {
    const t = this.text;
    let i = this.pos;
    while (t.charCodeAt(i) === SPACE) i++;
    if (i < t.length && t.charCodeAt(i) !== NEWLINE) {
      if (t.charCodeAt(i) !== HASH || i === this.pos) throw DECLINE;
      const end = t.indexOf("\n", i);
      i = end < 0 ? t.length : end;
    }
    this.pos = i;
  }

  // ---- frames ------------------------------------------------------------------------

  /** A frame for a node `level` levels deep (0: a document), or null when nodes so deep are not recorded (their start goes on the tape). */
  private frame(level: number, start: number): Frame | null {
    if (level >= this.depth) {
      const tape = this.tape;
      if (tape !== null) {
        if (this.taped === tape.length) this.growTape();
        (this.tape as Int32Array)[this.taped++] = start;
      }
      return null;
    }
    const truncated = level + 1 === this.depth;
    return { start, kind: null, result: undefined, children: null, truncated, slots: null, tape: truncated ? this.taped : -1 };
  }

  private growTape(): void {
    const tape = new Int32Array((this.tape as Int32Array).length * 2);
    tape.set(this.tape as Int32Array);
    this.tape = tape;
  }

  /** The node whose frame was made last starts at `start` after all (a value, once the space before it is passed). */
  private startAt(frame: Frame | null, start: number): void {
    if (frame) frame.start = start;
    else if (this.tape !== null) this.tape[this.taped - 1] = start;
  }

  private close(frame: Frame, kind: string, value: unknown): Frame {
    frame.kind = kind === "" ? (Array.isArray(value) ? "sequence" : value !== null && typeof value === "object" ? "mapping" : "scalar") : kind;
    frame.result = value;
    return frame;
  }

  private child(parent: Frame | null, frame: Frame | null): void {
    if (parent && frame && !parent.truncated) (parent.children ??= []).push(frame);
  }

  // ---- block nodes -------------------------------------------------------------------

  /** The block node at pos (a line's first token, at `indent`). */
  private blockNode(level: number, frame: Frame | null): unknown {
    const t = this.text;
    const c = t.charCodeAt(this.pos);
    if (c === DASH && this.isSpaceOrEnd(this.pos + 1)) return this.blockSequence(this.indent, level, frame);
    const keyStart = this.pos;
    const key = this.keyAt();
    if (key !== null) return this.blockMapping(this.indent, level, frame, keyStart, key);
    throw DECLINE; // a document or value that is a lone scalar on its own lines
  }

  private isSpaceOrEnd(i: number): boolean {
    const c = this.text.charCodeAt(i);
    return i >= this.text.length || c === SPACE || c === NEWLINE;
  }

  /**
   * The key at pos when the line starts with `key:` (a plain or quoted key, then a colon and
   * a space or the line's end), pos after the colon; else null, pos where it was.
   */
  private keyAt(): string | null {
    const save = this.pos;
    const key = this.scanKey();
    if (key === null) this.pos = save;
    return key;
  }

  /** A key and its colon; pos after the colon. */
  private key(): string {
    const key = this.scanKey();
    if (key === null) throw DECLINE;
    return key;
  }

  /** A key and its colon, pos after the colon; null (pos anywhere) when the line does not start with one. */
  private scanKey(): string | null {
    const t = this.text;
    const c = t.charCodeAt(this.pos);
    let key: string;
    if (c === 39 /* ' */ || c === 34 /* " */) {
      // A quoted key is rare: its scan may decline the whole file.
      key = this.quoted();
    } else {
      const start = this.pos;
      if (!this.plainStart(start, false)) return null;
      let i = start;
      let hash = 0;
      // A plain key ends at ": " or ":" at the line's end; it holds no " #".
      for (;;) {
        const d = t.charCodeAt(i);
        if (i >= t.length || d === NEWLINE) return null;
        if (d === COLON && this.isSpaceOrEnd(i + 1)) break;
        if (d === HASH && t.charCodeAt(i - 1) === SPACE) return null;
        hash = (Math.imul(hash, 31) + d) | 0;
        i++;
      }
      let end = i;
      while (t.charCodeAt(end - 1) === SPACE) end--;
      key = this.plainKey(start, end, hash);
      this.pos = i;
    }
    if (t.charCodeAt(this.pos) !== COLON || !this.isSpaceOrEnd(this.pos + 1)) return null;
    this.pos++;
    if (key === "__proto__" || key === "<<") throw DECLINE;
    return key;
  }

  /**
   * Keys repeat (every verdict has a `code:`): the last key seen under each hash of its
   * text is kept, and a key that equals it is that very string, neither sliced from the text
   * again nor looked up among the interned strings when it becomes a property.
   */
  private readonly recentKeys: string[] = new Array<string>(1024).fill("");

  private plainKey(start: number, end: number, hash: number): string {
    const slot = (hash ^ (hash >>> 10)) & 1023;
    const known = this.recentKeys[slot] as string;
    if (known.length === end - start && known.length > 0 && this.text.startsWith(known, start)) return known;
    const key = this.text.slice(start, end);
    // A key that resolves to anything but itself (null, true, 12) is js-yaml's to stringify.
    if (this.resolvesToOther(key)) throw DECLINE;
    this.recentKeys[slot] = key;
    return key;
  }

  /** Keys repeat (every verdict has a `code:`): each is resolved once. */
  private readonly keyResolves = new Map<string, boolean>();

  private resolvesToOther(plain: string): boolean {
    const first = plain.charCodeAt(0);
    if (first < 128 && this.mayResolve[first] === 0) return false;
    let known = this.keyResolves.get(plain);
    if (known === undefined) {
      known = this.types.some((type) => type.resolve(plain));
      this.keyResolves.set(plain, known);
    }
    return known;
  }

  /** A block mapping whose first key the caller has read (it starts at `keyStart`; pos is after its colon). */
  private blockMapping(indent: number, level: number, frame: Frame | null, firstKeyStart: number, firstKey: string): Record<string, unknown> {
    if (level > MAX_LEVEL) throw DECLINE;
    const t = this.text;
    const map: Record<string, unknown> = {};
    let keyStart = firstKeyStart;
    let key = firstKey;
    for (;;) {
      if (Object.prototype.hasOwnProperty.call(map, key)) throw DECLINE; // js-yaml reports the duplicate
      const keyFrame = this.frame(level + 1, keyStart);
      if (keyFrame) this.close(keyFrame, "scalar", key);
      // The value: on this line, or the block below; js-yaml opens it where the colon ends.
      const valueFrame = this.frame(level + 1, this.pos);
      const onThisLine = this.valueOnThisLine();
      this.startAt(valueFrame, this.pos);
      let value: unknown;
      if (onThisLine) {
        value = this.inlineValue(level + 1, valueFrame, indent);
        this.skipBlankLines();
      } else if (this.indent > indent || (this.indent === indent && t.charCodeAt(this.pos) === DASH && this.isSpaceOrEnd(this.pos + 1))) {
        // A nested block, deeper; or a sequence at the key's own column ("key:\n- a").
        value = this.blockNode(level + 1, valueFrame);
      } else throw DECLINE; // an empty value: where js-yaml places it is its own
      map[key] = value;
      if (valueFrame) this.close(valueFrame, "", value);
      this.child(frame, keyFrame);
      this.child(frame, valueFrame);
      if (this.indent < indent || this.atDocumentEdge()) break;
      if (this.indent > indent) throw DECLINE; // a continuation line (a multi-line scalar) or bad indentation
      if (t.charCodeAt(this.pos) === DASH && this.isSpaceOrEnd(this.pos + 1)) break; // a sequence after a key's compact one
      keyStart = this.pos;
      key = this.key();
    }
    if (frame) this.close(frame, "mapping", map);
    return map;
  }

  /**
   * After a key's colon or an item's dash: true, pos at the value, when one follows on this
   * line; false, pos at the next line's first token, when the line ends there (or in a comment).
   */
  private valueOnThisLine(): boolean {
    const t = this.text;
    let i = this.pos;
    while (t.charCodeAt(i) === SPACE) i++;
    if (i >= t.length || t.charCodeAt(i) === NEWLINE || (t.charCodeAt(i) === HASH && i > this.pos)) {
      this.pos = i;
      this.restOfLine();
      this.skipBlankLines();
      return false;
    }
    if (i === this.pos) throw DECLINE;
    this.pos = i;
    return true;
  }

  /** At the end of the text, or at a `---` line (which ends every block). */
  private atDocumentEdge(): boolean {
    if (this.indent !== 0) return this.indent < 0;
    const three = this.text.slice(this.pos, this.pos + 3);
    if (three !== "---" && three !== "...") return false;
    if (three === "..." || !this.isSpaceOrEnd(this.pos + 3)) throw DECLINE;
    return true;
  }

  private blockSequence(indent: number, level: number, frame: Frame | null): unknown[] {
    if (level > MAX_LEVEL) throw DECLINE;
    const t = this.text;
    const from = this.itemCount;
    for (;;) {
      // pos at the dash
      this.pos++;
      const itemFrame = this.frame(level + 1, this.pos);
      const onThisLine = this.valueOnThisLine();
      this.startAt(itemFrame, this.pos);
      let value: unknown;
      if (!onThisLine) {
        if (this.indent <= indent || this.atDocumentEdge()) throw DECLINE; // an empty item
        value = this.blockNode(level + 1, itemFrame);
      } else if (t.charCodeAt(this.pos) === DASH && this.isSpaceOrEnd(this.pos + 1)) {
        throw DECLINE; // "- - a"
      } else {
        const keyStart = this.pos;
        const key = this.keyAt();
        if (key !== null) {
          // "- key: value": a mapping whose column is the key's.
          this.indent = keyStart - this.lineStart;
          value = this.blockMapping(this.indent, level + 1, itemFrame, keyStart, key);
        } else {
          value = this.inlineValue(level + 1, itemFrame, indent);
          this.skipBlankLines();
        }
      }
      this.items[this.itemCount++] = value;
      if (itemFrame) this.close(itemFrame, "", value);
      this.child(frame, itemFrame);
      if (this.indent < indent || this.atDocumentEdge()) break;
      if (this.indent > indent) throw DECLINE;
      if (!(t.charCodeAt(this.pos) === DASH && this.isSpaceOrEnd(this.pos + 1))) break; // the mapping this sequence is a value in goes on
      if (level === this.itemLevel && this.itemStop?.(this.pos) === true) {
        this.stopped = true;
        break;
      }
    }
    const list = this.listFrom(from);
    if (frame) this.close(frame, "sequence", list);
    return list;
  }

  /**
   * A value that starts on the current line after a key or a dash: a flow collection, a
   * quoted or a plain scalar, all ending on this line (followed at most by a comment).
   */
  private inlineValue(level: number, frame: Frame | null, parentIndent: number): unknown {
    const t = this.text;
    const c = t.charCodeAt(this.pos);
    let value: unknown;
    if (c === 91 /* [ */ || c === 123 /* { */) value = this.flow(level, frame);
    else if (c === 39 || c === 34) {
      value = this.quoted();
      if (frame) this.close(frame, "scalar", value);
    } else {
      value = this.plainInline(parentIndent);
      if (frame) this.close(frame, "scalar", value);
    }
    this.restOfLine();
    return value;
  }

  /** Can a plain scalar start at i? In flow context, also not at a flow indicator. */
  private plainStart(i: number, inFlow: boolean): boolean {
    const c = this.text.charCodeAt(i);
    if (i >= this.text.length || c === SPACE || c === NEWLINE) return false;
    // Indicators: - ? : , [ ] { } # & * ! | > ' " % @ `
    if (c === DASH) {
      const d = this.text.charCodeAt(i + 1);
      return !(i + 1 >= this.text.length || d === SPACE || d === NEWLINE || (inFlow && (d === COMMA || d === 93 || d === 125 || d === 91 || d === 123)));
    }
    return !"?:,[]{}#&*!|>'\"%@`".includes(this.text[i] as string);
  }

  /** A plain scalar to the line's end (or a comment), resolved by the schema. */
  private plainInline(parentIndent: number): unknown {
    const t = this.text;
    const start = this.pos;
    if (!this.plainStart(start, false)) throw DECLINE;
    let i = start;
    for (; i < t.length; i++) {
      const d = t.charCodeAt(i);
      if (d === NEWLINE) break;
      if (d === COLON && this.isSpaceOrEnd(i + 1)) throw DECLINE; // "a: b: c"
      if (d === HASH && t.charCodeAt(i - 1) === SPACE) break;
    }
    let end = i;
    while (t.charCodeAt(end - 1) === SPACE) end--;
    this.pos = end;
    // A following line indented past the parent would continue this scalar: js-yaml folds those.
    const save = this.pos;
    this.restOfLine();
    this.skipBlankLines();
    const continues = this.indent > parentIndent && !this.atDocumentEdge();
    this.pos = save;
    if (continues) throw DECLINE;
    return this.plainScalar(start, end);
  }

  /** The plain scalar text[start, end), resolved by the schema (a string that cannot resolve is read through recentValue). */
  private plainScalar(start: number, end: number): unknown {
    const first = this.text.charCodeAt(start);
    if (first < 128 && this.mayResolve[first] === 0) return this.recentValue(start, end);
    const plain = this.text.slice(start, end);
    for (const type of this.types) if (type.resolve(plain)) return type.construct(plain);
    return plain;
  }

  /**
   * Values repeat as keys do (a class, a side effect, a tool, a message): the last string read
   * under each short digest of its text is kept, and a value equal to it is that very string.
   * 10,000 verdicts and 10,000 fixtures held 200,000 strings of their own, a third of the
   * parse's objects, each copied twice by the young generation.
   */
  private readonly recentValues: string[] = new Array<string>(1024).fill("");

  private recentValue(start: number, end: number): string {
    const t = this.text;
    const length = end - start;
    if (length === 0) return "";
    const slot = (length * 31 + t.charCodeAt(start) * 17 + t.charCodeAt(end - 1) * 7 + t.charCodeAt(start + (length >> 1))) & 1023;
    const known = this.recentValues[slot] as string;
    if (known.length === length && t.startsWith(known, start)) return known;
    const value = t.slice(start, end);
    this.recentValues[slot] = value;
    return value;
  }

  /** A quoted scalar on one line; pos after its closing quote. */
  private quoted(): string {
    const t = this.text;
    const q = t.charCodeAt(this.pos);
    let i = this.pos + 1;
    let out = "";
    let from = i;
    for (;;) {
      if (i >= t.length) throw DECLINE;
      const c = t.charCodeAt(i);
      if (c === NEWLINE) throw DECLINE; // a multi-line quoted scalar folds: js-yaml's
      if (q === 39) {
        if (c === 39) {
          if (t.charCodeAt(i + 1) === 39) {
            out += t.slice(from, i + 1);
            i += 2;
            from = i;
            continue;
          }
          out = from === this.pos + 1 ? this.recentValue(from, i) : out + t.slice(from, i);
          break;
        }
      } else if (c === 34) {
        out = from === this.pos + 1 ? this.recentValue(from, i) : out + t.slice(from, i);
        break;
      } else if (c === 92 /* \ */) {
        out += t.slice(from, i);
        const e = t[i + 1];
        const simple = e === undefined ? undefined : ESCAPES[e];
        if (simple !== undefined) {
          out += simple;
          i += 2;
        } else if (e === "u" && /^[0-9a-fA-F]{4}$/.test(t.slice(i + 2, i + 6))) {
          out += String.fromCharCode(parseInt(t.slice(i + 2, i + 6), 16));
          i += 6;
        } else throw DECLINE;
        from = i;
        continue;
      }
      i++;
    }
    this.pos = i + 1;
    return out;
  }

  // ---- flow collections --------------------------------------------------------------

  /** A flow collection that closes on this line. */
  private flow(level: number, frame: Frame | null): unknown {
    if (level > MAX_LEVEL) throw DECLINE;
    const t = this.text;
    const open = t.charCodeAt(this.pos);
    const close = open === 91 ? 93 : 125;
    this.pos++;
    const from = this.itemCount;
    const map: Record<string, unknown> = open === 91 ? EMPTY : {};
    let first = true;
    for (;;) {
      this.flowSpace();
      if (t.charCodeAt(this.pos) === close) {
        this.pos++;
        break;
      }
      if (!first) {
        if (t.charCodeAt(this.pos) !== COMMA) throw DECLINE;
        this.pos++;
        this.flowSpace();
        if (t.charCodeAt(this.pos) === close) throw DECLINE; // a trailing comma
      }
      first = false;
      if (open === 91) {
        const itemFrame = this.frame(level + 1, this.pos);
        const item = this.flowValue(level + 1, itemFrame);
        this.flowSpace();
        if (t.charCodeAt(this.pos) === COLON) throw DECLINE; // [a: b], a single-pair mapping
        this.items[this.itemCount++] = item;
        if (itemFrame) this.close(itemFrame, "", item);
        this.child(frame, itemFrame);
      } else {
        const keyStart = this.pos;
        const key = this.flowKey();
        if (Object.prototype.hasOwnProperty.call(map, key)) throw DECLINE;
        const keyFrame = this.frame(level + 1, keyStart);
        if (keyFrame) this.close(keyFrame, "scalar", key);
        const valueFrame = this.frame(level + 1, this.pos);
        this.flowSpace();
        this.startAt(valueFrame, this.pos);
        const item = this.flowValue(level + 1, valueFrame);
        map[key] = item;
        if (valueFrame) this.close(valueFrame, "", item);
        this.child(frame, keyFrame);
        this.child(frame, valueFrame);
      }
    }
    const value = open === 91 ? this.listFrom(from) : map;
    if (frame) this.close(frame, open === 91 ? "sequence" : "mapping", value);
    return value;
  }

  private flowSpace(): void {
    const t = this.text;
    while (t.charCodeAt(this.pos) === SPACE) this.pos++;
    const c = t.charCodeAt(this.pos);
    if (this.pos >= t.length || c === NEWLINE || c === HASH) throw DECLINE; // a flow collection over several lines
  }

  /** `key:` in a flow mapping (the colon followed by a space); pos after the colon. */
  private flowKey(): string {
    const t = this.text;
    let key: string;
    if (t.charCodeAt(this.pos) === 39 || t.charCodeAt(this.pos) === 34) key = this.quoted();
    else {
      // Through the key cache, as block keys go: a repeated key is the same string.
      const start = this.flowPlainScan();
      key = this.plainKey(start, this.pos, this.scanHash);
    }
    if (t.charCodeAt(this.pos) !== COLON || t.charCodeAt(this.pos + 1) !== SPACE) throw DECLINE;
    this.pos++;
    if (key === "__proto__" || key === "<<") throw DECLINE;
    return key;
  }

  private flowValue(level: number, frame: Frame | null): unknown {
    const t = this.text;
    const c = t.charCodeAt(this.pos);
    if (c === 91 || c === 123) return this.flow(level, frame);
    let value: unknown;
    if (c === 39 || c === 34) value = this.quoted();
    else {
      const start = this.flowPlainScan();
      value = this.plainScalar(start, this.pos);
    }
    if (frame) this.close(frame, "scalar", value);
    return value;
  }

  /** The hash of the last plain scalar flowPlainScan passed over (for the key cache). */
  private scanHash = 0;

  /** Pass over a plain scalar in flow context (up to `, ] }` or a colon before one of them or a space, trimmed): its start; pos at its trimmed end. */
  private flowPlainScan(): number {
    const t = this.text;
    const start = this.pos;
    if (!this.plainStart(start, true)) throw DECLINE;
    let i = start;
    let hash = 0;
    for (; i < t.length; i++) {
      const d = t.charCodeAt(i);
      if (d === NEWLINE || d === COMMA || d === 93 || d === 125 || d === 91 || d === 123) break;
      if (d === COLON) {
        const e = t.charCodeAt(i + 1);
        if (e === SPACE || e === COMMA || e === 93 || e === 125) break;
        // "host:443" goes on, as in js-yaml; a colon before a line's end or a bracket is js-yaml's to read.
        if (e === NEWLINE || e === 91 || e === 123 || i + 1 >= t.length) throw DECLINE;
      }
      if (d === HASH && t.charCodeAt(i - 1) === SPACE) throw DECLINE;
      hash = (Math.imul(hash, 31) + d) | 0;
    }
    let end = i;
    while (t.charCodeAt(end - 1) === SPACE) end--;
    this.pos = end;
    this.scanHash = hash;
    return start;
  }
}

/** The one-character escapes of a double-quoted scalar this path reads (others: js-yaml's). */
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", "0": "\0" };
