/**
 * The head of a self-contained HTML page (`render html`, `storm --format html`): a
 * Content-Security-Policy that allows exactly the page's own stylesheet (and script) by
 * hash and nothing else, so the page can make no request and run no other script, even if
 * a text slipped through unescaped.
 */
import { createHash } from "node:crypto";

export interface PageHead {
  /** The title, already escaped. */
  title: string;
  /** The command that made the page (`failbook render`). */
  generator: string;
  style: string;
  script?: string;
}

export function pageHead({ title, generator, style, script }: PageHead): string {
  const csp = [
    "default-src 'none'",
    `style-src '${sha256(style)}'`,
    ...(script === undefined ? [] : [`script-src '${sha256(script)}'`]),
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="generator" content="${generator}">
<title>${title}</title>
<link rel="icon" href="data:,">
<style>${style}</style>
</head>
<body>
`;
}

export function sha256(text: string): string {
  return "sha256-" + createHash("sha256").update(text, "utf8").digest("base64");
}
