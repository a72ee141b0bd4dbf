/** GitHub Actions workflow commands: one annotation per finding. */
import type { Finding } from "failbook-runtime/model/finding.js";
import { inert } from "failbook-runtime/util/inert.js";

// GitHub's workflow-command escaping (`%`, CR and LF; in a property `:` and `,` too), so a
// value can neither end the command nor start another; then the control and bidi characters
// every format escapes.
const escapeData = (s: string) => inert(s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A"), "text");
const escapeProperty = (s: string) => escapeData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");

export function formatGithub(findings: Finding[]): string {
  return findings
    .map((f) => {
      const level = f.severity === "error" ? "error" : f.severity === "warning" ? "warning" : "notice";
      return `::${level} file=${escapeProperty(f.file)},line=${f.line},col=${f.column},title=${escapeProperty(f.rule)}::${escapeData(f.message)}\n`;
    })
    .join("");
}
