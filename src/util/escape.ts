/**
 * Escaping of YAML texts for Markdown and HTML. A text from the registry is data: whatever it
 * holds (`|`, backticks, `<script>`, a leading `#`, newlines, control and bidi characters), it
 * must print as itself and never change the structure around it.
 */
import { inert } from "failbook-runtime/util/inert.js";

const HTML_ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;", "`": "&#96;" };

/**
 * Text for HTML element content and quoted attribute values. The backtick is escaped too, so
 * an HTML attribute inside Markdown cannot be mistaken for the start of a code span.
 */
export function escapeHtml(text: string): string {
  return inert(text, "text").replace(/[&<>"'`]/g, (ch) => HTML_ENTITIES[ch]);
}

/** A URL fragment that targets the element whose id is `id` (ids are the codes, escaped as escapeHtml does). */
export function fragmentFor(id: string): string {
  return "#" + encodeURIComponent(inert(id, "text"));
}

const WORD = /^[\p{L}\p{N}]$/u;

/**
 * Markdown inline text: every character that could start emphasis, code, a link, an HTML tag,
 * an entity, strikethrough or a table cell boundary is escaped. An underscore inside a word
 * (`idempotency_key`) cannot start emphasis, so it stays readable.
 */
export function mdInline(text: string): string {
  return inert(text)
    .replace(/[\\`*[\]|~]/g, "\\$&")
    .replace(/_/g, (_m, at: number, s: string) => (WORD.test(s[at - 1] ?? "") && WORD.test(s[at + 1] ?? "") ? "_" : "\\_"))
    .replace(/&(?=#?[A-Za-z0-9]+;)/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
}

/** One table cell: inline-escaped, on one line (a newline becomes `<br>`). */
export function mdCell(text: string): string {
  return text
    .trim()
    .split(/\r?\n/)
    .map((line) => mdInline(line.trim()))
    .join("<br>");
}

/**
 * A paragraph of text: each line inline-escaped, with anything that would open a block at the
 * start of a line (heading, quote, list item, rule, setext underline) escaped; line breaks of
 * the source are kept as hard breaks, blank lines as paragraph breaks.
 */
export function mdBlock(text: string): string {
  const paragraphs = text
    .trim()
    .split(/\r?\n\s*\r?\n/)
    .map((p) =>
      p
        .split(/\r?\n/)
        .map((line) => escapeLineStart(mdInline(line.trim())))
        .join("\\\n"),
    );
  return paragraphs.join("\n\n");
}

function escapeLineStart(line: string): string {
  return line.replace(/^([#>+=-])/, "\\$1").replace(/^(\d+)([.)])/, "$1\\$2");
}

/** A code span that holds `text` literally; in a table cell, `|` is escaped as GFM requires. */
export function mdCode(text: string, inCell = false): string {
  const flat = inert(text.replace(/\r?\n/g, " "));
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = flat.startsWith("`") || flat.endsWith("`") || /^ .* $/.test(flat) ? " " : "";
  const body = inCell ? flat.replace(/\|/g, "\\|") : flat;
  return `${fence}${pad}${body}${pad}${fence}`;
}

/** A fenced code block whose fence no line of `text` can close. */
export function mdFence(raw: string, info = ""): string {
  const text = inert(raw, "text");
  const longest = Math.max(0, ...(text.match(/`{3,}/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${text}\n${fence}`;
}
