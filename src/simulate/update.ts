/**
 * `simulate --update`: rewrite the `expect` blocks of fixture files to what the run did.
 * Only the text of each `expect` block changes; every other byte of the file (comments,
 * layout, other documents) stays as it was. The yaml package's document model builds the
 * new block, keeping the comments inside the old one.
 */
import { Document, isMap, isScalar, parseAllDocuments, YAMLMap, type Node } from "yaml";
import { redactValue, type Redactor } from "failbook-runtime/engine/redact.js";

/** A new golden for the fixture in document `index` (0-based, `---` separated) of a file. */
export interface GoldenUpdate {
  index: number;
  expect: Record<string, unknown>;
  /** Pin this jitter seed in a fixture that names none, so that the golden reproduces on its own. */
  seed?: number;
}

const STRINGIFY = { lineWidth: 0, flowCollectionPadding: true } as const;

/**
 * The file's text with the given `expect` blocks rewritten (or added at the end of a
 * fixture that had none). `redact` cleans the new values only (before they are quoted for
 * YAML): the fixture's own inputs are not ours to change.
 */
export function rewriteGoldens(text: string, updates: readonly GoldenUpdate[], redact: Redactor): string {
  const docs = parseAllDocuments(text);
  if (!Array.isArray(docs)) return text; // an empty stream holds no fixture
  const edits: { start: number; end: number; text: string }[] = [];
  for (const update of updates) {
    const doc = docs[update.index];
    const contents = doc?.contents;
    if (!doc || !isMap(contents)) continue;
    const pair = contents.items.find((p) => isScalar(p.key) && p.key.value === "expect");
    const block = expectBlock(doc, pair?.value ?? undefined, redactValue(update.expect, redact));
    const pinSeed = update.seed !== undefined && !contents.items.some((p) => isScalar(p.key) && p.key.value === "seed");
    const rendered = (pinSeed ? `seed: ${update.seed}\n` : "") + stringifyExpect(block);
    if (pair?.key && pair.value?.range && pair.key.range) {
      const start = pair.key.range[0];
      const end = pair.value.range[2];
      edits.push({ start, end, text: text.charAt(end - 1) === "\n" ? rendered : rendered.replace(/\n$/, "") });
    } else if (contents.range) {
      const at = contents.range[2];
      const before = at > 0 && text.charAt(at - 1) !== "\n" ? "\n" : "";
      edits.push({ start: at, end: at, text: before + rendered });
    }
  }
  let out = text;
  for (const e of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

/** The new `expect` map: the old node when there is one (its comments survive), else a new one. */
function expectBlock(doc: Document.Parsed, old: Node | undefined, expect: Record<string, unknown>): YAMLMap {
  const map = isMap(old) ? old : new YAMLMap();
  map.flow = false;
  for (const [key, value] of Object.entries(expect)) {
    const existing = map.get(key, true);
    // A scalar keeps its node, and with it a comment on its line.
    if (isScalar(existing) && (value === null || typeof value !== "object")) existing.value = value;
    else map.set(key, valueNode(doc, value));
  }
  return map;
}

/** Lists of objects (events, steps) print one item a line, in flow style; objects as blocks. */
function valueNode(doc: Document.Parsed, value: unknown): Node {
  const node = doc.createNode(value) as Node;
  if (Array.isArray(value) && isListNode(node)) {
    const scalarsOnly = value.every((v) => v === null || typeof v !== "object");
    if (scalarsOnly) node.flow = true;
    for (const item of node.items) if (isMap(item)) item.flow = true;
  }
  return node;
}

function isListNode(node: Node): node is Node & { flow?: boolean; items: unknown[] } {
  return "items" in node && Array.isArray((node as { items?: unknown }).items) && !isMap(node);
}

function stringifyExpect(block: YAMLMap): string {
  const holder = new Document(new YAMLMap());
  (holder.contents as YAMLMap).set("expect", block);
  return holder.toString(STRINGIFY);
}
