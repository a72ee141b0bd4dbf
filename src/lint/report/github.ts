/** GitHub Actions workflow commands: one annotation per finding. */
import type { Finding } from "../../model/finding.js";

const escapeData = (s: string) => s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
const escapeProperty = (s: string) => escapeData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");

export function formatGithub(findings: Finding[]): string {
  return findings
    .map((f) => {
      const level = f.severity === "error" ? "error" : f.severity === "warning" ? "warning" : "notice";
      return `::${level} file=${escapeProperty(f.file)},line=${f.line},col=${f.column},title=${escapeProperty(f.rule)}::${escapeData(f.message)}\n`;
    })
    .join("");
}
