/**
 * Findings as they leave the process (SPEC 16): redacted before any format encodes them. A
 * format may wrap a secret beyond what the text redactor recognises (a JSON pointer writes `/`
 * as `~1`, Markdown a line break as `<br>`, a GitHub annotation as `%0A`), so the command
 * redacts the findings themselves, and the output boundary redacts the text once more.
 */
import { redactValue, type Redactor } from "failbook-runtime/engine/redact.js";
import type { Finding } from "failbook-runtime/model/finding.js";

export function redactFindings(findings: readonly Finding[], redact: Redactor): Finding[] {
  return findings.map((f) => redactValue({ ...f, path: redactPointer(f.path, redact) }, redact));
}

/** A JSON pointer with each segment (a key from input, such as a playbook entry's) redacted. */
function redactPointer(pointer: string, redact: Redactor): string {
  if (pointer === "") return pointer;
  return pointer.split("/").map((segment) => redactSegment(segment, redact)).join("/");
}

/** One segment, decoded (`~1` is `/`, `~0` is `~`), redacted, and encoded again; most hold no escape, and redaction leaves most alone. */
function redactSegment(segment: string, redact: Redactor): string {
  const decoded = segment.includes("~") ? segment.replace(/~1/g, "/").replace(/~0/g, "~") : segment;
  const redacted = redact(decoded);
  return redacted === decoded ? segment : redacted.replace(/~/g, "~0").replace(/\//g, "~1");
}
