/** SARIF 2.1.0, with rule metadata, for code-scanning dashboards. */
import { isAbsolute } from "node:path";
import { pathToFileURL } from "node:url";
import type { Finding } from "failbook-runtime/model/finding.js";
import { inert, inertJson } from "failbook-runtime/util/inert.js";
import type { RuleMeta } from "../rule.js";

const LEVEL = { error: "error", warning: "warning", info: "note" } as const;

export function formatSarif(findings: Finding[], rules: RuleMeta[], version: string): string {
  const ids = [...new Set([...rules.map((r) => r.id), ...findings.map((f) => f.rule)])];
  const meta = new Map(rules.map((r) => [r.id, r]));
  const index = new Map(ids.map((id, i) => [id, i]));
  const log = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "failbook",
            version,
            informationUri: "https://github.com/failbook/failbook",
            rules: ids.map((id) => {
              const m = meta.get(id);
              return {
                id,
                name: id.replace(/(^|[-/])([a-z])/g, (_s, _sep: string, ch: string) => ch.toUpperCase()),
                shortDescription: { text: m?.description ?? id },
                defaultConfiguration: { level: LEVEL[m?.severity ?? "error"] },
                helpUri: `https://github.com/failbook/failbook#rule-${id.replace(/\//g, "-")}`,
              };
            }),
          },
        },
        // Columns count UTF-16 code units, in every format (as editors such as VS Code do).
        columnKind: "utf16CodeUnits",
        results: findings.map((f) => ({
          ruleId: f.rule,
          ruleIndex: index.get(f.rule),
          level: LEVEL[f.severity],
          message: { text: inert(f.message, "text") },
          locations: [location(f.file, f.line, f.column)],
          partialFingerprints: { "failbook/v1": f.fingerprint },
          ...(f.related ? { relatedLocations: f.related.map((r, i) => ({ id: i + 1, message: { text: inert(r.message, "text") }, ...location(r.file, r.line, r.column) })) } : {}),
        })),
      },
    ],
  };
  return inertJson(log, 2) + "\n";
}

function location(file: string, line: number, column: number) {
  return {
    physicalLocation: {
      artifactLocation: { uri: fileUri(file) },
      region: { startLine: line, startColumn: column },
    },
  };
}

/**
 * A file as a URI reference: a relative path percent-encoded segment by segment (a space, a
 * `#`, a `:` or a control character cannot change what it names), an absolute one as file://.
 */
function fileUri(file: string): string {
  if (isAbsolute(file)) return pathToFileURL(file).href;
  return file.split(/[\\/]/).map(encodeURIComponent).join("/");
}
