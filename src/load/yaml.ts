/**
 * Text -> located YAML documents.
 *
 * js-yaml parses fast; its `listener` reports where every node opens and closes, which is
 * all we need to point a finding at `file:line:column`. We keep only raw offsets per
 * container (indexed by the parsed object's identity) and turn an offset into a line and
 * column only when a finding asks for it, so a clean run pays almost nothing for positions.
 *
 * Recording every node of a large file costs a third of its parse and holds a frame per
 * node in memory, while most runs locate nothing or only top-level keys (simulate names
 * each fixture's `name`). So the first parse records the nodes of the top levels only, and
 * of the nodes below them just where each starts, in one typed array (the fast path's tape);
 * a path that leads deeper is read from that record without making a frame (or the node it
 * enters is parsed again, or the whole file is). A file with an anchor is recorded whole from the start: an alias shares
 * the node of its anchor, and which frame indexes a shared node is decided in one walk.
 */
import jsyaml from "js-yaml";
import type { PathSegment, Position } from "failbook-runtime/model/finding.js";
import { fastReadable, locateOnTape, nodeParser, parseFast, parseItems, sequenceIndex, tapeEntries, type ImplicitType, type ParsedNode, type TapeEntries } from "./fast-yaml.js";
import { firstAbove } from "../util/sorted.js";
import { editedSpan } from "../util/text.js";
import { findMistake } from "./yaml-mistake.js";

export interface YamlError {
  message: string;
  line: number;
  column: number;
}

export interface YamlDocument {
  readonly file: string;
  /** 0-based index of the document in its stream (`---` separated). */
  readonly index: number;
  readonly value: unknown;
  /** Position of the value (or key) at `path`, or of its nearest existing ancestor. */
  locate(path: readonly PathSegment[], target?: "value" | "key"): Position;
  /** True when `path` resolves to a node of this document. */
  has(path: readonly PathSegment[]): boolean;
  /** The path in the file of a path into `value`, when `value` leaves entries of the file out (load/partial.ts). */
  inFile?(path: readonly PathSegment[]): readonly PathSegment[];
}

export interface YamlSource {
  readonly file: string;
  readonly text: string;
  readonly documents: YamlDocument[];
  /** A syntax error, a duplicate key or an alias bomb: the source holds no usable document. */
  readonly error?: YamlError;
  /** Position of a 0-based character offset. */
  position(offset: number): Position;
}

export interface Frame {
  start: number;
  kind: string | null;
  result: unknown;
  /** Created on the first child: most nodes are scalars and have none. */
  children: Frame[] | null;
  /** Its children were not recorded (a shallow parse): a path through it needs the complete parse. */
  truncated: boolean;
  /** A collection's keys (indexes) and where they stand, made on the first path through it. */
  slots: Map<string, Slot> | null;
  /** A truncated frame of the fast path's: where the starts of the nodes below it begin on the parse's tape (else -1). */
  tape: number;
}

/**
 * A shallow parse records nodes this deep by default: the document, its keys and values,
 * theirs (a registry's verdicts, each given its frames when a path goes into it).
 */
const SHALLOW_DEPTH = 3;

const NO_CHILDREN: Frame[] = [];
const childrenOf = (f: Frame): Frame[] => f.children ?? NO_CHILDREN;

interface Slot {
  key?: number;
  value: number;
  /** The value's frame, as recorded (before unwrapping a probe). */
  frame: Frame;
}

interface NodeIndex {
  start: number;
  slots: Map<string, Slot>;
}

/** A document may expand to at most this many nodes once aliases are followed. */
const MAX_EXPANDED_NODES = 5_000_000;

// Core schema (YAML 1.2: `off`, `yes` stay strings, no timestamps) plus merge keys.
const SCHEMA = jsyaml.CORE_SCHEMA.extend([(jsyaml as unknown as { types: { merge: jsyaml.Type } }).types.merge]);
/** The schema's implicit types, in the order js-yaml tries them on a plain scalar. */
const IMPLICIT_TYPES = (SCHEMA as unknown as { compiledImplicit: ImplicitType[] }).compiledImplicit;
/**
 * The characters a plain scalar these types resolve to anything but a string starts with:
 * `~`, n and N (null), t, T, f and F (booleans), digits, `-`, `+` and `.` (numbers, `.inf`,
 * `.nan`; the merge type gives `<<` back as the string it is). Any other plain scalar is a
 * string, and the fast path does not ask the types about it (test/load-fast-yaml.test.ts
 * holds this against js-yaml).
 */
export const RESOLVABLE_FIRST = "~nNtTfF0123456789-+.";

export interface ParseOptions {
  /**
   * Record every node's position while parsing. Positions are the same either way: without
   * it the top levels are recorded, and a node below them is parsed again on its own when a
   * path first goes through it (the fast path's files), or the whole text is (js-yaml's).
   */
  recordAll?: boolean;
  /**
   * How many levels a shallow parse records (default 3). A stream of many small documents
   * (fixtures) needs fewer: a path below them parses the node it goes through again.
   */
  depth?: number;
  /** Parse with js-yaml alone, never the fast path (fast-yaml.ts): the tests compare the two. */
  jsYamlOnly?: boolean;
  /**
   * Keep where each node below the recorded levels starts (the fast path's tape, one typed
   * array): a path into them is then located without parsing again. For a parse many of whose
   * findings lie deep (lint); one that locates little is faster without.
   */
  tape?: boolean;
}

export function parseYaml(file: string, source: string, options: ParseOptions = {}): YamlSource {
  // js-yaml drops a byte order mark before it counts offsets: count positions without it too,
  // so that the first key of a file with a BOM is at column 1, as editors show it.
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  const lines = new LineIndex(text);
  const position = (offset: number): Position => lines.position(file, offset);
  if (text.includes("\u0000")) {
    const at = text.indexOf("\u0000");
    return { file, text: source, documents: [], position, error: { message: "the file is binary, not YAML text", ...lines.lineColumn(at) } };
  }
  // Without an anchor (`&`) there can be no alias: the top levels may be recorded alone.
  const anchored = text.includes("&");
  let parsed: Parsed;
  try {
    parsed = parseRecorded(text, file, anchored || options.recordAll === true ? Infinity : Math.max(1, options.depth ?? SHALLOW_DEPTH), options.jsYamlOnly !== true, options.tape === true);
  } catch (e) {
    return { file, text: source, documents: [], position, error: syntaxError(e, text, lines) };
  }
  const { values, roots } = parsed;
  // Without an anchor there can be no alias, so no expansion to bound.
  for (const [i, value] of anchored ? values.entries() : []) {
    const bomb = expansionProblem(value);
    if (bomb) return { file, text: source, documents: [], position, error: { message: bomb, ...lines.lineColumn(roots[i]?.start ?? 0) } };
  }
  const trees: Trees = { first: parsed, anchored, complete: parsed.depth === Infinity ? parsed : undefined, objects: undefined, nodes: new Map(), nodeParser: undefined, text, file, lines, entries: new Map(), movedNodes: new Map() };
  return sourceOf(file, source, trees);
}

function sourceOf(file: string, source: string, trees: Trees): YamlSource {
  const documents: YamlDocument[] = trees.first.values.map((value, i) => new LocatedDocument(file, i, value, trees));
  const made: YamlSource = { file, text: source, documents, position: (offset) => trees.lines.position(file, offset) };
  parses.set(made, trees);
  return made;
}

/** How each source of parseYaml was parsed, for a parse of its next text (editedYaml). */
const parses = new WeakMap<YamlSource, Trees>();

/** A source parsed again after an edit inside one stretch of a long list (see editedYaml). */
export interface EditedSource {
  source: YamlSource;
  /** The key of the document's list the edit was in. */
  key: string;
  /** Its items parsed again (their indexes now): the others are the items of the last parse, moved. */
  from: number;
  to: number;
}

/**
 * `source`, an edit of the text of `previous` (a parse of parseYaml's), parsed as parseYaml
 * parses it, reading again only the items of a list the edit touched: when the edit lies
 * inside the items of a block list at the top of a one-document file (the registry's
 * verdicts), those items are parsed again from the dash of the first, until the first item
 * after the edit whose text is as before; every other node is the last parse's, moved by
 * the length the edit added. Undefined when this cannot be shown to give what a parse of the
 * whole text gives (the edit reaches outside the list or the dash of its first item, the
 * text is not of the fast path's kind, the last parse recorded every node or kept a tape, an
 * anchor, a byte order mark): then the caller parses the whole text.
 *
 * Why the result is the whole parse's: the fast path reads forward, and at an item's dash its
 * state is the position, the column and the level. The text before the first item's dash
 * (and the dash and the character after it, which are all that the items before look ahead
 * to) is unchanged, so a whole parse reaches that dash as the last one did; from a dash (or
 * the list's end) after the edit with the same column, the text ahead is the same as the
 * last parse read from there, so what follows is what it parsed, moved.
 */
export function editedYaml(previous: YamlSource, source: string): EditedSource | undefined {
  const was = parses.get(previous);
  if (!was || previous.error || previous.documents.length !== 1) return undefined;
  const first = was.first;
  if (was.anchored || first.fast !== true || first.tape || first.depth < 3 || first.depth === Infinity || first.roots.length !== 1) return undefined;
  const a = was.text;
  const b = source;
  if (a !== previous.text || b.charCodeAt(0) === 0xfeff || a === b) return undefined;
  const { start: prefix, oldEnd, newEnd } = editedSpan(a, b);
  const delta = b.length - a.length;
  // What the edit brought in must be of the fast path's kind, and hold no anchor or NUL (the rest held none).
  const added = b.slice(Math.max(0, prefix - 1), newEnd + 1);
  if (added.includes("&") || added.includes("\u0000") || !fastReadable(added)) return undefined;

  // The top-level list whose items the edit is among.
  const root = first.roots[0];
  const rootValue = first.values[0];
  if (root.kind !== "mapping" || rootValue === null || typeof rootValue !== "object" || Array.isArray(rootValue)) return undefined;
  const pairs = mappingPairs(root);
  let pair = -1;
  while (pair + 1 < pairs.length && pairs[pair + 1][1].start <= prefix) pair++;
  if (pair < 0) return undefined;
  const [keyFrame, list] = pairs[pair];
  if (list.kind !== "sequence" || list.truncated || list.children === null || list.children.length === 0) return undefined;
  const items = list.children;
  const key = String(keyFrame.result);
  /** The column of an offset of the last text. */
  const columnOf = (offset: number): number => offset - (a.lastIndexOf("\n", offset - 1) + 1);
  const column = columnOf(list.start);
  /** The dash of item i of the last parse (its value starts after it, on the same line); -1 when not so. */
  const dashOf = (i: number): number => {
    let d = items[i].start - 1;
    while (a.charCodeAt(d) === 32) d--;
    return a.charCodeAt(d) === 45 && columnOf(d) === column ? d : -1;
  };
  const itemStart = (i: number): number => items[i].start;
  // The first item parsed again: the last whose dash and the character after it precede the edit.
  let from = Math.max(0, firstAbove(items.length, itemStart, prefix) - 1);
  while (from >= 0 && !(dashOf(from) >= 0 && dashOf(from) + 2 <= prefix)) from--;
  if (from < 0) return undefined;
  // Where the list ended in the last parse, and the column there (the next key's, or the text's end).
  const next = pairs[pair + 1]?.[0];
  const listEnd = next ? next.start : a.length;
  if (listEnd < oldEnd) return undefined;
  const endColumn = next ? columnOf(next.start) : -1;
  let stopAt = -1;
  const parsed = parseItems(b, dashOf(from), column, 1, first.depth, IMPLICIT_TYPES, RESOLVABLE_FIRST, (dash) => {
    if (dash < newEnd) return false;
    // An item of the last parse starts there (its value after the dash): the rest of the list is its, moved.
    const l = firstAbove(items.length, itemStart, dash - delta, from + 1);
    if (l >= items.length || dashOf(l) !== dash - delta) return false;
    stopAt = l;
    return true;
  });
  if (!parsed) return undefined;
  if (parsed.ended ? !(parsed.end >= newEnd && parsed.end - delta === listEnd && parsed.indent === endColumn) : parsed.indent !== column || stopAt < 0) return undefined;
  const resume = parsed.ended ? items.length : stopAt;

  const shift = (f: Frame): Frame => movedFrame(f, delta);
  const values = first.values[0] as Record<string, unknown>;
  const oldItems = values[key] as unknown[];
  const newItems = [...oldItems.slice(0, from), ...parsed.values, ...oldItems.slice(resume)];
  const moved = items.slice(resume).map(shift);
  const newList: Frame = { ...list, result: newItems, slots: null, children: [...items.slice(0, from), ...parsed.frames, ...moved] };
  // The items the last parse read again on their own (a path went into them: a finding's
  // position) are the same text here: their nodes are kept, those after the edit to be moved
  // by the edit's length when a path first goes into them, so that locating the findings of
  // 10,000 verdicts after an edit parses none of them again.
  const nodes = new Map<Frame, ParsedNode | null>();
  const movedNodes = new Map<Frame, MovedNode>();
  const carry = (old: Frame, now: Frame, by: number) => {
    const known = was.nodes.get(old);
    const pending = was.movedNodes.get(old);
    if (known === null) nodes.set(now, null);
    else if (known !== undefined) by === 0 ? nodes.set(now, known) : movedNodes.set(now, { node: known, by });
    else if (pending !== undefined) movedNodes.set(now, { node: pending.node, by: pending.by + by });
  };
  for (let i = 0; i < from; i++) carry(items[i], items[i], 0);
  for (let j = 0; j < moved.length; j++) carry(items[resume + j], moved[j], delta);
  const value: Record<string, unknown> = {};
  for (const k of Object.keys(values)) value[k] = k === key ? newItems : values[k];
  const children = root.children ?? [];
  const listAt = children.indexOf(list);
  const newRoot: Frame = { ...root, result: value, slots: null, children: children.map((c, i) => (i < listAt ? c : i === listAt ? newList : shift(c))) };
  const parsedNow: Parsed = { values: [value], roots: [newRoot], depth: first.depth, fast: true };
  const lines = was.lines.edited(b, prefix, oldEnd, newEnd);
  const trees: Trees = { first: parsedNow, anchored: false, complete: undefined, objects: undefined, nodes, nodeParser: undefined, text: b, file: was.file, lines, entries: new Map(), movedNodes };
  return { source: sourceOf(previous.file, b, trees), key, from, to: from + parsed.values.length };
}

export interface Parsed {
  values: unknown[];
  roots: Frame[];
  /** How deep nodes were recorded (Infinity: every node). */
  depth: number;
  /** Made by the fast path (fast-yaml.ts), whose frames a node's own parse can continue. */
  fast?: boolean;
  /** The fast path's record of where the nodes below the recorded levels start (locateOnTape). */
  tape?: Int32Array;
}

/** A source's recorded parses, and the index of its nodes by identity, each made when first needed. */
interface Trees {
  first: Parsed;
  anchored: boolean;
  /** The first parse when it recorded every node, else a second parse made on the first deep path. */
  complete: Parsed | undefined;
  objects: WeakMap<object, NodeIndex> | undefined;
  /** Nodes whose children were not recorded, each parsed again on its own when a path first goes through it. */
  nodes: Map<Frame, ParsedNode | null>;
  /** Nodes of the last text's parse (editedYaml) at the same text, moved: `nodes` once a path goes into them. */
  movedNodes: Map<Frame, MovedNode>;
  nodeParser: ((start: number) => ParsedNode | undefined) | undefined;
  text: string;
  file: string;
  lines: LineIndex;
  /** The tape's entries of the large collections a path went into (see entriesOf). */
  entries: Map<Frame, TapeEntries | null>;
}

/** A node parsed again on its own in an earlier text, whose text is the same `by` characters later. */
interface MovedNode {
  node: ParsedNode;
  by: number;
}

/** A frame and every frame below it, `by` characters later. */
function movedFrame(f: Frame, by: number): Frame {
  // The properties in the order every parse makes a frame's (not spread): one shape of frame for the code that walks them.
  return { start: f.start + by, kind: f.kind, result: f.result, children: f.children && f.children.map((c) => movedFrame(c, by)), truncated: f.truncated, slots: null, tape: f.tape };
}

/** A parse with its nodes' frames, down to `depth` levels (Infinity: every node). Throws js-yaml's errors. */
function parseRecorded(text: string, file: string, depth: number, fast = true, tape = false): Parsed {
  // Most project files are of the plain kind the fast path reads; it declines everything else.
  const quick = fast ? parseFast(text, depth, IMPLICIT_TYPES, RESOLVABLE_FIRST, tape) : undefined;
  if (quick) return quick;
  const roots: Frame[] = [];
  const stack: Frame[] = [];
  const values: unknown[] = [];
  // How deep the parser is: deeper than `depth`, nodes open and close without a frame.
  let level = 0;
  jsyaml.loadAll(text, (doc) => values.push(doc), {
    filename: file,
    schema: SCHEMA,
    listener(event, state) {
      if (event === "open") {
        if (level++ < depth) stack.push({ start: state.position, kind: null, result: undefined, children: null, truncated: level === depth, slots: null, tape: -1 });
        return;
      }
      if (--level >= depth) return;
      const frame = stack.pop();
      if (!frame) return;
      frame.kind = state.kind;
      frame.result = state.result;
      if (stack.length === 0) roots.push(frame);
      else (stack[stack.length - 1].children ??= []).push(frame);
    },
  });
  return { values, roots, depth };
}

const rootStart = (roots: Frame[], values: unknown[], i: number): number => (roots.length === values.length ? roots[i].start : 0);

function syntaxError(e: unknown, text: string, lines: LineIndex): YamlError {
  if (e instanceof jsyaml.YAMLException) {
    const mark = e.mark as { line?: number; column?: number; position?: number } | undefined;
    const line = (mark?.line ?? 0) + 1;
    const column = (mark?.column ?? 0) + 1;
    let reason = e.reason || "invalid YAML";
    if (reason === "duplicated mapping key") {
      const key = lines.textAt(text, line, column).match(/^\s*(["']?)([^:"'\n]+)\1\s*:/);
      reason = key ? `duplicate key '${key[2].trim()}': each key may appear once in a mapping` : "duplicate key: each key may appear once in a mapping";
    } else if (/non-printable/.test(reason)) {
      reason = "the file holds non-printable characters; is it binary?";
    } else {
      // js-yaml notices an unclosed quote only at the end of the file: point at where it opened.
      const quote = /within a (single|double) quoted scalar/.exec(reason);
      const opened = quote ? unclosedQuote(text, quote[1] === "single" ? "'" : '"') : -1;
      if (opened >= 0) return { message: `a ${quote![1]}-quoted string opened here is never closed; add the closing ${quote![1] === "single" ? "'" : '"'}`, ...lines.lineColumn(opened) };
    }
    // Bad indentation and an unclosed bracket are noticed a line late: point at the mistake.
    return findMistake(text, reason, line, firstErrorLine) ?? { message: reason, line, column };
  }
  return { message: String(e), line: 1, column: 1 };
}

/** The line of a text's first YAML error, by js-yaml (which every error of the fast path is too), or undefined when it parses. */
function firstErrorLine(text: string): number | undefined {
  try {
    jsyaml.loadAll(text, () => undefined, { schema: SCHEMA });
    return undefined;
  } catch (e) {
    return e instanceof jsyaml.YAMLException ? ((e.mark as { line?: number } | undefined)?.line ?? 0) + 1 : 1;
  }
}

/**
 * The offset of the quote that opens a string running to the end of `text`. Inside it no
 * quote closes: a double-quoted string has none unescaped after its opener, a single-quoted
 * one only doubled ones (''), so the opener ends the last odd run of quotes.
 */
function unclosedQuote(text: string, q: "'" | '"'): number {
  for (let i = text.length - 1; i >= 0; i--) {
    if (text[i] !== q) continue;
    if (q === '"') {
      let backslashes = 0;
      while (text[i - 1 - backslashes] === "\\") backslashes++;
      if (backslashes % 2 === 0) return i;
      continue;
    }
    let start = i;
    while (text[start - 1] === q) start--;
    if ((i - start + 1) % 2 === 1) return start;
    i = start;
  }
  return -1;
}

/** Follow aliases once per node; a cycle or a huge expansion is an alias bomb. */
function expansionProblem(value: unknown): string | undefined {
  const sizes = new Map<object, number>();
  const visiting = new Set<object>();
  let problem: string | undefined;
  const size = (v: unknown): number => {
    if (problem || v === null || typeof v !== "object") return 1;
    const known = sizes.get(v);
    if (known !== undefined) return known;
    if (visiting.has(v)) {
      problem = "a YAML alias refers to the node that contains it (recursive alias)";
      return 1;
    }
    visiting.add(v);
    let total = 1;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      total += size(child);
      if (total > MAX_EXPANDED_NODES) {
        problem = `the document expands to more than ${MAX_EXPANDED_NODES.toLocaleString("en-US")} nodes through aliases (an alias bomb?)`;
        break;
      }
    }
    visiting.delete(v);
    sizes.set(v, total);
    return total;
  };
  size(value);
  return problem;
}

/** The keys of a mapping, or the indexes of a sequence, to where each stands. */
function slotsOf(frame: Frame): Map<string, Slot> {
  if (frame.slots) return frame.slots;
  const slots = new Map<string, Slot>();
  frame.slots = slots;
  const children = childrenOf(frame);
  if (frame.kind === "sequence") {
    children.forEach((child, i) => slots.set(String(i), { value: child.start, frame: child }));
    return slots;
  }
  for (const [key, value] of mappingPairs(frame)) {
    if (!slots.has(String(key.result))) slots.set(String(key.result), { key: key.start, value: value.start, frame: value });
  }
  return slots;
}

/**
 * A mapping's key and value frames, in order. Children alternate key, value; js-yaml may add
 * an empty probe frame where a key was looked for and none came, so anything that cannot be
 * a key of this mapping is skipped.
 */
function mappingPairs(frame: Frame): [key: Frame, value: Frame][] {
  const record = frame.result as Record<string, unknown>;
  const children = childrenOf(frame);
  const pairs: [Frame, Frame][] = [];
  for (let i = 0; i < children.length; i++) {
    const key = children[i];
    const isKey = key.kind === "scalar" && key.result !== null && typeof key.result !== "object" && Object.hasOwn(record, String(key.result));
    if (!isKey || i + 1 >= children.length) continue;
    pairs.push([key, children[i + 1]]);
    i++;
  }
  return pairs;
}

/** A block-context probe may wrap the real (flow) collection in a frame of its own. */
function unwrap(outer: Frame): Frame {
  let frame = outer;
  while (frame.children?.length === 1 && frame.children[0].result === frame.result) frame = frame.children[0];
  return frame;
}

/**
 * Every collection by identity, at the first frame that holds it: an alias shares the node
 * of its anchor, and a path through the alias resolves in the anchor's text.
 */
function indexFrame(outer: Frame, index: WeakMap<object, NodeIndex>): void {
  const frame = unwrap(outer);
  const value = frame.result;
  if (value === null || typeof value !== "object" || index.has(value)) return;
  if (frame.kind !== "mapping" && frame.kind !== "sequence") return;
  const slots = slotsOf(frame);
  index.set(value, { start: outer.start, slots });
  if (frame.kind === "sequence") {
    for (const child of childrenOf(frame)) indexFrame(child, index);
    return;
  }
  for (const [, child] of mappingPairs(frame)) indexFrame(child, index);
}

interface Resolved {
  offset: number;
  complete: boolean;
}

/**
 * A document of a source. Its methods are its class's: a stream of 10,000 fixtures made three
 * closures and their context for each, 2.7 MB that lived as long as the project.
 */
class LocatedDocument implements YamlDocument {
  constructor(
    readonly file: string,
    readonly index: number,
    readonly value: unknown,
    private readonly trees: Trees,
  ) {}

  locate(path: readonly PathSegment[], target: "value" | "key" = "value"): Position {
    return this.trees.lines.position(this.file, skipTrivia(this.trees.text, this.resolve(path, target).offset));
  }

  has(path: readonly PathSegment[]): boolean {
    return this.resolve(path, "value").complete;
  }

  private resolve(path: readonly PathSegment[], target: "value" | "key"): Resolved {
    const { trees, index: docIndex } = this;
    // Without aliases a path follows the frames, building only the slots it passes through.
    if (!trees.anchored) {
      const found = walkFrames(trees.first, docIndex, this.value, path, target, trees);
      if (found) return found;
    }
    // Parsed once already, in part: parse again, recording every node. Its values equal the first's.
    const complete = (trees.complete ??= parseRecorded(trees.text, trees.file, Infinity));
    const again = complete.values[docIndex];
    if (!trees.anchored && complete !== trees.first) {
      const found = walkFrames(complete, docIndex, again, path, target);
      if (found) return found;
    }
    if (!trees.objects) {
      trees.objects = new WeakMap();
      for (const root of complete.roots) indexFrame(root, trees.objects);
    }
    return resolveByIdentity(trees.objects, again, rootStart(complete.roots, complete.values, docIndex), path, target);
  }
}

/**
 * Where `path` leads, following the frames of `parsed` beside the values; undefined when the
 * frames cannot say (not recorded so deep, or not the frames of these values). Given `trees`,
 * a node of the fast path's parse whose children were not recorded is parsed again on its
 * own, and the walk goes on in that parse.
 */
function walkFrames(parsed: Parsed, docIndex: number, value: unknown, path: readonly PathSegment[], target: "value" | "key", trees?: Trees): Resolved | undefined {
  if (parsed.roots.length !== parsed.values.length) return undefined;
  let outer = parsed.roots[docIndex];
  let offset = outer.start;
  let node = value;
  for (let i = 0; i < path.length; i++) {
    if (node === null || typeof node !== "object") return { offset, complete: false };
    if (outer.truncated && outer.result === node && parsed.fast === true && trees !== undefined) {
      // The rest of the path read from the tape, when the parse kept one; else the node is parsed again.
      const onTape = parsed.tape && locateOnTape(parsed.tape, outer, path, i, target, entriesOf(trees, outer));
      if (onTape) return onTape;
      const again = nodeOf(trees, outer);
      if (again === null) return undefined;
      outer = again.frame;
      node = again.value;
    }
    const frame = unwrap(outer);
    if (frame.truncated || frame.result !== node || (frame.kind !== "mapping" && frame.kind !== "sequence")) return undefined;
    // A sequence's item is its child by index (a registry's 10,000 verdicts need no map of slots).
    const slot = frame.kind === "sequence" ? undefined : slotsOf(frame).get(String(path[i]));
    const child = frame.kind === "sequence" ? frame.children?.[sequenceIndex(path[i])] : slot?.frame;
    if (!child) return { offset: outer.start, complete: false };
    offset = i === path.length - 1 && target === "key" && slot?.key !== undefined ? slot.key : child.start;
    node = (node as Record<string, unknown>)[String(path[i])];
    outer = child;
  }
  return { offset, complete: true };
}

/** A collection this large has its entries on the tape indexed on the first path into it; a smaller one is read past entry by entry. */
export const INDEXED_ENTRIES = 32;

/** The entries of a large collection of a truncated frame on the tape, indexed once (tapeEntries); null for a small one. */
function entriesOf(trees: Trees, frame: Frame): TapeEntries | null {
  const known = trees.entries.get(frame);
  if (known !== undefined) return known;
  const node = frame.result;
  let size = 0;
  if (Array.isArray(node)) size = node.length;
  else if (node !== null && typeof node === "object") for (const _ in node) if (++size >= INDEXED_ENTRIES) break;
  if (size < INDEXED_ENTRIES) return null;
  const entries = tapeEntries(frame);
  trees.entries.set(frame, entries);
  return entries;
}

let nodesParsedAgain = 0;

/** How many nodes have been parsed again on their own so far (see nodeOf): what an edit's positions cost, for the tests. */
export const nodesParsed = (): number => nodesParsedAgain;

/**
 * The node of `frame` parsed again on its own (once), with every node below it recorded; null
 * when the fast path cannot read it so.
 */
function nodeOf(trees: Trees, frame: Frame): ParsedNode | null {
  let known = trees.nodes.get(frame);
  const moved = known === undefined ? trees.movedNodes.get(frame) : undefined;
  if (moved !== undefined) {
    known = { value: moved.node.value, frame: movedFrame(moved.node.frame, moved.by) };
    trees.nodes.set(frame, known);
    trees.movedNodes.delete(frame);
  } else if (known === undefined) {
    nodesParsedAgain++;
    const again = (trees.nodeParser ??= nodeParser(trees.text, IMPLICIT_TYPES, RESOLVABLE_FIRST))(frame.start);
    // The same text read the same way from the same place gives the same node; should it
    // ever not be a collection of the same size, the whole text is parsed again instead.
    known = again !== undefined && sameShape(again.value, frame.result) ? again : null;
    trees.nodes.set(frame, known);
  }
  return known;
}

function sameShape(a: unknown, b: unknown): boolean {
  return a !== null && b !== null && typeof a === "object" && typeof b === "object" && Array.isArray(a) === Array.isArray(b) && Object.keys(a).length === Object.keys(b).length;
}

/** Where `path` leads, by the index of collections by identity. */
function resolveByIdentity(index: WeakMap<object, NodeIndex>, value: unknown, start: number, path: readonly PathSegment[], target: "value" | "key"): Resolved {
  let offset = start;
  let node = value;
  for (let i = 0; i < path.length; i++) {
    if (node === null || typeof node !== "object") return { offset, complete: false };
    const info = index.get(node);
    const slot = info?.slots.get(String(path[i]));
    if (!slot) return { offset: info?.start ?? offset, complete: false };
    const last = i === path.length - 1;
    offset = last && target === "key" && slot.key !== undefined ? slot.key : slot.value;
    node = (node as Record<string, unknown>)[String(path[i])];
  }
  return { offset, complete: true };
}

/** Skip white space, comments and a document marker: a node starts at its first token. */
function skipTrivia(text: string, offset: number): number {
  let i = offset;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 0xfeff) i++;
    else if (c === 35 /* # */) {
      while (i < text.length && text.charCodeAt(i) !== 10) i++;
    } else if (text.startsWith("---", i) && (i === 0 || text.charCodeAt(i - 1) === 10) && /[\s]|$/.test(text.charAt(i + 3))) i += 3;
    else return i >= text.length && offset < text.length ? offset : i;
  }
}

/**
 * Where each line of a text starts. Counted first, then filled: a typed array of 170,000 starts
 * (a 6 MB registry) is made once, outside the heap the garbage collector copies, where a
 * growing list was copied at every doubling and then by the collector. Each loop is a function
 * of its own, with nothing after it, so the code V8 compiles for the loop while it runs (on
 * stack replacement) is not thrown away at its end.
 */
function lineStartsOf(text: string): Int32Array {
  const starts = new Int32Array(lineCount(text));
  let k = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts[k++] = i + 1;
  return starts;
}

function lineCount(text: string): number {
  let count = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count++;
  return count;
}

/** Where a text's lines start, found on first use: positions of offsets, and the lines themselves. */
export class LineIndex {
  private starts: Int32Array | undefined;
  constructor(private readonly text: string) {}

  /** Line `line` (from 1) without its line feed, as `text.split("\n")[line - 1]` gives it; undefined past the last. */
  line(line: number): string | undefined {
    const starts = this.lineStarts();
    const start = line >= 1 ? starts[line - 1] : undefined;
    if (start === undefined) return undefined;
    const next = starts[line];
    return this.text.slice(start, next === undefined ? this.text.length : next - 1);
  }

  /**
   * The index of `text`, which is this index's text with the characters from `start` to
   * `oldEnd` replaced by those of `text` from `start` to `newEnd`: the line starts of the
   * unchanged stretches are taken from this one (moved), the rest found.
   */
  edited(text: string, start: number, oldEnd: number, newEnd: number): LineIndex {
    const index = new LineIndex(text);
    const was = this.starts;
    if (!was) return index;
    const delta = newEnd - oldEnd;
    const startOf = (i: number): number => was[i];
    const lo = firstAbove(was.length, startOf, start);
    const added: number[] = [];
    for (let i = text.indexOf("\n", start); i !== -1 && i < newEnd; i = text.indexOf("\n", i + 1)) added.push(i + 1);
    let k = firstAbove(was.length, startOf, oldEnd, lo);
    // One typed array, copied in blocks: a large file has a hundred thousand lines and more.
    const starts = new Int32Array(lo + added.length + was.length - k);
    starts.set(was.subarray(0, lo));
    starts.set(added, lo);
    for (let j = lo + added.length; k < was.length; j++, k++) starts[j] = was[k] + delta;
    index.starts = starts;
    return index;
  }

  private lineStarts(): Int32Array {
    return (this.starts ??= lineStartsOf(this.text));
  }

  lineColumn(offset: number): { line: number; column: number } {
    const starts = this.lineStarts();
    // The last line starting at or before the offset (the first starts at 0).
    const line = Math.max(0, firstAbove(starts.length, (i) => starts[i], offset) - 1);
    return { line: line + 1, column: offset - starts[line] + 1 };
  }

  position(file: string, offset: number): Position {
    return { file, ...this.lineColumn(offset) };
  }

  textAt(text: string, line: number, column: number): string {
    const start = this.lineStarts()[line - 1] ?? 0;
    return text.slice(start + column - 1, text.indexOf("\n", start) === -1 ? undefined : text.indexOf("\n", start));
  }
}
