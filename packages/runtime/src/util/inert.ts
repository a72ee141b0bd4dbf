/**
 * The one sanitiser for control and bidi characters (SPEC 16, "every output is inert").
 *
 * A value from input (YAML, an adapter error, a file name) must print as data: it must not
 * drive the terminal (ESC, BEL, backspace, CR, the C1 controls), reorder what a reader sees
 * (the bidi embeddings, overrides and isolates of Trojan Source), or begin a line of its own
 * that a person or CI would take for the tool's (a forged `::error::` or `file:line` line).
 * Each such character is shown as `\u{…}` with its code point in hex.
 *
 * Every format uses this module: text and terminal printers escape their values (`inert`,
 * `inertValue`), JSON printers escape what JSON.stringify leaves raw (`inertJson`, lossless:
 * a JSON reader gets the very same string), and the CLI's output boundary passes everything
 * it writes through `inertOutput` as a last line of defence.
 */
import { mapStrings } from "../model/json.js";

/** C0 controls but tab and line feed, DEL, C1, the line and paragraph separators, the bidi controls. */
const CONTROLS = String.raw`\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069`;

/**
 * Where the value sits: on one line of its own (`line`: a line feed is escaped too), or in
 * text whose line breaks the format keeps (`text`: paragraphs, JSON strings, HTML).
 */
export type Layout = "line" | "text";

const UNSAFE: Record<Layout, RegExp> = {
  line: new RegExp(`[\\n${CONTROLS}]`, "gu"),
  text: new RegExp(`[${CONTROLS}]`, "gu"),
};
const ANY_UNSAFE = new RegExp(`[\\n${CONTROLS}]`, "u");

/** `\u{1b}` for ESC: the character's code point, as JavaScript and Rust spell it. */
export const escapeCodePoint = (ch: string): string => `\\u{${ch.codePointAt(0)!.toString(16)}}`;

export function inert(text: string, layout: Layout = "line"): string {
  // Most values are clean: one scan, no copy.
  return ANY_UNSAFE.test(text) ? text.replace(UNSAFE[layout], escapeCodePoint) : text;
}

/** Every string inside a JSON-like value made inert; the same value back when all are clean. */
export function inertValue<T>(value: T, layout: Layout = "line"): T {
  return mapStrings(value, (text) => inert(text, layout));
}

// JSON.stringify escapes C0 itself; the rest it writes raw, and a terminal or a viewer obeys them.
const RAW_IN_JSON = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** JSON text in which no control or bidi character is raw: a JSON reader still gets every string exactly. */
export function inertJson(value: unknown, space?: number): string {
  return JSON.stringify(value, null, space).replace(RAW_IN_JSON, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

const OUTPUT = new RegExp(`\\u001b\\[[0-9;]*m|[${CONTROLS}]`, "gu");

/**
 * Whole output as it leaves the process: every control and bidi character escaped, except
 * tab and line feed, and the colour sequences a printer added when colour is on (values
 * were escaped before they were coloured, so a colour sequence here is the printer's own).
 */
export function inertOutput(text: string, color: boolean): string {
  return text.replace(OUTPUT, (m) => (m.length === 1 ? escapeCodePoint(m) : color ? m : escapeCodePoint(m[0]) + m.slice(1)));
}
