/**
 * Escaping text copied from YAML into generated TypeScript. Every string literal and every
 * comment goes through here, so that no registry text can end a comment, open a template
 * substitution, close an HTML <script> the file is inlined into, or add a JSDoc tag.
 */

const LINE_TERMINATORS = /\r\n|[\r\n\u2028\u2029]/g;
const TERMINATOR_NAMES: Record<string, string> = { "\r\n": "\\r\\n", "\n": "\\n", "\r": "\\r", "\u2028": "\\u2028", "\u2029": "\\u2029" };

/**
 * A double-quoted TypeScript string literal. Beyond JSON's escapes: U+2028/U+2029 (line
 * terminators in older engines), `<` (so `</script>` and `<!--` never appear), the backtick
 * and `$` (so the text stays inert even if pasted into a template literal).
 */
export function tsString(text: string): string {
  return JSON.stringify(text).replace(/[\u0080-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029<`$]/g, unicodeEscape);
}

const unicodeEscape = (ch: string) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;

/**
 * Data the module parses at load: `JSON.parse(\`...\`)`, one entry of the top-level list or
 * object a line. A big table costs the compiler one string token this way, where an object
 * literal of 10,000 entries would cost it seconds; the declared type says what it holds.
 * The JSON escapes `<`, U+2028/U+2029, C1 and bidi controls; the template literal escapes
 * its own `\\`, backtick and `${`.
 */
export function jsonData(value: readonly unknown[] | Record<string, unknown>): string {
  const lines = Array.isArray(value) ? value.map((v) => JSON.stringify(v)) : Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  const text = lines.length === 0 ? open + close : `${open}\n${lines.join(",\n")}\n${close}`;
  // JSON.stringify writes those characters raw only inside strings, where a \u escape means
  // the same: one pass over the whole text does both escapes.
  return `JSON.parse(\`${text.replace(DATA_ESCAPED, dataEscape)}\`)`;
}

const DATA_ESCAPED = /[\u0080-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029<\\`]|\$\{/g;
/** A character of JSON text as the template literal holds it (a \u escape's backslash escaped in turn). */
const dataEscape = (ch: string): string => (ch === "\\" || ch === "`" || ch === "${" ? `\\${ch}` : `\\${unicodeEscape(ch)}`);

/** A JSON value as a TypeScript expression: strings escaped by `tsString`, keys quoted the same way. */
export function tsValue(value: unknown): string {
  if (typeof value === "string") return tsString(value);
  if (typeof value === "number") return numberLiteral(value);
  if (typeof value === "boolean" || value === null) return String(value);
  if (Array.isArray(value)) return `[${value.map(tsValue).join(", ")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return "{}";
    return `{ ${entries.map(([k, v]) => `${propertyKey(k)}: ${tsValue(v)}`).join(", ")} }`;
  }
  return "undefined";
}

/** A number as source text; non-finite values spelled as the globals that hold them. */
export function numberLiteral(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (!Number.isFinite(n)) return n > 0 ? "Infinity" : "-Infinity";
  return Object.is(n, -0) ? "-0" : String(n);
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * A property name in an object literal or type: bare when it is a plain identifier, else a
 * quoted string. `__proto__` becomes a computed key, which defines an own property instead
 * of setting the prototype.
 */
export function propertyKey(name: string): string {
  if (name === "__proto__") return `[${tsString(name)}]`;
  return IDENTIFIER.test(name) ? name : tsString(name);
}

/** Every character that a rule of `commentSafe` rewrites, or that starts a sequence it rewrites. */
const COMMENT_UNSAFE = /[*`$@<\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** Text made inert inside a comment (block or line): nothing in it can end or reshape the comment. */
export function commentSafe(text: string): string {
  // Most texts hold none of them: one scan instead of eight replacements.
  if (!COMMENT_UNSAFE.test(text)) return text;
  return text
    .replace(/\*\//g, "*\\/")
    .replace(/\/\*/g, "/\\*")
    .replace(/<\/(script)/gi, "<\\/$1")
    .replace(/<!--/g, "<\\!--")
    .replace(/`/g, "\\`")
    .replace(/\$\{/g, "$\\{")
    // JSDoc reads a tag wherever @ follows a space, an asterisk or a brace ({@link}).
    .replace(/(^|[\s*{])@/g, "$1\\@")
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, unicodeEscape);
}

/** One line of a `//` comment: line terminators shown as `\n`, the rest made inert. */
export function lineCommentText(text: string): string {
  return commentSafe(text).replace(LINE_TERMINATORS, (t) => TERMINATOR_NAMES[t] ?? "\\n");
}

/**
 * A JSDoc block. Paragraphs are YAML texts: their line breaks (U+2028/U+2029 included)
 * become comment lines, and each line goes through `commentSafe`. `tags` are trusted lines
 * such as `@deprecated ...`.
 */
export function jsDoc(paragraphs: readonly string[], indent = "", tags: readonly string[] = []): string {
  const lines: string[] = [];
  for (const p of paragraphs) {
    if (p.trim() === "") continue;
    if (lines.length > 0) lines.push("");
    for (const line of p.replace(LINE_TERMINATORS, "\n").split("\n")) lines.push(commentSafe(line.trimEnd()));
  }
  lines.push(...tags);
  if (lines.length === 0) return "";
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => (l === "" ? `${indent} *` : `${indent} * ${l}`)).join("\n")}\n${indent} */\n`;
}
